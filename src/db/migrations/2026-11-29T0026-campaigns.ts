import { type Kysely, sql } from "kysely";

/**
 * Campaigns (docs/campaigns.md). A campaign's recipients are checked and priced when it is
 * created and wait in `campaign_recipients`, each already rendered, until the worker feeds them
 * into the queue as messages (src/campaigns/feed.ts); a fed recipient's row is deleted in the
 * transaction that writes its message. `messages.campaign_id` ties each message to its campaign;
 * the partial index holds only campaign messages, so ordinary sends pay nothing for it. A
 * campaign's refunds are read through its messages' SMS refunds, which the last index finds (only
 * refunds are in it, so a charge pays nothing for it either).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("campaigns")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("template_id", "text", (c) => c.notNull())
    .addColumn("sender", "text", (c) => c.notNull())
    .addColumn("entity_id", "text", (c) => c.notNull())
    .addColumn("category", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("send_at", "text")
    .addColumn("messages_per_minute", "integer")
    .addColumn("recipients", "integer", (c) => c.notNull())
    .addColumn("accepted", "integer", (c) => c.notNull())
    .addColumn("rejected", "integer", (c) => c.notNull())
    .addColumn("cost", "bigint", (c) => c.notNull())
    .addColumn("refunded", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("next_seq", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("paced_until", "text")
    .addColumn("capped_until", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("completed_at", "text")
    .addColumn("cancelled_at", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("campaigns_account_created_idx")
    .on("campaigns")
    .columns(["account_id", "environment", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("campaigns_active_idx")
    .on("campaigns")
    .columns(["status", "created_at"])
    .where(sql.ref("status"), "in", ["accepting", "scheduled", "sending"])
    .execute();

  await db.schema
    .createTable("campaign_recipients")
    .addColumn("campaign_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("reference", "text")
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("encoding", "text", (c) => c.notNull())
    .addColumn("segments", "integer", (c) => c.notNull())
    .addColumn("cost", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("campaign_recipients_pk", ["campaign_id", "seq"])
    .execute();

  await db.schema.alterTable("messages").addColumn("campaign_id", "text").execute();
  await db.schema
    .createIndex("messages_campaign_idx")
    .on("messages")
    .columns(["campaign_id", "status"])
    .where(sql.ref("campaign_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("ledger_entries_sms_refund_idx")
    .on("ledger_entries")
    .column("reference")
    .where(sql.ref("reason"), "=", "sms_refund")
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("ledger_entries_sms_refund_idx").execute();
  await db.schema.dropIndex("messages_campaign_idx").execute();
  await db.schema.alterTable("messages").dropColumn("campaign_id").execute();
  await db.schema.dropTable("campaign_recipients").execute();
  await db.schema.dropTable("campaigns").execute();
}
