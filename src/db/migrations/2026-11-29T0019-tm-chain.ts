import type { Kysely } from "kysely";

/**
 * An account's own PE–TM chain (docs/dlt-compliance.md#pe-tm-chain-hash): the telemarketer ids
 * after its principal entity, a JSON array of strings, which overrides the route's `tm_chain`;
 * null: the route's. Accounts of before use their routes' settings, as they did.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("tm_chain", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("tm_chain").execute();
}
