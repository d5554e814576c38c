import { sql } from "kysely";
import type { AppContext } from "../context.js";
import type { CounterStatement } from "../db/postgres/flight-lanes.js";
import { type FlightStatement, guardedAfter } from "../db/postgres/one-flight.js";
import { executeForIds, prepareForIds, prepareQuery } from "../db/prepared.js";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { isoTime } from "../lib/clock.js";
import { insertCounterIf } from "../rate-limit.js";

const HOUR_MS = 3_600_000;

/*
 * The hourly cap on distinct SMS recipients (docs/rate-limits.md), per account and environment like
 * everything a key touches (docs/api-reference.md): a sandbox load test must never stop the live traffic of
 * the same account. A number is counted once per clock hour (UTC); a new number past the cap is
 * 429 `rate_limited` until the next hour. Counted inside the send's transaction, so a send that
 * rolls back (refused by the balance, or failed) leaves no trace, and atomic on both dialects
 * without a lock: a number's row is inserted only if absent (a concurrent send of the same
 * number waits for it), and the count is raised only while under the cap, in a guarded upsert.
 *
 * Written in the two forms of a send's write (src/db/write-form.ts), side by side: the
 * transaction form, for one number or a batch's many (`claimRecipients`, then
 * `countNewRecipients`, or number by number), and the flight form (`countRecipientInFlight`).
 * Both count in `capWindow`'s counter.
 */

export interface RecipientScope {
  accountId: string;
  environment: Environment;
}

/** The counter of an account's distinct recipients this clock hour, and its cap. */
interface CapWindow {
  key: string;
  hourStart: number;
  windowStart: string;
  expiresAt: string;
  cap: number;
}

function capWindow(ctx: AppContext, scope: RecipientScope): CapWindow {
  const hourStart = Math.floor(ctx.clock.now().getTime() / HOUR_MS) * HOUR_MS;
  return {
    key: `sms-recipients:${scope.accountId}:${scope.environment}`,
    hourStart,
    windowStart: isoTime(hourStart),
    expiresAt: isoTime(hourStart + HOUR_MS),
    cap: ctx.rateLimits.smsRecipientsPerHour,
  };
}

// The transaction form.

/**
 * Notes `numbers` as sent to in this clock hour and answers those that were not yet: one insert
 * that skips the numbers already there (a concurrent transaction's uncommitted number is waited
 * for). The numbers go in sorted, and before the account's counter and balance, in the lock
 * order of every transaction that sends (src/accounts/ledger.ts). The new numbers must then be
 * counted in the same transaction (`countNewRecipients` all at once, or `countNewRecipient` one
 * by one), and those not counted forgotten with `forgetRecipients`.
 */
export async function claimRecipients(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  numbers: readonly string[],
): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const { windowStart } = capWindow(ctx, scope);
  const sorted = numbers.length === 1 ? numbers : [...new Set(numbers)].sort();
  const claimed = await executeForIds(trx, claimNumbers, { windowStart, ...scope }, sorted);
  return new Set(claimed.map((row) => row.recipient));
}

/**
 * Raises the hour's count of distinct recipients by one, only while under the cap: one guarded
 * upsert. Past the cap, 429 `rate_limited` until the next hour, and nothing changed.
 */
export async function countNewRecipient(trx: DbOrTrx, ctx: AppContext, scope: RecipientScope): Promise<void> {
  const { key, hourStart, windowStart, expiresAt, cap } = capWindow(ctx, scope);
  const counted = await countUnderCap.execute(trx, { key, windowStart, expiresAt, cap });
  if (counted.rows.length === 0) {
    throw new ApiError(
      "rate_limited",
      `This account sends SMS to at most ${cap} different numbers an hour; numbers already sent to this hour still go through.`,
    ).withRetryAfter((hourStart + HOUR_MS - ctx.clock.now().getTime()) / 1000);
  }
}

