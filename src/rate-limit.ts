import type { Clock } from "./clock.js";
import type { DbOrTrx } from "./db/schema.js";

export interface WindowCount {
  /** Hits in the current window, this one included. */
  count: number;
  /** Seconds until the window ends and the count starts again. */
  resetsInSeconds: number;
}

/**
 * Counts a hit on `key` in the current fixed window of `windowSeconds`, in the database, so every
 * instance shares the count. One upsert: concurrent hits never lose an increment.
 */
export async function countHit(
  db: DbOrTrx,
  clock: Clock,
  key: string,
  windowSeconds: number,
): Promise<WindowCount> {
  const now = clock.now().getTime();
  const start = bucketStart(now, windowSeconds);
  const end = start + windowSeconds * 1000;
  const count = await addToBucket(db, key, start, end);
  return { count, resetsInSeconds: Math.ceil((end - now) / 1000) };
}

/**
 * Hits of `key` in the last `spanSeconds`, kept in buckets of `bucketSeconds`. The oldest bucket
 * counts whole, so the span looked at is never shorter than asked: a limit is never looser.
 */
export async function recentHits(
  db: DbOrTrx,
  clock: Clock,
  key: string,
  spanSeconds: number,
  bucketSeconds: number,
): Promise<number> {
  const since = bucketStart(clock.now().getTime(), bucketSeconds) - spanSeconds * 1000;
  const row = await db
    .selectFrom("rate_limit_counters")
    .select((eb) => eb.fn.sum<number | string | null>("count").as("hits"))
    .where("key", "=", key)
    .where("window_start", ">=", new Date(since).toISOString())
    .executeTakeFirst();
  return Number(row?.hits ?? 0);
}

/** Records a hit of `key` for `recentHits` over spans up to `spanSeconds`. */
export async function recordHit(
  db: DbOrTrx,
  clock: Clock,
  key: string,
  spanSeconds: number,
  bucketSeconds: number,
): Promise<void> {
  const start = bucketStart(clock.now().getTime(), bucketSeconds);
  await addToBucket(db, key, start, start + (bucketSeconds + spanSeconds) * 1000);
}

function bucketStart(timeMs: number, bucketSeconds: number): number {
  const bucketMs = bucketSeconds * 1000;
  return Math.floor(timeMs / bucketMs) * bucketMs;
}

/** One upsert: concurrent hits never lose an increment. */
async function addToBucket(db: DbOrTrx, key: string, startMs: number, expiresMs: number): Promise<number> {
  const row = await db
    .insertInto("rate_limit_counters")
    .values({
      key,
      window_start: new Date(startMs).toISOString(),
      count: 1,
      expires_at: new Date(expiresMs).toISOString(),
    })
    .onConflict((oc) =>
      oc
        .columns(["key", "window_start"])
        .doUpdateSet((eb) => ({ count: eb(eb.ref("rate_limit_counters.count"), "+", 1) })),
    )
    .returning("count")
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Forgets every window of `key`. */
export async function resetCount(db: DbOrTrx, key: string): Promise<void> {
  await db.deleteFrom("rate_limit_counters").where("key", "=", key).execute();
}

/** Deletes the counters of windows that have ended. */
export async function purgeEndedWindows(db: DbOrTrx, now: string): Promise<number> {
  const result = await db.deleteFrom("rate_limit_counters").where("expires_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
