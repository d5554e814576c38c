import { type Kysely, sql } from "kysely";

/**
 * Key scopes and IP allowlists (docs/api-reference.md#scopes-and-ip-allowlists): what a key may call
 * (`full`, `send` or `read`; every key made before is `full`), and from which addresses, as a
 * JSON array of canonical CIDRs (`["203.0.113.0/24", "2001:db8::/32"]`), null for any address.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("api_keys")
    .addColumn("scope", "text", (c) =>
      c.notNull().defaultTo("full").check(sql`scope in ('full', 'send', 'read')`),
    )
    .execute();
  await db.schema.alterTable("api_keys").addColumn("allowed_ips", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("allowed_ips").execute();
  await db.schema.alterTable("api_keys").dropColumn("scope").execute();
}
