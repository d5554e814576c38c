import type { AppContext } from "../context.js";
import type { CounterStatement } from "../db/postgres/flight-lanes.js";
import { type FlightStatement, guarded } from "../db/postgres/one-flight.js";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { ApiError } from "../errors.js";
import type { Clock } from "../lib/clock.js";
import { hitsUnderLimit, hitUnderLimit, hitUnderLimitQuery, takeBackHits } from "../rate-limit.js";

/*
 * The hourly limits every OTP send counts against, its number's and its account's, in each form
 * a send's write takes (src/db/write-form.ts): counted in a transaction, as guarded statements
 * of a flight, and in a burst.
 */

const HOUR_SECONDS = 3600;
/** Sends are counted per minute: an hour's limit sums at most 61 rows, however busy the hour. */
const SEND_BUCKET_SECONDS = 60;

type Scope = { accountId: string; environment: Environment };

/** One hourly OTP limit: its counter's key, the limit, and the message and reason of a refusal. */
export interface HourlySendLimit {
  key: string;
  limit: number;
  what: string;
  refusal: string;
}

/** The hourly limit on an account's OTP sends in one environment, over all its numbers. */
export function accountSendLimit(ctx: AppContext, scope: Scope): HourlySendLimit {
  const { sendsPerAccountPerHour } = ctx.otpLimits;
  return {
    key: `otp-sends:${scope.accountId}:${scope.environment}`,
    limit: sendsPerAccountPerHour,
    what: `This account sends at most ${sendsPerAccountPerHour} OTPs an hour.`,
    refusal: "otp_account_limit",
  };
}

/** The hourly limit on the OTP sends to one number of an account's environment. */
export function numberSendLimit(ctx: AppContext, scope: Scope, to: string): HourlySendLimit {
  const { sendsPerNumberPerHour } = ctx.otpLimits;
  return {
    key: `${accountSendLimit(ctx, scope).key}:${to}`,
    limit: sendsPerNumberPerHour,
    what: `At most ${sendsPerNumberPerHour} OTPs an hour go to one number.`,
    refusal: "otp_number_limit",
  };
}

/** What a send over `limit` is answered: 429 `rate_limited`. */
export function sendRefusal(limit: HourlySendLimit): ApiError {
  return new ApiError("rate_limited", limit.what).withRetryAfter(HOUR_SECONDS);
}

/** Transaction: counts a send against its number's limit, then its account's; over either, throws its refusal. */
export async function countHourlySend(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: Scope,
  to: string,
): Promise<void> {
  for (const limit of [numberSendLimit(ctx, scope, to), accountSendLimit(ctx, scope)]) {
    if (!(await countSends(trx, ctx.clock, limit, 1))) throw sendRefusal(limit);
  }
}

/**
 * One flight: a send's count against its number's limit (on the send's own rows) and against its
 * account's (a counter the account's sends share), each refusing the flight when over.
 */
export function hourlySendInFlight(
  ctx: AppContext,
  scope: Scope,
  to: string,
): { number: FlightStatement; account: CounterStatement } {
  const hit = ({ key, limit, refusal }: HourlySendLimit) =>
    guarded(hitUnderLimitQuery(ctx.db, ctx.clock, key, limit, HOUR_SECONDS, SEND_BUCKET_SECONDS), refusal);
  const accountLimit = accountSendLimit(ctx, scope);
  return {
    number: hit(numberSendLimit(ctx, scope, to)),
    account: { ...hit(accountLimit), counter: accountLimit.key },
  };
}

/**
 * Counts `hits` sends under `limit` at once, only if all of them fit; answers whether they were
 * counted. A burst counts with a clock read once (`uncountSends` takes back in the same bucket).
 */
export function countSends(
  trx: DbOrTrx,
  clock: Clock,
  limit: HourlySendLimit,
  hits: number,
): Promise<boolean> {
  return hits === 1
    ? hitUnderLimit(trx, clock, limit.key, limit.limit, HOUR_SECONDS, SEND_BUCKET_SECONDS)
    : hitsUnderLimit(trx, clock, limit.key, hits, limit.limit, HOUR_SECONDS, SEND_BUCKET_SECONDS);
}

/** Burst: takes back `hits` sends this transaction counted under `limit`, `clock` reading as it did then. */
export function uncountSends(
  trx: DbOrTrx,
  clock: Clock,
  limit: HourlySendLimit,
  hits: number,
): Promise<void> {
  return takeBackHits(trx, clock, limit.key, hits, SEND_BUCKET_SECONDS);
}
