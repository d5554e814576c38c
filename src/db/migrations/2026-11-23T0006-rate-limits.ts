import type { Kysely } from "kysely";

/**
 * Per-key request limits (docs/rate-limits.md): an optional per-key rate on `api_keys`, and each key's
 * token bucket, kept as the one instant at which it is full again (in integer microseconds, so the
 * arithmetic is exact in SQL on both dialects). And the hourly cap on distinct SMS recipients:
 * which numbers an account has sent SMS to in each clock hour (the count itself is a row of
 * `rate_limit_counters`).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("rate_limit", "integer").execute();

  await db.schema
    .createTable("api_key_rate_buckets")
    .addColumn("key_id", "text", (c) => c.primaryKey().references("api_keys.id").onDelete("cascade"))
    .addColumn("full_at_us", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("sms_recipient_hours")
    .addColumn("window_start", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    // The window first, so purging past hours is a range of the primary key.
    .addPrimaryKeyConstraint("sms_recipient_hours_pk", [
      "window_start",
      "account_id",
      "environment",
      "recipient",
    ])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sms_recipient_hours").execute();
  await db.schema.dropTable("api_key_rate_buckets").execute();
  await db.schema.alterTable("api_keys").dropColumn("rate_limit").execute();
}
