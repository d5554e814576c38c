import type { Kysely } from "kysely";

/**
 * Whitelisted calls to action (docs/dlt-compliance.md#whitelisted-links-and-numbers): the URL prefixes and callback numbers an account
 * whitelisted on DLT, each in its canonical form (`kind` `url`: `https://dky.in/app/`; `number`:
 * `+9118001234567`). Sends read them by account, which the primary key serves. Accounts of before
 * have none, so their sends are checked as before.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("cta_entries")
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("cta_entries_pk", ["account_id", "kind", "value"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("cta_entries").execute();
}
