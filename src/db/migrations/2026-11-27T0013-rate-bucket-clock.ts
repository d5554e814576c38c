import type { Kysely } from "kysely";

/**
 * Each key's token bucket also keeps the latest time an instance brought to it (µs since the
 * epoch), so that a request whose time was read before it waited for a connection is judged at
 * that later time, not refused for the tokens of requests timed after it. 0 for the buckets of
 * before: the next request's own time counts.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("api_key_rate_buckets")
    .addColumn("seen_at_us", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("api_key_rate_buckets").dropColumn("seen_at_us").execute();
}
