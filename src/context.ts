import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Clock, systemClock } from "./clock.js";
import type { Config, OtpLimits } from "./config.js";
import { openDatabase } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import type { Db, Dialect } from "./db/schema.js";
import type { Carriers } from "./delivery/carrier.js";
import { createSandboxCarrier } from "./delivery/carriers/sandbox.js";
import { createSmppCarrier } from "./delivery/carriers/smpp.js";
import { createVoiceCarrier } from "./delivery/carriers/voice.js";
import { createWhatsAppCarrier } from "./delivery/carriers/whatsapp.js";
import { QueueSignal } from "./delivery/queue-signal.js";
import { applyReceipt } from "./delivery/status.js";
import { createLogger, type Logger } from "./logger.js";
import type { PriceList } from "./sms/pricing.js";

export interface AppContext {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  /** Server secret for HMACs (OTP codes, sessions). */
  secret: string;
  /** The server's public base address, when the operator set one. */
  publicUrl: string | undefined;
  log: Logger;
  carriers: Carriers;
  /** Wakes this process's delivery worker when a message is queued. */
  queue: QueueSignal;
  prices: PriceList;
  maxVariableLength: number;
  otpLimits: OtpLimits;
  /** Provider settings the webhook routes check signatures with. */
  webhooks: Pick<Config, "whatsapp" | "voice">;
  /** Set once shutdown begins: readiness turns 503 so load balancers stop sending traffic. */
  shuttingDown: boolean;
  close(): Promise<void>;
}

export interface ContextOverrides {
  clock?: Clock;
  log?: Logger;
  /** Live carriers by channel (tests and later carriers plug in here); sandbox is always built in. */
  liveCarriers?: Carriers["live"];
}

/** Opens the database, brings its schema up to date and loads the server secret. */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const { db, dialect, dataDir } = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const clock = overrides.clock ?? systemClock;
  const log = overrides.log ?? createLogger(config.logLevel);
  const live: Carriers["live"] = { ...overrides.liveCarriers };
  if (config.smpp && !live.sms) {
    live.sms = createSmppCarrier(config.smpp, { log, onReceipt: (receipt) => applyReceipt(ctx, receipt) });
  }
  if (config.whatsapp && !live.whatsapp) live.whatsapp = createWhatsAppCarrier(config.whatsapp, { log });
  if (config.voice && !live.voice) live.voice = createVoiceCarrier(config.voice, { log });
  const ctx: AppContext = {
    db,
    dialect,
    clock,
    secret: config.secret ?? loadOrCreateSecret(dataDir),
    publicUrl: config.publicUrl,
    log,
    carriers: { sandbox: createSandboxCarrier({ db, clock }), live },
    queue: new QueueSignal(),
    prices: config.prices,
    maxVariableLength: config.maxVariableLength,
    otpLimits: config.otpLimits,
    webhooks: { whatsapp: config.whatsapp, voice: config.voice },
    shuttingDown: false,
    close: async () => {
      await Promise.all(Object.values(live).map((carrier) => carrier.close?.()));
      await db.destroy();
    },
  };
  return ctx;
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
