import { parseSmppRoutes, type SmppRoute } from "./delivery/carriers/smpp-config.js";
import { parseVoiceConfig, type VoiceConfig } from "./delivery/carriers/voice-config.js";
import { parseWhatsAppConfig, type WhatsAppConfig } from "./delivery/carriers/whatsapp-config.js";
import { DEFAULT_WORKER_OPTIONS, type WorkerOptions } from "./delivery/worker-options.js";
import { integerFromEnv } from "./env.js";
import { ConfigError } from "./errors.js";
import { parseTrustedProxies } from "./http/trusted-proxies.js";
import { formatInr, parseInr } from "./lib/money.js";
import { DEFAULT_PRICES, MAX_UNIT_PRICE, type PriceList } from "./messages/pricing.js";
import {
  DEFAULT_PROMOTIONAL_WINDOW,
  type PromotionalWindow,
  parsePromotionalWindow,
} from "./messages/promotional-window.js";
import { parseMetricsListener } from "./metrics/config.js";
import type { MetricsListenerConfig } from "./metrics/metrics.js";
import { parseWebhookSettings, type WebhookSettings } from "./webhooks/settings.js";

/** The operator's abuse limits on OTP sends. */
export interface OtpLimits {
  sendsPerOtp: number;
  sendsPerNumberPerHour: number;
  /** So a leaked key cannot drain a balance in minutes. */
  sendsPerAccountPerHour: number;
}

/** Request limits of API keys and the SMS recipient cap (docs/rate-limits.md). */
export interface RateLimits {
  /** Requests a minute per key, unless the key has its own: the token bucket's refill rate. */
  perMinute: number;
  /** The bucket's size: how many requests a key may make at once. Never more than its per-minute rate. */
  burst: number;
  /** Distinct numbers an account (per environment) may send SMS to in a clock hour. */
  smsRecipientsPerHour: number;
}

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** Server secret for HMACs; when unset it is generated into the data folder on first start. */
  secret: string | undefined;
  logLevel: string;
  /** The server's public base address; an `https://` one marks the dashboard's cookie `Secure`. */
  publicUrl: string | undefined;
  /** The operator's price list, in 1/10,000 INR per unit. */
  prices: PriceList;
  /** Longest value a DLT template variable may take (DLT's limit; sources say 20 to 40). */
  maxVariableLength: number;
  /** How long a request holds its Idempotency-Key before a retry may take over from a crashed holder. */
  idempotencyLockSeconds: number;
  otpLimits: OtpLimits;
  rateLimits: RateLimits;
  worker: WorkerOptions;
  /** Live SMS over SMPP: the SMPP_ROUTES file's routes, or SMPP_URL's one; `undefined` when neither is set. */
  smpp: SmppRoute[] | undefined;
  /** Live WhatsApp through the Cloud API; `undefined` when not configured. */
  whatsapp: WhatsAppConfig | undefined;
  /** Live voice calls; `undefined` when not configured. */
  voice: VoiceConfig | undefined;
  /** Delivery of events to customers' webhook endpoints (WEBHOOK_*). */
  outboundWebhooks: WebhookSettings;
  /** `/metrics` on a listener of its own (METRICS_HOST/METRICS_PORT); `undefined`: on the main port. */
  metricsListener: MetricsListenerConfig | undefined;
  /** Reverse proxies whose X-Forwarded-* headers are believed (TRUST_PROXY); empty: none. */
  trustedProxies: string[];
  /** The longest a request may take to arrive whole, headers and body (REQUEST_TIMEOUT_MS); then 408. */
  requestTimeoutMs: number;
  /** When promotional and service-explicit SMS may reach a carrier, India time (PROMOTIONAL_WINDOW). */
  promotionalWindow: PromotionalWindow;
  /** How TRAI's template rules and CTA whitelists are applied (DLT_TEMPLATE_RULES, docs/dlt-compliance.md). */
  dltTemplateRules: DltTemplateRules;
}

export const DLT_TEMPLATE_RULE_MODES = ["warn", "strict", "off"] as const;
/**
 * `warn`: breaches are listed on the template and it is saved; `strict`: a template with a breach
 * is refused, and an empty CTA whitelist whitelists nothing; `off`: templates are not checked.
 */
export type DltTemplateRules = (typeof DLT_TEMPLATE_RULE_MODES)[number];

