import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("otp_settings")
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("expiry_seconds", "integer", (c) => c.notNull())
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("resend_cooldown_seconds", "integer", (c) => c.notNull())
    .addColumn("fallback_after_seconds", "integer", (c) => c.notNull())
    .addColumn("code_length", "integer", (c) => c.notNull())
    .addColumn("sms_template_id", "text")
    .addColumn("sms_sender", "text")
    .addColumn("whatsapp_template", "text")
    .addColumn("whatsapp_language", "text", (c) => c.notNull())
    .addColumn("test_numbers", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("otp_settings_pk", ["account_id", "environment"])
    .execute();

  await db.schema
    .createTable("otps")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("code_sealed", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("sends", "integer", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("fallback_channel", "text")
    .addColumn("fallback_due_at", "text")
    .addColumn("is_test", "integer", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("last_sent_at", "text", (c) => c.notNull())
    .addColumn("approved_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // One pending OTP per account, environment and number, even under concurrent sends.
  await db.schema
    .createIndex("otps_one_pending_uq")
    .on("otps")
    .columns(["account_id", "environment", "recipient"])
    .unique()
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema
    .createIndex("otps_recipient_idx")
    .on("otps")
    .columns(["account_id", "environment", "recipient", "created_at"])
    .execute();
  await db.schema.createIndex("otps_fallback_idx").on("otps").column("fallback_due_at").execute();

  await db.schema
    .createTable("otp_deliveries")
    .addColumn("otp_id", "text", (c) => c.notNull().references("otps.id").onDelete("cascade"))
    .addColumn("message_id", "text", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("is_fallback", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("otp_deliveries_pk", ["otp_id", "message_id"])
    .execute();

  // Every send request that was let through, for the per-number and per-account hourly limits.
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

  // What a carrier needs but the database must not keep in clear (an OTP message's real text),
  // sealed with the server secret until the message leaves the queue.
  await db.schema.alterTable("messages").addColumn("sealed", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").dropColumn("sealed").execute();
  for (const table of ["otp_sends", "otp_deliveries", "otps", "otp_settings"]) {
    await db.schema.dropTable(table).execute();
  }
}
