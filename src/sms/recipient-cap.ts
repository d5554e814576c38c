import type { AppContext } from "../context.js";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { ApiError } from "../errors.js";

const HOUR_MS = 3_600_000;

/**
 * Counts `to` against the hourly cap on distinct SMS recipients (API.md §8a), inside the send's
 * transaction: a send that rolls back (refused by the balance, or failed) leaves no trace. A
 * number is counted once per clock hour (UTC); a new number past the cap is 429 `rate_limited`
 * until the next hour. Atomic on both dialects without a lock: the number's row is inserted
 * only if absent (a concurrent send of the same number waits for it), and the count is raised
 * only while under the cap, in one guarded upsert.
 *
 * The cap is per account and environment, like everything a key touches (API.md §3): a sandbox
 * load test must never stop the live traffic of the same account.
 */
export async function countSmsRecipient(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  to: string,
): Promise<void> {
  const now = ctx.clock.now().getTime();
  const hourStart = Math.floor(now / HOUR_MS) * HOUR_MS;
  const windowStart = new Date(hourStart).toISOString();
  const newThisHour = await trx
    .insertInto("sms_recipient_hours")
    .values({
      window_start: windowStart,
      account_id: scope.accountId,
      environment: scope.environment,
      recipient: to,
    })
    .onConflict((oc) => oc.doNothing())
    .returning("recipient")
    .executeTakeFirst();
  if (!newThisHour) return;

  const cap = ctx.rateLimits.smsRecipientsPerHour;
  const counted = await trx
    .insertInto("rate_limit_counters")
    .values({
      key: `sms-recipients:${scope.accountId}:${scope.environment}`,
      window_start: windowStart,
      count: 1,
      expires_at: new Date(hourStart + HOUR_MS).toISOString(),
    })
    .onConflict((oc) =>
      oc
        .columns(["key", "window_start"])
        .doUpdateSet((eb) => ({ count: eb(eb.ref("rate_limit_counters.count"), "+", 1) }))
        .where("rate_limit_counters.count", "<", cap),
    )
    .returning("count")
    .executeTakeFirst();
  if (!counted) {
    throw new ApiError(
      "rate_limited",
      `This account sends SMS to at most ${cap} different numbers an hour; numbers already sent to this hour still go through.`,
    ).withRetryAfter((hourStart + HOUR_MS - now) / 1000);
  }
}

/** Forgets the recipients of clock hours that have ended (their counts expire with `rate_limit_counters`). */
export async function purgeEndedRecipientHours(db: DbOrTrx, now: Date): Promise<number> {
  const currentHour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS).toISOString();
  const result = await db
    .deleteFrom("sms_recipient_hours")
    .where("window_start", "<", currentHour)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
