import { isoNow } from "./clock.js";
import type { AppContext } from "./context.js";
import { purgeExpiredSessions } from "./dashboard/sessions.js";
import { purgeExpiredIdempotencyKeys } from "./idempotency/idempotency.js";
import { purgeEndedWindows } from "./rate-limit.js";

const INTERVAL_MS = 15 * 60_000;

/**
 * Deletes what has outlived its use: idempotency keys after 24 h, rotated keys after their grace
 * period, the sealed codes of OTPs that expired without anyone asking about them again, ended
 * dashboard sessions and the counters of rate-limit windows that have passed.
 */
export async function purgeExpired(ctx: AppContext): Promise<{
  idempotencyKeys: number;
  apiKeys: number;
  expiredOtps: number;
  sessions: number;
  rateLimitWindows: number;
}> {
  const now = isoNow(ctx.clock);
  const idempotencyKeys = await purgeExpiredIdempotencyKeys(ctx);
  const keys = await ctx.db.deleteFrom("api_keys").where("expires_at", "<=", now).executeTakeFirst();
  const otps = await ctx.db
    .updateTable("otps")
    .set({ status: "expired", code_sealed: null, fallback_due_at: null, updated_at: now })
    .where("status", "=", "pending")
    .where("expires_at", "<=", now)
    .executeTakeFirst();
  return {
    idempotencyKeys,
    apiKeys: Number(keys.numDeletedRows),
    expiredOtps: Number(otps.numUpdatedRows),
    sessions: await purgeExpiredSessions(ctx, now),
    rateLimitWindows: await purgeEndedWindows(ctx.db, now),
  };
}

/** Runs `purgeExpired` now and every 15 minutes; returns a function that stops it. */
export function startMaintenance(ctx: AppContext): () => void {
  const run = () => {
    purgeExpired(ctx).then(
      (purged) => ctx.log.debug({ purged }, "maintenance: purged expired rows"),
      (error) => ctx.log.error({ err: error }, "maintenance failed"),
    );
  };
  run();
  const timer = setInterval(run, INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
