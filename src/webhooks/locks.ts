import { type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { Dialect } from "../db/schema.js";

/*
 * The order in which webhook transactions take row locks on PostgreSQL, so that two of them wait
 * for each other instead of deadlocking (SQLite runs one writer at a time and needs none of it):
 *
 *   1. events: only the relay locks them, FOR NO KEY UPDATE SKIP LOCKED: it never waits, and the
 *      KEY SHARE lock that a new delivery's foreign key takes on its event never waits for it;
 *   2. endpoints, by id. FOR NO KEY UPDATE to change one (PATCH, rotation, an outcome that starts
 *      or ends a run of failures or disables it), FOR SHARE to queue for it only while it is
 *      enabled (replay, test event: a disable waits for them or they for it), FOR KEY SHARE to add
 *      deliveries or attempts to it (relay, outcomes), which waits for nothing but a DELETE. A
 *      DELETE locks it outright and waits for all of them; they wait for it and then find the
 *      endpoint gone (a 404, or nothing to add), and its cascade meets no one in its deliveries;
 *   3. deliveries, by id compared byte by byte (`lockOrder`, `compareLockOrder`), by whoever
 *      changes several: replay, the relay's inserts, outcomes, giving up a disabled endpoint's.
 *      An outcome writer that disables an endpoint gives up its deliveries after moving its own
 *      batch: those are leased to it alone, so no one waiting on them holds one it then needs.
 *
 * Claims never wait (SKIP LOCKED), and `endUnsent` changes one row and holds nothing else.
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

/**
 * Ids in lock order: byte by byte, as JavaScript compares ASCII strings. The database's own
 * collation may sort mixed case differently (`en_US` puts `a` before `B`), which would let a
 * statement that sorts in SQL and one that sorts here lock two rows in opposite orders.
 */
export function lockOrder(dialect: Dialect): RawBuilder<string> {
  return dialect === "postgres" ? sql<string>`id collate "C"` : sql<string>`id`;
}

export function compareLockOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