/**
 * The insert of `claimRecipients`, compiled once per count of numbers. `executeForIds` fills the
 * list up to a power of two with its last number again; the repeat conflicts with the row just
 * inserted and is skipped, so it is neither claimed nor answered twice.
 */
const claimNumbers = prepareForIds<RecipientScope & { windowStart: string }, { recipient: string }>(
  (db, param, recipients) =>
    db
      .insertInto("sms_recipient_hours")
      .values(
        recipients.map((recipient) => ({
          window_start: param("windowStart"),
          account_id: param("accountId"),
          environment: param("environment"),
          recipient,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning("recipient"),
);

const countUnderCap = prepareQuery<
  { key: string; windowStart: string; expiresAt: string; cap: number },
  { count: number }
>((db, param) =>
  db
    .insertInto("rate_limit_counters")
    .values({
      key: param("key"),
      window_start: param("windowStart"),
      count: 1,
      expires_at: param("expiresAt"),
    })
    .onConflict((oc) =>
      oc
        .columns(["key", "window_start"])
        .doUpdateSet((eb) => ({ count: eb(eb.ref("rate_limit_counters.count"), "+", 1) }))
        .where("rate_limit_counters.count", "<", param("cap")),
    )
    .returning("count"),
);

/**
 * Raises the hour's count of distinct recipients by `count` at once, only if all of them fit under
 * the cap: one guarded upsert. Answers whether it did; if not, nothing changed (a batch then
 * counts its numbers one by one, and those past the cap are refused).
 */
export async function countNewRecipients(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  count: number,
): Promise<boolean> {
  if (count === 0) return true;
  const { key, windowStart, expiresAt, cap } = capWindow(ctx, scope);
  const counted = await countManyUnderCap.execute(trx, { key, windowStart, expiresAt, count, cap });
  return counted.rows.length > 0;
}

const countManyUnderCap = prepareQuery<
  { key: string; windowStart: string; expiresAt: string; count: number; cap: number },
  { count: number }
>((db, param) =>
  insertCounterIf(
    db,
    {
      key: param("key"),
      windowStart: param("windowStart"),
      count: param("count"),
      expiresAt: param("expiresAt"),
    },
    sql<boolean>`cast(${param("count")} as integer) <= cast(${param("cap")} as integer)`,
  )
    .onConflict((oc) =>
      oc
        .columns(["key", "window_start"])
        .doUpdateSet((eb) => ({
          count: eb(eb.ref("rate_limit_counters.count"), "+", eb.ref("excluded.count")),
        }))
        .where(sql<boolean>`rate_limit_counters.count + excluded.count <= cast(${param("cap")} as integer)`),
    )
    .returning("count"),
);

/**
 * Takes the row of the hour's count of distinct recipients for this transaction without changing
 * the count (a count of 0 if the hour has none yet). A transaction that counts and charges send
 * after send takes it before its first charge, which must come after it (the lock order,
 * src/accounts/ledger.ts).
 */
export async function holdRecipientCount(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
): Promise<void> {
  const { key, windowStart, expiresAt } = capWindow(ctx, scope);
  await holdCount.execute(trx, { key, windowStart, expiresAt });
}

const holdCount = prepareQuery<{ key: string; windowStart: string; expiresAt: string }, never>((db, param) =>
  db
    .insertInto("rate_limit_counters")
    .values({
      key: param("key"),
      window_start: param("windowStart"),
      count: 0,
      expires_at: param("expiresAt"),
    })
    .onConflict((oc) =>
      oc
        .columns(["key", "window_start"])
        .doUpdateSet((eb) => ({ count: eb.ref("rate_limit_counters.count") })),
    ),
);

/** Takes back `count` new recipients this transaction counted, whose sends were refused after all. */
export async function uncountRecipient(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  count = 1,
): Promise<void> {
  const { key, windowStart } = capWindow(ctx, scope);
  await trx
    .updateTable("rate_limit_counters")
    .set((eb) => ({ count: eb(eb.ref("count"), "-", count) }))
    .where("key", "=", key)
    .where("window_start", "=", windowStart)
    .execute();
}

/**
 * Takes back the numbers `claimRecipients` claimed in this transaction that were not counted
 * after all (their sends refused), leaving what a transaction of the counted ones alone would
 * have: when none was counted, the hour's counter goes too if it is left at zero (made by
 * `holdRecipientCount`, or raised and taken back).
 */
export async function forgetRecipients(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  claimed: ReadonlySet<string>,
  counted: ReadonlySet<string>,
): Promise<void> {
  const uncounted = [...claimed].filter((number) => !counted.has(number));
  if (uncounted.length === 0) return;
  const { key, windowStart } = capWindow(ctx, scope);
  await trx
    .deleteFrom("sms_recipient_hours")
    .where("window_start", "=", windowStart)
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .where("recipient", "in", uncounted)
    .execute();
  if (counted.size > 0) return;
  await trx
    .deleteFrom("rate_limit_counters")
    .where("key", "=", key)
    .where("window_start", "=", windowStart)
    .where("count", "=", 0)
    .execute();
}

// The flight form.

/**
 * The recipient counted as `claimRecipients` and `countNewRecipient` count it, as statements of
 * a one-flight transaction (PostgreSQL, src/db/postgres/one-flight.ts): the claim of the number, among
 * the send's own statements, and its guarded count, on the account's counter.
 */
export function countRecipientInFlight(
  ctx: AppContext,
  scope: RecipientScope,
  to: string,
): { claim: FlightStatement; count: CounterStatement } {
  const window = capWindow(ctx, scope);
  const hour = {
    windowStart: window.windowStart,
    accountId: scope.accountId,
    environment: scope.environment,
    recipient: to,
  };
  return {
    claim: claimRecipientHour(hour),
    count: { ...countClaimedRecipientUnderCap(hour, window), counter: window.key },
  };
}

/** Where a send's recipient is noted for the hour: the row of `sms_recipient_hours` it claims. */
interface RecipientHour {
  windowStart: string;
  accountId: string;
  environment: string;
  recipient: string;
}

/**
 * A send's recipient noted for the hour, as `claimRecipients` notes
 * it: inserted unless there, a concurrent transaction's uncommitted row waited for. A statement
 * on the send's own rows, so a flight takes it before the account's counters and balance (the
 * lock order, src/accounts/ledger.ts); `countClaimedRecipientUnderCap` then counts it if new.
 */
function claimRecipientHour(hour: RecipientHour): FlightStatement {
  return {
    sql: `insert into sms_recipient_hours (window_start, account_id, environment, recipient)
      values ($1, $2, $3, $4)
      on conflict do nothing`,
    parameters: [hour.windowStart, hour.accountId, hour.environment, hour.recipient],
  };
}

/**
 * The hour's count of distinct recipients raised while under `cap` if this transaction claimed
 * the recipient's row (`claimRecipientHour`, earlier in the flight), as `countNewRecipient` raises
 * it: a guard refused as `sms_recipient_cap` when a new number finds the cap reached. A number
 * already there (another transaction's row) passes without counting. The row is this
 * transaction's when it was written by it: its `xmin` is this transaction's id.
 */
function countClaimedRecipientUnderCap(hour: RecipientHour, window: CapWindow): FlightStatement {
  return guardedAfter(
    `new_recipient as (
      select 1 from sms_recipient_hours
      where window_start = $1 and account_id = $2 and environment = $3 and recipient = $4
        and xmin = pg_current_xact_id()::xid),
    counted as (
      insert into rate_limit_counters (key, window_start, count, expires_at)
      select $5, $1, 1, $6 from new_recipient
      on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
        where rate_limit_counters.count < $7
      returning 1),`,
    // A number already counted this hour passes; a new one only if it was counted.
    "select 1 where not exists (select 1 from new_recipient) union all select 1 from counted",
    [
      hour.windowStart,
      hour.accountId,
      hour.environment,
      hour.recipient,
      window.key,
      window.expiresAt,
      window.cap,
    ],
    "sms_recipient_cap",
  );
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
