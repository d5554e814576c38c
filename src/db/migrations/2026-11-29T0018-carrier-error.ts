import type { Kysely } from "kysely";

/**
 * The carrier's own code for a refusal or a non-delivery (docs/dlt-compliance.md#where-the-raw-code-shows):
 * `submit_sm_resp 0x0000045A`, `receipt err:623 stat:REJECTD`. Kept beside the named `error_code`
 * for support; null on messages of before and on those no carrier refused.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").addColumn("carrier_error", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").dropColumn("carrier_error").execute();
}
