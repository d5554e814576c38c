import { purgeOldAuditRows } from "./audit/retention.js";
import type { AppContext } from "./context.js";
import { purgeExpiredSessions } from "./dashboard/sessions.js";
import { purgeOldEvents } from "./events/retention.js";
import { purgeExpiredIdempotencyKeys } from "./idempotency/idempotency.js";
import { isoNow } from "./lib/clock.js";
import { expireDueOtps } from "./otp/expiry.js";
import { purgeEndedWindows } from "./rate-limit.js";
import { startReportFolds } from "./reports/fold.js";
import { purgeEndedRecipientHours } from "./sms/recipient-cap.js";
import { purgeExpiredChallenges } from "./two-factor/challenges.js";
import { purgeOldWebhookRecords } from "./webhooks/purge.js";

const INTERVAL_MS = 15 * 60_000;

/**
 * Deletes what has outlived its use: idempotency keys after 24 h, rotated keys after their grace
 * period, OTPs past their expiry (ended, with their `otp.failed` events), events after 30 days, ended
 * dashboard sessions and two-factor challenges, the counters of rate-limit windows that have
 * passed and the SMS recipients of past hours, webhook attempts and ended deliveries after 30 days,
 * and audit rows after a year.
 */
export async function purgeExpired(ctx: AppContext): Promise<{
  idempotencyKeys: number;
  apiKeys: number;
  expiredOtps: number;
  sessions: number;
  twoFactorChallenges: number;
  rateLimitWindows: number;
  events: number;
  smsRecipientHours: number;
  webhookRecords: number;
  auditRows: number;
}> {
  const now = isoNow(ctx.clock);
  const idempotencyKeys = await purgeExpiredIdempotencyKeys(ctx);
  const keys = await ctx.db.deleteFrom("api_keys").where("expires_at", "<=", now).executeTakeFirst();
  // Workers sweep every few seconds (src/otp/expiry.ts); this catches up when none runs.
  const expiredOtps = await expireDueOtps(ctx);
  return {
    idempotencyKeys,
    apiKeys: Number(keys.numDeletedRows),
    expiredOtps,
    sessions: await purgeExpiredSessions(ctx, now),
    twoFactorChallenges: await purgeExpiredChallenges(ctx, now),
    rateLimitWindows: await purgeEndedWindows(ctx.db, now),
    events: await purgeOldEvents(ctx.db, ctx.clock.now()),
    smsRecipientHours: await purgeEndedRecipientHours(ctx.db, ctx.clock.now()),
    webhookRecords: await purgeOldWebhookRecords(ctx.db, ctx.clock.now()),
    auditRows: await purgeOldAuditRows(ctx.db, ctx.dialect, ctx.clock.now()),
  };
}

/**
 * Runs `purgeExpired` now and every 15 minutes, and folds the reports' deltas every 10 seconds
 * (src/reports/fold.ts); returns a function that stops both, waiting for a fold under way.
 */
export function startMaintenance(ctx: AppContext): () => Promise<void> {
  const run = () => {
    purgeExpired(ctx).then(
      (purged) => ctx.log.debug({ purged }, "maintenance: purged expired rows"),
      (error) => ctx.log.error({ err: error }, "maintenance failed"),
    );
  };
  run();
  const timer = setInterval(run, INTERVAL_MS);
  timer.unref();
  const stopFolds = startReportFolds(ctx);
  return async () => {
    clearInterval(timer);
    await stopFolds();
  };
}
