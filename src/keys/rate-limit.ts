import { sql } from "kysely";
import type { RateLimits } from "../config.js";
import type { AppContext } from "../context.js";

/** A key's token bucket: refilled at `perMinute`, holding at most `burst` requests. */
export interface KeyRate {
  perMinute: number;
  burst: number;
}

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
 * Takes one request from the key's token bucket, in the database so that every instance shares
 * it. The bucket is stored as one instant, when it is full again (the generic cell rate
 * algorithm, a token bucket's exact equivalent): each request moves it one interval later, and a
 * request is allowed while that instant is at most `burst − 1` intervals ahead. One upsert, atomic
 * under concurrency on both dialects; a refused request changes nothing, so hammering a limited
 * key does not push its recovery further out.
 */
export async function takeRequest(ctx: AppContext, keyId: string, rate: KeyRate): Promise<RateLimitDecision> {
  // Rounded up: rounding may make the limit a hair stricter, never looser.
  const interval = Math.ceil(MICROS_PER_MINUTE / rate.perMinute);
  const capacity = interval * rate.burst;
  const now = ctx.clock.now().getTime() * 1000;
  const taken = await insertBucket(ctx, keyId, now + interval)
    .onConflict((oc) =>
      oc
        .column("key_id")
        .doUpdateSet({
          full_at_us: sql<number>`case when api_key_rate_buckets.full_at_us > ${now}
            then api_key_rate_buckets.full_at_us + ${interval} else ${now + interval} end`,
        })
        .where("api_key_rate_buckets.full_at_us", "<=", now + capacity - interval),
    )
    .returning("full_at_us")
    .executeTakeFirst();
  if (taken) {
    const fullAt = Number(taken.full_at_us);
    return {
      allowed: true,
      limit: rate.burst,
      remaining: Math.floor((now + capacity - fullAt) / interval),
      resetSeconds: Math.ceil((fullAt - now) / MICROS_PER_SECOND),
    };
  }
  // Refused: only now is the bucket read, to say when it is full again.
  const bucket = await ctx.db
    .selectFrom("api_key_rate_buckets")
    .select("full_at_us")
    .where("key_id", "=", keyId)
    .executeTakeFirst();
  const fullAt = bucket ? Number(bucket.full_at_us) : now;
  return {
    allowed: false,
    limit: rate.burst,
    remaining: 0,
    resetSeconds: Math.max(1, Math.ceil((fullAt - now) / MICROS_PER_SECOND)),
  };
}

/**
 * The insert half of the check's upsert: it makes a key's first bucket, and its conflict clause
 * moves the bucket after that. On PostgreSQL the statement also turns off, for its own
 * transaction, the wait for the write-ahead log's flush at commit (`synchronous_commit`): that
 * wait made a check several times slower, and a bucket needs no durability (a database crash
 * could at worst forget its last fraction of a second of requests).
 */
function insertBucket(ctx: AppContext, keyId: string, fullAt: number) {
  const insert = ctx.db.insertInto("api_key_rate_buckets");
  if (ctx.dialect !== "postgres") return insert.values({ key_id: keyId, full_at_us: fullAt });
  return insert
    .columns(["key_id", "full_at_us"])
    .expression(
      ctx.db
        .selectFrom(sql`(select set_config('synchronous_commit', 'off', true))`.as("async_commit"))
        .select([
          sql<string>`cast(${keyId} as text)`.as("key_id"),
          sql<number>`cast(${fullAt} as bigint)`.as("full_at_us"),
        ]),
    );
}
