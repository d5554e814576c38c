import type { SelectQueryBuilder } from "kysely";
import type { Dialect } from "../db/schema.js";

/*
 * On PostgreSQL, whoever adds to an endpoint or changes it holds its row until its transaction
 * ends: FOR NO KEY UPDATE to change it (PATCH, rotation), FOR SHARE to queue for it only while it
 * is enabled (replay, test event), FOR KEY SHARE to add deliveries or attempts to it (relay,
 * outcomes). A DELETE waits for them, and they wait for a DELETE and then find the endpoint gone:
 * a 404, or nothing to add, rather than a foreign key violation. SQLite runs one writer at a
 * time and needs none of it.
 */

/** How a transaction holds the rows it reads until it ends (PostgreSQL). */
export type RowLock = "no key update" | "share" | "key share";

/** `query` locking the rows it reads, on PostgreSQL; unchanged on SQLite. */
export function lockingRows<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: Dialect,
  lock: RowLock,
): SelectQueryBuilder<DB, TB, O> {
  if (dialect !== "postgres") return query;
  if (lock === "no key update") return query.forNoKeyUpdate();
  return lock === "share" ? query.forShare() : query.forKeyShare();
}
