import { integerFromEnv } from "../env.js";
import { ConfigError } from "../errors.js";

/** The operator's settings for delivering events to customers' webhook endpoints. */
export interface WebhookSettings {
  /** A delivery attempt that has no 2xx answer within this is a failure. */
  timeoutMs: number;
  /** Seconds to wait after each failed attempt before the next one; once used up, the event is given up. */
  retrySchedule: number[];
  /** Skip the address checks, for receivers on loopback or a private network. */
  allowPrivate: boolean;
  /** Requests a worker has in flight at once to one endpoint. */
  concurrency: number;
}

/** Requests in flight at once per endpoint, by default: enough to keep up with thousands of events a second. */
export const DEFAULT_WEBHOOK_CONCURRENCY = 32;
/** Requests a worker has in flight at once over all endpoints. */
export const MAX_IN_FLIGHT = 256;

export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];
const MAX_RETRY_DELAY_SECONDS = 7 * 24 * 3600;
const MAX_RETRIES = 20;

export function parseWebhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  return {
    timeoutMs: integerFromEnv(env, "WEBHOOK_TIMEOUT_MS", 10_000, 1, 120_000),
    retrySchedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    allowPrivate: parseBoolean("WEBHOOK_ALLOW_PRIVATE", env.WEBHOOK_ALLOW_PRIVATE),
    concurrency: integerFromEnv(env, "WEBHOOK_CONCURRENCY", DEFAULT_WEBHOOK_CONCURRENCY, 1, MAX_IN_FLIGHT),
  };
}

function parseRetrySchedule(value: string | undefined): number[] {
  if (value === undefined || value.trim() === "") return DEFAULT_RETRY_SCHEDULE;
  const delays = value.split(",").map((part) => part.trim());
  const valid = delays.every((part) => /^\d+(\.\d+)?$/.test(part) && Number(part) <= MAX_RETRY_DELAY_SECONDS);
  if (!valid || delays.length > MAX_RETRIES) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE must be up to ${MAX_RETRIES} comma-separated delays in seconds (at most 7 days each), got "${value}"`,
    );
  }
  return delays.map(Number);
}

function parseBoolean(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "") return false;
  const normalized = value.trim().toLowerCase();
  if (normalized === "true" || normalized === "1") return true;
  if (normalized === "false" || normalized === "0") return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}
