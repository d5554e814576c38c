import type { Kysely } from "kysely";

/**
 * Two-factor sign-in (docs/two-factor.md): a member's TOTP secret, sealed with a key derived from
 * the server secret, never stored plain; the pending secret of an enrolment not yet confirmed; the
 * last time step a code was accepted in, so a code works once; recovery codes as SHA-256 hashes,
 * each usable once; the short-lived challenges between the password and the code; and the
 * account's rule that every member must have it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("members").addColumn("two_factor_secret_sealed", "text").execute();
  await db.schema.alterTable("members").addColumn("two_factor_pending_secret_sealed", "text").execute();
  await db.schema.alterTable("members").addColumn("two_factor_enabled_at", "text").execute();
  await db.schema.alterTable("members").addColumn("two_factor_last_time_step", "integer").execute();
  await db.schema
    .alterTable("accounts")
    .addColumn("require_two_factor", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable("two_factor_recovery_codes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("member_id", "text", (c) => c.notNull().references("members.id").onDelete("cascade"))
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema
    .createIndex("two_factor_recovery_codes_member_code")
    .on("two_factor_recovery_codes")
    .columns(["member_id", "code_hash"])
    .unique()
    .execute();

  await db.schema
    .createTable("two_factor_challenges")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("member_id", "text", (c) => c.notNull().references("members.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("two_factor_challenges_expires_at")
    .on("two_factor_challenges")
    .column("expires_at")
    .execute();
  await db.schema
    .createIndex("two_factor_challenges_member")
    .on("two_factor_challenges")
    .column("member_id")
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("two_factor_challenges").execute();
  await db.schema.dropTable("two_factor_recovery_codes").execute();
  await db.schema.alterTable("accounts").dropColumn("require_two_factor").execute();
  await db.schema.alterTable("members").dropColumn("two_factor_last_time_step").execute();
  await db.schema.alterTable("members").dropColumn("two_factor_enabled_at").execute();
  await db.schema.alterTable("members").dropColumn("two_factor_pending_secret_sealed").execute();
  await db.schema.alterTable("members").dropColumn("two_factor_secret_sealed").execute();
}
