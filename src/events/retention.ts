import type { Db } from "../db/schema.js";

/** Events are kept 30 days (docs/events.md); the feed and replays reach no further back. */
export const EVENT_RETENTION_DAYS = 30;

/** Deletes the events older than the retention period; returns how many. */
export async function purgeOldEvents(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  const deleted = await db.deleteFrom("events").where("created_at", "<", cutoff).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
