import { type Kysely, sql } from "kysely";

/**
 * Webhook endpoints (docs/webhooks.md), the per-endpoint delivery of each event (a queue claimed with
 * leases, like messages), and the log of every delivery attempt.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("disabled_reason", "text")
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("previous_secret_sealed", "text")
    .addColumn("previous_secret_expires_at", "text")
    .addColumn("failing_since", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_endpoints_account_idx")
    .on("webhook_endpoints")
    .columns(["account_id", "environment", "created_at"])
    .execute();

  // The id is `{endpoint_id}:{event_id}`: one delivery per event and endpoint, which a replay
  // (INSERT … ON CONFLICT) sets pending again.
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("endpoint_id", "text", (c) =>
      c.notNull().references("webhook_endpoints.id").onDelete("cascade"),
    )
    .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "text")
    .addColumn("lease_owner", "text")
    .addColumn("lease_until", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // The dispatcher's queue: only pending deliveries stay in it.
  await db.schema
    .createIndex("webhook_deliveries_due_idx")
    .on("webhook_deliveries")
    .column("next_attempt_at")
    .where(sql.ref("state"), "=", "pending")
    .execute();
  // Deleting an event (retention) or an endpoint cascades here; disabling an endpoint ends its deliveries.
  await db.schema
    .createIndex("webhook_deliveries_event_idx")
    .on("webhook_deliveries")
    .column("event_id")
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_endpoint_idx")
    .on("webhook_deliveries")
    .column("endpoint_id")
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_created_idx")
    .on("webhook_deliveries")
    .column("created_at")
    .execute();

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("endpoint_id", "text", (c) =>
      c.notNull().references("webhook_endpoints.id").onDelete("cascade"),
    )
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_attempts_endpoint_idx")
    .on("webhook_attempts")
    .columns(["endpoint_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("webhook_attempts_created_idx")
    .on("webhook_attempts")
    .column("created_at")
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["webhook_attempts", "webhook_deliveries", "webhook_endpoints"]) {
    await db.schema.dropTable(table).execute();
  }
}
