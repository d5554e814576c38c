import { sql } from "kysely";
import type { RateLimits } from "../config.js";
import type { AppContext } from "../context.js";
import {
  canSpend,
  forgetExpired,
  type KeyRate,
  LEASE_LIFETIME_US,
  leasesOf,
  maxLeaseSize,
  nextLeaseSize,
  type TokenLease,
} from "./rate-lease.js";

/** One request's take from its key's bucket, and what the `RateLimit-*` headers say about it. */
export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket's size: the most requests the key may make at once. */
  limit: number;
  /** Requests the key may make right now, this one already taken. */
  remaining: number;
  /** Whole seconds until the bucket is full again (`limit` requests available). */
  resetSeconds: number;
}

/** The key's own per-minute rate, else the server's; a burst never exceeds the per-minute rate. */
export function keyRate(limits: RateLimits, ownRate: number | null): KeyRate {
  const perMinute = ownRate ?? limits.perMinute;
  return { perMinute, burst: Math.min(limits.burst, perMinute) };
}

const MICROS_PER_MINUTE = 60_000_000;
const MICROS_PER_SECOND = 1_000_000;

/**
 * Takes one request from the key's token bucket, which lives in the database so that every
 * instance shares it. The bucket is stored as one instant, when it is full again (the generic
 * cell rate algorithm, a token bucket's exact equivalent): each request moves it one interval
 * later, and a request is allowed while that instant is at most `burst − 1` intervals ahead of
 * the bucket's time: the latest time any request brought to it, or the request's own if later.
 *
 * A busy key with a large burst does not write per request: this process leases several tokens
 * in one statement and spends them on the key's next requests (rate-lease.ts), which keeps the
 * shared limit within a few percent. A key near its limit, or with a small burst, is counted
 * request by request, exactly.
 */
export async function takeRequest(ctx: AppContext, keyId: string, rate: KeyRate): Promise<RateLimitDecision> {
  if (maxLeaseSize(rate) === 1) {
    const now = nowUs(ctx);
    const taken = await takeTokens(ctx, keyId, rate, 1, now);
    return taken === undefined
      ? refusal(ctx, keyId, rate, now)
      : allowed(rate, taken.bucketNowUs, taken.fullAtUs, 0);
  }
  const leases = leasesOf(ctx);
  for (;;) {
    const now = nowUs(ctx);
    const lease = leases.get(keyId);
    if (lease && canSpend(lease, rate, now)) {
      lease.tokens -= 1;
      return allowed(rate, Math.max(now, lease.bucketNowUs), lease.fullAtUs, lease.tokens);
    }
    if (lease?.pending) {
      await lease.pending;
      continue;
    }
    const next: TokenLease = {
      perMinute: rate.perMinute,
      burst: rate.burst,
      tokens: 0,
      size: 0,
      fullAtUs: 0,
      bucketNowUs: 0,
      expiresAtUs: 0,
      pending: undefined,
    };
    const size = nextLeaseSize(lease, rate, now);
    forgetExpired(leases, now);
    leases.set(keyId, next);
    next.pending = (async () => {
      // A bucket with fewer tokens than the lease asks for still pays for this request, exactly.
      let taken = await takeTokens(ctx, keyId, rate, size, now);
      let count = size;
      if (taken === undefined && size > 1) {
        taken = await takeTokens(ctx, keyId, rate, 1, now);
        count = 1;
      }
      if (taken === undefined) return;
      Object.assign(next, {
        tokens: count,
        size: count,
        fullAtUs: taken.fullAtUs,
        bucketNowUs: taken.bucketNowUs,
        expiresAtUs: now + LEASE_LIFETIME_US,
      });
    })().finally(() => {
      next.pending = undefined;
    });
    await next.pending;
    if (next.tokens === 0) return refusal(ctx, keyId, rate, now);
    next.tokens -= 1;
    return allowed(rate, next.bucketNowUs, next.fullAtUs, next.tokens);
  }
}

function nowUs(ctx: AppContext): number {
  return ctx.clock.now().getTime() * 1000;
}

function intervalOf(rate: KeyRate): number {
  // Rounded up: rounding may make the limit a hair stricter, never looser.
  return Math.ceil(MICROS_PER_MINUTE / rate.perMinute);
}

/** What an allowed request's headers say: the shared bucket as last seen, plus the tokens this process holds. */
function allowed(rate: KeyRate, now: number, fullAt: number, unspent: number): RateLimitDecision {
  const interval = intervalOf(rate);
  const capacity = interval * rate.burst;
  const free = Math.floor((now + capacity - Math.max(fullAt, now)) / interval);
  return {
    allowed: true,
    limit: rate.burst,
    remaining: Math.max(0, Math.min(rate.burst - 1, free + unspent)),
    resetSeconds: Math.max(1, Math.ceil((fullAt - unspent * interval - now) / MICROS_PER_SECOND)),
  };
}

