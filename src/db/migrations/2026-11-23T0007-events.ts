import { type Kysely, sql } from "kysely";

/**
 * The event outbox (docs/events.md): one row per status change of a message or an OTP, written in
 * the transaction of the change. The feed orders events by (txid, seq): the writing
 * transaction's id on PostgreSQL (0 on SQLite, which has one writer) and a counter within it,
 * so a reader can tell which events can no longer be overtaken by a later commit
 * (src/events/event-order.ts). The message list (GET /v2/sms) gets the indexes its filters need, and
 * the OTP expiry sweep one for pending OTPs.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("txid", "bigint", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("fanned_out_at", "text")
    .execute();
  // The feed: an account's events in commit-safe order. Unique, so two writers can never share a key.
  await db.schema
    .createIndex("events_feed_uq")
    .on("events")
    .columns(["account_id", "environment", "txid", "seq"])
    .unique()
    .execute();
  // Retention (30 days) and replays since a time.
  await db.schema.createIndex("events_created_idx").on("events").column("created_at").execute();
  // The webhook relay's backlog: only events not yet fanned out to endpoints stay in it.
  await db.schema
    .createIndex("events_fanout_pending_idx")
    .on("events")
    .column("created_at")
    .where(sql.ref("fanned_out_at"), "is", null)
    .execute();

  // The workers' expiry sweep (every few seconds) reads only pending OTPs, by expiry.
  await db.schema
    .createIndex("otps_pending_expiry_idx")
    .on("otps")
    .column("expires_at")
    .where(sql.ref("status"), "=", "pending")
    .execute();

  // GET /v2/sms pages newest first by (created_at, id): the id breaks ties within a millisecond.
  // The `to` and `reference` filters get indexes that also give that order, so a page reads
  // only its own rows however many messages the account has.
  await db.schema.dropIndex("messages_account_idx").execute();
  await db.schema
    .createIndex("messages_account_created_idx")
    .on("messages")
    .columns(["account_id", "environment", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("messages_recipient_idx")
    .on("messages")
    .columns(["account_id", "environment", "recipient", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("messages_reference_idx")
    .on("messages")
    .columns(["account_id", "environment", "reference", "created_at", "id"])
    .where(sql.ref("reference"), "is not", null)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("otps_pending_expiry_idx").execute();
  await db.schema.dropIndex("messages_reference_idx").execute();
  await db.schema.dropIndex("messages_recipient_idx").execute();
  await db.schema.dropIndex("messages_account_created_idx").execute();
  await db.schema
    .createIndex("messages_account_idx")
    .on("messages")
    .columns(["account_id", "environment", "created_at"])
    .execute();
  await db.schema.dropTable("events").execute();
}
