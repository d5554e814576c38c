import type { Kysely } from "kysely";

/**
 * Voice caller ID (docs/otp.md#voice-caller-id): an account may be marked as a bank, NBFC,
 * broker or insurer (`bfsi`, 0 or 1), which may call only from a 1600-series number, and each
 * environment's OTP settings may name the number voice OTPs call from (`voice_caller_id`, E.164;
 * null: the operator's VOICE_FROM). Accounts of before are not BFSI; settings of before call
 * from VOICE_FROM, as they did.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("accounts")
    .addColumn("bfsi", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("otp_settings").addColumn("voice_caller_id", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("otp_settings").dropColumn("voice_caller_id").execute();
  await db.schema.alterTable("accounts").dropColumn("bfsi").execute();
}