/** The shared bucket right after a take. */
interface Taken {
  /** When it is full again. */
  fullAtUs: number;
  /** The time it was judged at: the request's own, or a later one another request brought. */
  bucketNowUs: number;
}

/**
 * The time a take is judged at: the latest of the request's own (`excluded.seen_at_us`) and the
 * latest any request brought to the bucket. A request's time is read before its statement waits
 * for a connection; another instance's request, timed later, may have moved the bucket first.
 * Judged at its own stale time, the request would find that later request's tokens in the future
 * and the bucket looking spent: a key whose burst lasts a few milliseconds (1,000,000 a minute,
 * burst 100: 6 ms) would be refused far under its limit. The later time is one some instance has
 * already read, so the limit is never looser than with a fresh clock.
 */
const BUCKET_NOW = sql<number>`case when api_key_rate_buckets.seen_at_us > excluded.seen_at_us
  then api_key_rate_buckets.seen_at_us else excluded.seen_at_us end`;

/**
 * Takes `count` tokens from the shared bucket in one upsert, atomic under concurrency on both
 * dialects, and answers the bucket's new "full again" instant; `undefined` if it holds fewer than
 * `count`, in which case nothing changed, so hammering a limited key does not push its recovery
 * further out.
 */
async function takeTokens(
  ctx: AppContext,
  keyId: string,
  rate: KeyRate,
  count: number,
  now: number,
): Promise<Taken | undefined> {
  const step = intervalOf(rate) * count;
  const capacity = intervalOf(rate) * rate.burst;
  const taken = await insertBucket(ctx, keyId, now + step, now)
    .onConflict((oc) =>
      oc
        .column("key_id")
        .doUpdateSet({
          full_at_us: sql<number>`case when api_key_rate_buckets.full_at_us > ${BUCKET_NOW}
            then api_key_rate_buckets.full_at_us else ${BUCKET_NOW} end + ${step}`,
          seen_at_us: BUCKET_NOW,
        })
        .where(sql<boolean>`api_key_rate_buckets.full_at_us <= ${BUCKET_NOW} + ${capacity - step}`),
    )
    .returning(["full_at_us", "seen_at_us"])
    .executeTakeFirst();
  return taken ? { fullAtUs: Number(taken.full_at_us), bucketNowUs: Number(taken.seen_at_us) } : undefined;
}

/** A refused request: only now is the bucket read, to say when it is full again. */
async function refusal(
  ctx: AppContext,
  keyId: string,
  rate: KeyRate,
  now: number,
): Promise<RateLimitDecision> {
  const bucket = await ctx.db
    .selectFrom("api_key_rate_buckets")
    .select(["full_at_us", "seen_at_us"])
    .where("key_id", "=", keyId)
    .executeTakeFirst();
  const fullAt = bucket ? Number(bucket.full_at_us) : now;
  const bucketNow = bucket ? Math.max(now, Number(bucket.seen_at_us)) : now;
  return {
    allowed: false,
    limit: rate.burst,
    remaining: 0,
    resetSeconds: Math.max(1, Math.ceil((fullAt - bucketNow) / MICROS_PER_SECOND)),
  };
}

/**
 * The insert half of the check's upsert: it makes a key's first bucket, and its conflict clause
 * moves the bucket after that. On PostgreSQL the statement also turns off, for its own
 * transaction, the wait for the write-ahead log's flush at commit (`synchronous_commit`): that
 * wait made a check several times slower, and a bucket needs no durability (a database crash
 * could at worst forget its last fraction of a second of requests).
 */
function insertBucket(ctx: AppContext, keyId: string, fullAt: number, now: number) {
  const insert = ctx.db.insertInto("api_key_rate_buckets");
  if (ctx.dialect !== "postgres") {
    return insert.values({ key_id: keyId, full_at_us: fullAt, seen_at_us: now });
  }
  return insert
    .columns(["key_id", "full_at_us", "seen_at_us"])
    .expression(
      ctx.db
        .selectFrom(sql`(select set_config('synchronous_commit', 'off', true))`.as("async_commit"))
        .select([
          sql<string>`cast(${keyId} as text)`.as("key_id"),
          sql<number>`cast(${fullAt} as bigint)`.as("full_at_us"),
          sql<number>`cast(${now} as bigint)`.as("seen_at_us"),
        ]),
    );
}
