import type { Kysely } from "kysely";

/**
 * A number's OTPs are indexed by creation time and then id, the order in which a verification
 * that finds none pending looks for the latest. With the time alone, SQLite read the number's
 * OTPs and sorted them on every such verification.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("otps_recipient_idx").execute();
  await db.schema
    .createIndex("otps_recipient_idx")
    .on("otps")
    .columns(["account_id", "environment", "recipient", "created_at", "id"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("otps_recipient_idx").execute();
  await db.schema
    .createIndex("otps_recipient_idx")
    .on("otps")
    .columns(["account_id", "environment", "recipient", "created_at"])
    .execute();
}
