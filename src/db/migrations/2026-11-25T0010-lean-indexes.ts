import { type Kysely, sql } from "kysely";

/**
 * Two indexes hold only the rows their readers look for, so fewer index entries are written
 * per message and per OTP:
 * - the delivery queue's index holds queued messages only. It held every message by status, so
 *   each acceptance moved the message's entry to its new status, and the index grew with every
 *   message ever sent; now an acceptance deletes the entry.
 * - the OTP fallback index holds only OTPs with a fallback due. Most OTPs have none, and each
 *   still wrote an entry for its null.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("messages_queue_idx").execute();
  await db.schema
    .createIndex("messages_queue_idx")
    .on("messages")
    .column("next_attempt_at")
    .where(sql.ref("status"), "=", "queued")
    .execute();
  await db.schema.dropIndex("otps_fallback_idx").execute();
  await db.schema
    .createIndex("otps_fallback_idx")
    .on("otps")
    .column("fallback_due_at")
    .where(sql.ref("fallback_due_at"), "is not", null)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("otps_fallback_idx").execute();
  await db.schema.createIndex("otps_fallback_idx").on("otps").column("fallback_due_at").execute();
  await db.schema.dropIndex("messages_queue_idx").execute();
  await db.schema
    .createIndex("messages_queue_idx")
    .on("messages")
    .columns(["status", "next_attempt_at"])
    .execute();
}
