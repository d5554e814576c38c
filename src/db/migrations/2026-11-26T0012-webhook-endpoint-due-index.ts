import type { Kysely } from "kysely";

/**
 * An endpoint's deliveries are indexed by endpoint and then next attempt, so "has this endpoint
 * a due delivery" is one index probe. Only pending deliveries have a next attempt, so the range
 * up to now holds only them. The endpoint alone served cascades and still does, as the prefix.
 * The dispatcher asks that of each endpoint besides the busy ones; by the due time alone it read
 * the busy endpoints' whole backlog to find none.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_endpoint_idx").execute();
  await db.schema
    .createIndex("webhook_deliveries_endpoint_idx")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "next_attempt_at"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_endpoint_idx").execute();
  await db.schema
    .createIndex("webhook_deliveries_endpoint_idx")
    .on("webhook_deliveries")
    .column("endpoint_id")
    .execute();
}
