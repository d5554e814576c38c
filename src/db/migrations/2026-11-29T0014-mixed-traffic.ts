import { type Kysely, sql } from "kysely";

/**
 * Mixed traffic (docs/sms.md#mixed-traffic): every message gets its lane in the queue
 * (`priority`: 0 OTP, 1 transactional, 2 bulk, 3 bulk held to the promotional window), the
 * category of what it carries (for routes that take only some traffic), when it stops being
 * worth sending (`expires_at`), when it was asked to go out (`send_at`) and when it was
 * cancelled. Messages of before are transactional, of no category and never expire.
 *
 * The queue's index serves the claim, which takes the highest lane first and the oldest within
 * it. Scheduled messages and those that can still expire have indexes of their own, holding only
 * them, so that releasing the due ones and sweeping the expired ones never scan the table.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("messages")
    .addColumn("priority", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable("messages").addColumn("category", "text").execute();
  await db.schema.alterTable("messages").addColumn("expires_at", "text").execute();
  await db.schema.alterTable("messages").addColumn("send_at", "text").execute();
  await db.schema.alterTable("messages").addColumn("cancelled_at", "text").execute();
  await db.schema.dropIndex("messages_queue_idx").execute();
  await db.schema
    .createIndex("messages_queue_idx")
    .on("messages")
    .columns(["priority", "next_attempt_at"])
    .where(sql.ref("status"), "=", "queued")
    .execute();
  await db.schema
    .createIndex("messages_scheduled_idx")
    .on("messages")
    .column("next_attempt_at")
    .where(sql.ref("status"), "=", "scheduled")
    .execute();
  await db.schema
    .createIndex("messages_expiry_idx")
    .on("messages")
    .column("expires_at")
    .where(sql<boolean>`status in ('queued', 'scheduled') and expires_at is not null`)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("messages_expiry_idx").execute();
  await db.schema.dropIndex("messages_scheduled_idx").execute();
  await db.schema.dropIndex("messages_queue_idx").execute();
  await db.schema
    .createIndex("messages_queue_idx")
    .on("messages")
    .column("next_attempt_at")
    .where(sql.ref("status"), "=", "queued")
    .execute();
  for (const column of ["cancelled_at", "send_at", "expires_at", "category", "priority"]) {
    await db.schema.alterTable("messages").dropColumn(column).execute();
  }
}
