import type { Kysely } from "kysely";

/**
 * Low-balance alerts (docs/money.md#low-balance-alerts): a balance's threshold, in 1/10,000 INR
 * like the balance (null: no alerts), and whether the alert of the current dip below it is spent
 * (null: armed; else the id of the `balance.low` event sent for the dip, or a mark that the
 * threshold was set with the balance already below it). Balances of before have no threshold.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("balances").addColumn("low_balance_threshold", "bigint").execute();
  await db.schema.alterTable("balances").addColumn("low_balance_alerted", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("balances").dropColumn("low_balance_alerted").execute();
  await db.schema.alterTable("balances").dropColumn("low_balance_threshold").execute();
}
