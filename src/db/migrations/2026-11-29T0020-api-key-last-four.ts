import type { Kysely } from "kysely";

/**
 * The last four characters of a key's secret, stored beside its prefix so that keys can be told
 * apart in the console and the CLI (`dk_live_Ab3x…9fQz`). Four of 43 random characters leave the
 * secret's strength far beyond guessing; keys of before have none (null) and show their prefix alone.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("last_four", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("last_four").execute();
}
