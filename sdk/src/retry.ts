import type { DakiyaError } from "./errors.js";

/** A `Retry-After` longer than this is not waited for: the error goes to the caller instead. */
export const MAX_RETRY_AFTER_SECONDS = 60;
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** Exponential backoff with jitter: about 0.5 s, 1 s, 2 s, … up to 8 s. */
export function backoffMs(retry: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** retry);
  return ceiling * (0.75 + Math.random() * 0.25);
}

/**
 * How long to wait before trying a failed request again, or `undefined` if it must not be
 * tried again. Every request the SDK makes is safe to repeat (GET, PATCH, DELETE, and POSTs
 * carry an Idempotency-Key), so the only question is whether another try can succeed:
 * - 409 `idempotency_key_in_use`: the first try is still running; its answer is replayed later;
 * - 429 `rate_limited`, when `Retry-After` is short; never `resend_cooldown`, which is an
 *   answer about the OTP (a resend now would be a different request from the one made);
 * - 5xx: nothing was stored, so the retry runs the request once;
 * - no answer at all (`status` 0): the Idempotency-Key makes a retry replay or run it once.
 * Any other 4xx would fail again the same way.
 */
export function retryDelayMs(error: DakiyaError, retry: number): number | undefined {
  const { status, code, retry_after: retryAfter } = error;
  const retryable =
    (status === 0 && (code === "connection_error" || code === "timeout")) ||
    status >= 500 ||
    (status === 409 && code === "idempotency_key_in_use") ||
    (status === 429 && code !== "resend_cooldown");
  if (!retryable) return undefined;
  if (retryAfter === undefined) return backoffMs(retry);
  if (retryAfter > MAX_RETRY_AFTER_SECONDS) return undefined;
  return retryAfter * 1000;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
