import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("senders")
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("sender", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("senders_pk", ["account_id", "sender"])
    .execute();

  await db.schema
    .createTable("templates")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("template_id", "text", (c) => c.notNull())
    .addColumn("entity_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("category", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("placeholders", "text", (c) => c.notNull())
    .addColumn("senders", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("templates_account_template_uq", ["account_id", "template_id"])
    .execute();

  await db.schema
    .createTable("messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("sender", "text")
    .addColumn("template_id", "text")
    .addColumn("entity_id", "text")
    .addColumn("reference", "text")
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("encoding", "text", (c) => c.notNull())
    .addColumn("segments", "integer", (c) => c.notNull())
    .addColumn("cost", "bigint", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("error_code", "text")
    .addColumn("error_message", "text")
    .addColumn("carrier", "text")
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "text")
    .addColumn("lease_until", "text")
    .addColumn("lease_owner", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("submitted_at", "text")
    .addColumn("delivered_at", "text")
    .addColumn("undelivered_at", "text")
    .addColumn("failed_at", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // The delivery queue: queued messages whose next attempt is due.
  await db.schema
    .createIndex("messages_queue_idx")
    .on("messages")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("messages_account_idx")
    .on("messages")
    .columns(["account_id", "environment", "created_at"])
    .execute();

  // What a carrier accepted, part by part: receipts are matched here by the carrier's message id.
  await db.schema
    .createTable("carrier_messages")
    .addColumn("carrier", "text", (c) => c.notNull())
    .addColumn("carrier_message_id", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("part", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("error_code", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("carrier_messages_pk", ["carrier", "carrier_message_id"])
    .execute();
  await db.schema
    .createIndex("carrier_messages_message_idx")
    .on("carrier_messages")
    .column("message_id")
    .execute();

  await db.schema
    .createTable("sandbox_messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("message_id", "text", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("sandbox_messages_account_idx")
    .on("sandbox_messages")
    .columns(["account_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("sandbox_messages_recipient_idx")
    .on("sandbox_messages")
    .columns(["account_id", "recipient", "created_at"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["sandbox_messages", "carrier_messages", "messages", "templates", "senders"]) {
    await db.schema.dropTable(table).execute();
  }
}
