import { type RawBuilder, sql } from "kysely";
import type { Db, Dialect } from "../db/schema.js";

/*
 * The events feed (GET /v2/events) pages by (txid, seq) and must never let a reader's cursor
 * pass an event that becomes visible later. On PostgreSQL neither a sequence nor a timestamp is
 * commit order: a transaction that took its number first may commit last. So each event keeps
 * the id of the transaction that wrote it, and a page lists only events below a horizon that
 * every transaction still able to commit lies at or above: whatever commits later sorts after
 * everything already listed.
 *
 * The horizon is the smallest id among the transactions the reading statement's snapshot sees
 * in progress, counting only those that may write here: the ones running in this database when
 * the reader looked just before (pg_stat_activity), and any that took an id since. The
 * snapshot's own xmin would do too, but it waits for every transaction on the server: another
 * database's long job or a DROP DATABASE would hold the feed back for as long as it runs.
 *
 * Why it holds: an event not visible now belongs to a transaction that either has no id yet
 * (its id will be at least the snapshot's xmax), or is in the snapshot's in-progress list. If
 * that id is older than the first look, the transaction already had it then and was running
 * in this database, so the look saw it. Either way its id is at or above the horizon.
 *
 * SQLite has one writer at a time and commits in insert order: txid is 0 and `seq` alone is
 * the order; every visible event is settled.
 */

/** The order key's first part for an event written now: the writing transaction's id on PostgreSQL. */
export function writerTransactionId(dialect: Dialect): RawBuilder<number> {
  // pg_current_xact_id() is the top-level transaction's id even inside a savepoint; it is a
  // 64-bit, epoch-extended xid (xid8), which only casts to bigint through text.
  return dialect === "postgres" ? sql<number>`pg_current_xact_id()::text::bigint` : sql<number>`0`;
}

/** What a feed read learns, in a statement of its own before its query, about writers in progress. */
export interface EventWriters {
  /** The first transaction id not yet completed when it looked (a 64-bit xid). */
  nextXid: number;
  /** The 32-bit ids of the transactions running in this database then. */
  running: number[];
}

/**
 * The first look of a feed read (PostgreSQL; `undefined` on SQLite). It must run as its own
 * statement, before the statement that lists events, so that the listing's snapshot is later.
 */
export async function lookAtEventWriters(db: Db, dialect: Dialect): Promise<EventWriters | undefined> {
  if (dialect !== "postgres") return undefined;
  const result = await sql<{ next_xid: number; running: Array<number | string> }>`
    select
      pg_snapshot_xmax(pg_current_snapshot())::text::bigint as next_xid,
      array(
        select backend_xid::text::bigint from pg_stat_activity
        where datname = current_database() and backend_xid is not null
      ) as running`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error("no row from the event writers' look");
  return { nextXid: Number(row.next_xid), running: row.running.map(Number) };
}

/**
 * A condition on `events.txid` keeping only events no later commit can sort before (see the
 * top of this file), or `undefined` when every visible event qualifies (SQLite). It is
 * evaluated with the listing statement's own snapshot.
 */
export function settledEventsOnly(writers: EventWriters | undefined): RawBuilder<boolean> | undefined {
  if (!writers) return undefined;
  // xid8 → bigint, and its low 32 bits, which is what pg_stat_activity shows.
  const xid = sql`(x::text::bigint)`;
  return sql<boolean>`${sql.ref("events.txid")} < least(
    pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
    (select min(${xid}) from pg_snapshot_xip(pg_current_snapshot()) as x
     where ${xid} >= ${writers.nextXid} or ${xid} % 4294967296 = any(${writers.running}::bigint[]))
  )`;
}
