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
  const windowMs = windowSeconds * 1000;
  const start = Math.floor(now / windowMs) * windowMs;
  const end = start + windowMs;
  const row = await db
    .insertInto("rate_limit_counters")
    .values({
      key,
      window_start: new Date(start).toISOString(),
      count: 1,
      expires_at: new Date(end).toISOString(),
    })
    .onConflict((oc) =>
      oc
        .columns(["key", "window_start"])
        .doUpdateSet((eb) => ({ count: eb(eb.ref("rate_limit_counters.count"), "+", 1) })),
    )
    .returning("count")
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), resetsInSeconds: Math.ceil((end - now) / 1000) };
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
