import type { Kysely } from "kysely";

/**
 * The OTP hourly limits count sends in per-minute rows of `rate_limit_counters` (0004) instead
 * of a row per send: a check sums at most 61 rows rather than every send of the past hour.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("otp_sends").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("otp_sends")
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("otp_sends_recipient_idx")
    .on("otp_sends")
    .columns(["account_id", "environment", "recipient", "created_at"])
    .execute();
  await db.schema
    .createIndex("otp_sends_account_idx")
    .on("otp_sends")
    .columns(["account_id", "environment", "created_at"])
    .execute();
}
