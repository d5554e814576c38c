import { type Kysely, sql } from "kysely";

/**
 * Carrier routes (docs/routes.md): the route that carried each message; which OTP delivery is
 * the same SMS sent again on another route; and receipts matched per SMSC account. SMPP parts
 * were stored under the carrier `smpp`; they are now stored as `smpp:<smsc>`, and `SMPP_URL`
 * alone is the route (and SMSC account) `default`, so the parts still waiting for a receipt move
 * there and their receipts still match.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").addColumn("route", "text").execute();
  await db.schema.alterTable("otp_deliveries").addColumn("rerouted_from", "text").execute();
  await sql`update carrier_messages set carrier = 'smpp:default' where carrier = 'smpp' and status = 'submitted'`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await sql`update carrier_messages set carrier = 'smpp' where carrier like 'smpp:%'`.execute(db);
  await db.schema.alterTable("otp_deliveries").dropColumn("rerouted_from").execute();
  await db.schema.alterTable("messages").dropColumn("route").execute();
}
