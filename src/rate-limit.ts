import { type CompiledQuery, type RawBuilder, sql } from "kysely";
import { executeCompiled, prepareQuery } from "./db/prepared.js";
import type { DbOrTrx } from "./db/schema.js";
import { type Clock, isoTime } from "./lib/clock.js";

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
 * Counts a hit of `key` if the hits of the last `spanSeconds`, kept in buckets of `bucketSeconds`,
 * are under `limit`; answers whether it was counted. The oldest bucket counts whole, so the span
 * looked at is never shorter than asked: a limit is never looser.
 *
 * One guarded upsert of the current bucket, with the earlier buckets summed in the same
 * statement: no lock. Concurrent hits queue on the current bucket's row (PostgreSQL re-checks
 * the guard on the row as the hit before left it), so a limit holds exactly however many
 * instances count at once; only hits still uncommitted in the previous bucket as a new one
 * starts can be missed, at most one bucket's turn's worth. A hit inside a transaction that rolls
 * back is not counted.
 */
export async function hitUnderLimit(
  db: DbOrTrx,
  clock: Clock,
  key: string,
  limit: number,
  spanSeconds: number,
  bucketSeconds: number,
): Promise<boolean> {
  const counted = await executeCompiled(
    db,
    hitUnderLimitQuery(db, clock, key, limit, spanSeconds, bucketSeconds),
  );
  return counted.rows.length > 0;
}

/** The statement of `hitUnderLimit`: it returns the bucket's new count, or no row when over the limit. */
export function hitUnderLimitQuery(
  db: DbOrTrx,
  clock: Clock,
  key: string,
  limit: number,
  spanSeconds: number,
  bucketSeconds: number,
): CompiledQuery<{ count: number }> {
  return bucketHit.compile(db, { key, limit, ...bucketWindow(clock, spanSeconds, bucketSeconds) });
}

/** The buckets a hit now counts in: the current one, the first that counts, and when it expires. */
interface BucketWindow {
  /** The current bucket's start. */
  windowStart: string;
  /** The first bucket that counts. */
  spanStart: string;
  expiresAt: string;
}

function bucketWindow(clock: Clock, spanSeconds: number, bucketSeconds: number): BucketWindow {
  const start = bucketStart(clock.now().getTime(), bucketSeconds);
  return {
    windowStart: isoTime(start),
    spanStart: isoTime(start - spanSeconds * 1000),
    expiresAt: isoTime(start + (bucketSeconds + spanSeconds) * 1000),
  };
}

interface BucketHit extends BucketWindow {
  key: string;
  limit: number;
}

/** The hits of the key's buckets before the current one, within the span. */
function earlierHitsOf(param: <K extends keyof BucketHit>(name: K) => BucketHit[K]) {
  return sql<number>`(select coalesce(sum(earlier.count), 0) from rate_limit_counters as earlier
    where earlier.key = ${param("key")}
      and earlier.window_start >= ${param("spanStart")}
      and earlier.window_start < ${param("windowStart")})`;
}

const bucketHit = prepareQuery<BucketHit, { count: number }>((db, param) => {
  const earlierHits = earlierHitsOf(param);
  return insertCounterIf(
    db,
    { key: param("key"), windowStart: param("windowStart"), count: 1, expiresAt: param("expiresAt") },
    sql<boolean>`${earlierHits} < ${param("limit")}`,
  )
    .onConflict((oc) =>
      oc
        .columns(["key", "window_start"])
        .doUpdateSet((eb) => ({ count: eb(eb.ref("rate_limit_counters.count"), "+", 1) }))
        .where(sql<boolean>`rate_limit_counters.count + ${earlierHits} < ${param("limit")}`),
    )
    .returning("count");
});

/**
 * Counts `hits` hits of `key` at once, only if all of them fit under `limit` over the span (as
 * `hitUnderLimit` counts one); answers whether they were counted. Nothing is counted otherwise.
 */
export async function hitsUnderLimit(
  db: DbOrTrx,
  clock: Clock,
  key: string,
  hits: number,
  limit: number,
  spanSeconds: number,
  bucketSeconds: number,
): Promise<boolean> {
  const counted = await bucketHits.execute(db, {
    key,
    hits,
    limit,
    ...bucketWindow(clock, spanSeconds, bucketSeconds),
  });
  return counted.rows.length > 0;
}

const bucketHits = prepareQuery<BucketHit & { hits: number }, { count: number }>((db, param) => {
  const earlierHits = earlierHitsOf(param);
  const hits = sql<number>`cast(${param("hits")} as integer)`;
  const limit = sql<number>`cast(${param("limit")} as integer)`;
  return insertCounterIf(
    db,
    {
      key: param("key"),
      windowStart: param("windowStart"),
      count: param("hits"),
      expiresAt: param("expiresAt"),
    },
    sql<boolean>`${earlierHits} + ${hits} <= ${limit}`,
  )
    .onConflict((oc) =>
      oc
        .columns(["key", "window_start"])
        .doUpdateSet((eb) => ({
          count: eb(eb.ref("rate_limit_counters.count"), "+", eb.ref("excluded.count")),
        }))
        .where(sql<boolean>`rate_limit_counters.count + ${earlierHits} + ${hits} <= ${limit}`),
    )
    .returning("count");
});

/**
 * Takes back `hits` hits this transaction counted on `key` in the current bucket, for work it gave
 * up after all. `clock` must read as it did when they were counted (the same bucket).
 */
export async function takeBackHits(
  db: DbOrTrx,
  clock: Clock,
  key: string,
  hits: number,
  bucketSeconds: number,
): Promise<void> {
  const { windowStart } = bucketWindow(clock, 0, bucketSeconds);
  await takeBack.execute(db, { key, hits, windowStart });
}

const takeBack = prepareQuery<{ key: string; hits: number; windowStart: string }, never>((db, param) =>
  db
    .updateTable("rate_limit_counters")
    .set({ count: sql`count - ${param("hits")}` })
    .where("key", "=", param("key"))
    .where("window_start", "=", param("windowStart")),
);

/**
 * Inserts a counter's row only if `guard` holds (an `insert … select … where`), for a guarded
 * upsert to finish with its conflict clause. The values are cast: PostgreSQL cannot infer the
 * type of a bare parameter in a select.
 */
export function insertCounterIf(
  db: DbOrTrx,
  row: { key: string; windowStart: string; count: number; expiresAt: string },
  guard: RawBuilder<boolean>,
) {
  return db
    .insertInto("rate_limit_counters")
    .columns(["key", "window_start", "count", "expires_at"])
    .expression(
      db
        .selectNoFrom([
          sql<string>`cast(${row.key} as text)`.as("key"),
          sql<string>`cast(${row.windowStart} as text)`.as("window_start"),
          sql<number>`cast(${row.count} as integer)`.as("count"),
          sql<string>`cast(${row.expiresAt} as text)`.as("expires_at"),
        ])
        .where(guard),
    );
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
