import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SettingsCache } from "./accounts/settings-cache.js";
import type { Config, DltTemplateRules, OtpLimits, RateLimits } from "./config.js";
import { openDatabase } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import type { Channel, Db, Dialect } from "./db/schema.js";
import { startBackgroundCheckpoints } from "./db/sqlite/driver.js";
import { CarrierBoard } from "./delivery/carrier-board.js";
import { QueueSignal } from "./delivery/queue-signal.js";
import { type Clock, systemClock } from "./lib/clock.js";
import { createLogger, type Logger } from "./lib/logger.js";
import type { PriceList } from "./messages/pricing.js";
import type { PromotionalWindow } from "./messages/promotional-window.js";
import { type Metrics, unmeteredMetrics } from "./metrics/metrics.js";
import type { WebhookSettings } from "./webhooks/settings.js";
import { type HostLookup, systemLookup } from "./webhooks/ssrf.js";

export interface AppContext {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  /** Server secret for HMACs (OTP codes, sessions). */
  secret: string;
  /** The server's public base address, when the operator set one. */
  publicUrl: string | undefined;
  log: Logger;
  /** The channels with a live carrier configured: a live send on any other is `channel_not_configured`. */
  liveChannels: ReadonlySet<Channel>;
  /** Two or more SMS routes are configured: a live SMS OTP not delivered in time may go out again on another. */
  otpReroute: boolean;
  /** The live carriers this process's delivery worker sends through, as /readyz shows them. */
  carrierBoard: CarrierBoard;
  /** Wakes this process's delivery worker when a message is queued. */
  queue: QueueSignal;
  /** Accounts' senders, templates and OTP settings as sends read them (settings-cache.ts). */
  settingsCache: SettingsCache;
  prices: PriceList;
  maxVariableLength: number;
  promotionalWindow: PromotionalWindow;
  dltTemplateRules: DltTemplateRules;
  /** How long a request holds its Idempotency-Key before a retry may take over from a crashed holder. */
  idempotencyLockSeconds: number;
  otpLimits: OtpLimits;
  rateLimits: RateLimits;
  /** Provider settings the webhook routes check signatures with. */
  webhooks: Pick<Config, "whatsapp" | "voice">;
  /** Delivery to customers' webhook endpoints; `lookup` resolves their hosts (tests swap it). */
  outboundWebhooks: WebhookSettings & { lookup: HostLookup };
  /** Set once shutdown begins: readiness turns 503 so load balancers stop sending traffic. */
  shuttingDown: boolean;
  /** What this process counts for `/metrics` (docs/metrics.md). */
  metrics: Metrics;
  /** Reverse proxies whose X-Forwarded-* headers are believed (TRUST_PROXY). */
  trustedProxies: string[];
  /** The longest a request may take to arrive whole (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  close(): Promise<void>;
}

export interface ContextOverrides {
  clock?: Clock;
  log?: Logger;
  /** Channels to count as live-configured besides the configuration's (tests bring carriers of their own). */
  liveChannels?: Channel[];
  /** `false`: count nothing and load no metrics library (the operator's CLI serves no metrics). */
  metrics?: boolean;
  /** Checkpoint a SQLite database on a thread of its own (long-running processes: serve, worker). */
  backgroundCheckpoints?: boolean;
}

/** Opens the database, brings its schema up to date and loads the server secret. */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config.logLevel);
  const { db, dialect, dataDir } = await openDatabase(config.databaseUrl, {
    sqlite: overrides.backgroundCheckpoints
      ? { backgroundCheckpoints: { onFailure: (failure) => log.warn({ failure }, "checkpoint failed") } }
      : {},
  });
  try {
    await migrateToLatest(db);
    startBackgroundCheckpoints(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const clock = overrides.clock ?? systemClock;
  const carrierBoard = new CarrierBoard();
  let metrics = unmeteredMetrics;
  if (overrides.metrics !== false) {
    const { PrometheusMetrics } = await import("./metrics/prometheus.js");
    metrics = new PrometheusMetrics({ db, clock, log, carrierBoard }, config.metricsListener);
  }
  const ctx: AppContext = {
    db,
    dialect,
    clock,
    secret: config.secret ?? loadOrCreateSecret(dataDir),
    publicUrl: config.publicUrl,
    log,
    liveChannels: configuredLiveChannels(config, overrides.liveChannels),
    otpReroute: (config.smpp?.length ?? 0) > 1,
    carrierBoard,
    queue: new QueueSignal(),
    settingsCache: new SettingsCache(),
    prices: config.prices,
    maxVariableLength: config.maxVariableLength,
    promotionalWindow: config.promotionalWindow,
    dltTemplateRules: config.dltTemplateRules,
    idempotencyLockSeconds: config.idempotencyLockSeconds,
    otpLimits: config.otpLimits,
    rateLimits: config.rateLimits,
    webhooks: { whatsapp: config.whatsapp, voice: config.voice },
    outboundWebhooks: { ...config.outboundWebhooks, lookup: systemLookup },
    shuttingDown: false,
    metrics,
    trustedProxies: config.trustedProxies,
    requestTimeoutMs: config.requestTimeoutMs,
    close: () => db.destroy(),
  };
  return ctx;
}

/** The channels the configuration sets a live carrier up for (`createCarriers` wires them), and `extra`. */
function configuredLiveChannels(config: Config, extra: Channel[] = []): Set<Channel> {
  const channels = new Set(extra);
  if (config.smpp) channels.add("sms");
  if (config.whatsapp) channels.add("whatsapp");
  if (config.voice) channels.add("voice");
  return channels;
}

function loadOrCreateSecret(dataDir: string | undefined): string {
  if (dataDir === undefined) return randomBytes(32).toString("base64url");
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "secret");
  try {
    writeFileSync(path, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return readFileSync(path, "utf8").trim();
}