/** 1 MiB (a batch) arrives well within a minute even at 20 KB/s; a client that stopped sending is let go after it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Requests a minute, per key or by default: 1 million is about 16,700 a second. */
export const MAX_RATE_LIMIT = 1_000_000;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL ?? "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  const secret = env.DAKIYA_SECRET || undefined;
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError("DAKIYA_SECRET must be at least 32 characters");
  }
  return {
    host: env.HOST || "127.0.0.1",
    port: integerFromEnv(env, "PORT", 3000, 0, 65535),
    databaseUrl: env.DATABASE_URL || "sqlite:./data/dakiya.db",
    secret,
    logLevel,
    publicUrl: parsePublicUrl(env.PUBLIC_URL),
    prices: {
      sms: parsePrice(env, "PRICE_SMS_SEGMENT", DEFAULT_PRICES.sms),
      whatsapp: parsePrice(env, "PRICE_WHATSAPP_MESSAGE", DEFAULT_PRICES.whatsapp),
      voice: parsePrice(env, "PRICE_VOICE_CALL", DEFAULT_PRICES.voice),
    },
    maxVariableLength: integerFromEnv(env, "DLT_MAX_VARIABLE_LENGTH", 30, 1, 200),
    idempotencyLockSeconds: integerFromEnv(env, "IDEMPOTENCY_LOCK_SECONDS", 60, 1, 3600),
    otpLimits: {
      sendsPerOtp: integerFromEnv(env, "OTP_MAX_SENDS_PER_OTP", 5, 1, 100),
      sendsPerNumberPerHour: integerFromEnv(env, "OTP_MAX_SENDS_PER_NUMBER_PER_HOUR", 10, 1, 10_000),
      sendsPerAccountPerHour: integerFromEnv(env, "OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR", 1_000, 1, 10_000_000),
    },
    rateLimits: {
      perMinute: integerFromEnv(env, "RATE_LIMIT_PER_MINUTE", 1_000, 1, MAX_RATE_LIMIT),
      burst: integerFromEnv(env, "RATE_LIMIT_BURST", 100, 1, MAX_RATE_LIMIT),
      smsRecipientsPerHour: integerFromEnv(
        env,
        "SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR",
        10_000,
        1,
        10_000_000,
      ),
    },
    smpp: parseSmppRoutes(env),
    whatsapp: parseWhatsAppConfig(env),
    voice: parseVoiceConfig(env),
    outboundWebhooks: parseWebhookSettings(env),
    metricsListener: parseMetricsListener(env, env.HOST || "127.0.0.1"),
    trustedProxies: parseTrustedProxies(env),
    requestTimeoutMs: integerFromEnv(env, "REQUEST_TIMEOUT_MS", DEFAULT_REQUEST_TIMEOUT_MS, 100, 3_600_000),
    promotionalWindow: env.PROMOTIONAL_WINDOW
      ? parsePromotionalWindow(env.PROMOTIONAL_WINDOW)
      : DEFAULT_PROMOTIONAL_WINDOW,
    dltTemplateRules: parseDltTemplateRules(env.DLT_TEMPLATE_RULES),
    worker: {
      batchSize: integerFromEnv(env, "WORKER_BATCH_SIZE", DEFAULT_WORKER_OPTIONS.batchSize, 1, 1000),
      leaseSeconds: integerFromEnv(env, "WORKER_LEASE_SECONDS", DEFAULT_WORKER_OPTIONS.leaseSeconds, 1, 3600),
      pollIntervalMs: integerFromEnv(
        env,
        "WORKER_POLL_INTERVAL_MS",
        DEFAULT_WORKER_OPTIONS.pollIntervalMs,
        1,
        60_000,
      ),
      maxAttempts: integerFromEnv(env, "WORKER_MAX_ATTEMPTS", DEFAULT_WORKER_OPTIONS.maxAttempts, 1, 100),
    },
  };
}

function parsePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw new ConfigError(`PUBLIC_URL must be an http:// or https:// address, got "${value}"`);
  }
  return value.replace(/\/+$/, "");
}

function parsePrice(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const units = parseInr(value);
  if (units === undefined || units > MAX_UNIT_PRICE) {
    throw new ConfigError(
      `${name} must be an INR amount from 0 to ${formatInr(MAX_UNIT_PRICE)}, like 0.2500, got "${value}"`,
    );
  }
  return units;
}

function parseDltTemplateRules(raw: string | undefined): DltTemplateRules {
  if (raw === undefined || raw === "") return "warn";
  const mode = DLT_TEMPLATE_RULE_MODES.find((m) => m === raw);
  if (mode === undefined) {
    throw new ConfigError(
      `DLT_TEMPLATE_RULES must be one of ${DLT_TEMPLATE_RULE_MODES.join(", ")}, got "${raw}"`,
    );
  }
  return mode;
}
