import type { Db } from "../db/schema.js";

export const WEBHOOK_RECORDS_KEPT_DAYS = 30;

/** Deletes attempt logs and ended deliveries older than 30 days; returns how many rows went. */
export async function purgeOldWebhookRecords(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - WEBHOOK_RECORDS_KEPT_DAYS * 24 * 3600 * 1000).toISOString();
  const attempts = await db
    .deleteFrom("webhook_attempts")
    .where("created_at", "<", cutoff)
    .executeTakeFirst();
  const deliveries = await db
    .deleteFrom("webhook_deliveries")
    .where("created_at", "<", cutoff)
    .where("state", "<>", "pending")
    .executeTakeFirst();
  return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows);
}
