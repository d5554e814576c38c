import { type CompiledQuery, sql, type Transaction } from "kysely";
import { executeCompiled, insertRows, prepareQuery } from "../db/prepared.js";
import type { Database, DbOrTrx, Dialect, Environment, EventsTable, EventType } from "../db/schema.js";
import { type Clock, isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { writerTransactionId } from "./event-order.js";

export { EVENT_TYPES, type EventType } from "../db/schema.js";

/** An event as the API shows it and as webhooks deliver it (docs/events.md). */
export interface EventView {
  id: string;
  type: EventType;
  created_at: string;
  environment: Environment;
  data: Record<string, unknown>;
}

export interface NewEvent {
  /** Its id, when the change that causes it chose one; else a new `evt_…`. */
  id?: string;
  accountId: string;
  environment: Environment;
  type: EventType;
  /** The message or OTP object as the API shows it (never an OTP's code). */
  data: object;
}

/** What writing an event needs from the context (an `AppContext` will do). */
export interface EventWriter {
  clock: Clock;
}

/**
 * Writes an event in the caller's transaction: it commits with the change it reports, or not
 * at all. `seq` counts up within the transaction (PostgreSQL) or the account's environment
 * (SQLite, txid 0), read through the feed index in the same statement.
 */
export async function recordEvent(
  trx: Transaction<Database>,
  writer: EventWriter,
  event: NewEvent,
): Promise<EventView> {
  const { view, insert } = eventInsert(trx, writer, event);
  await executeCompiled(trx, insert);
  return view;
}

/**
 * Writes several events in the caller's transaction, in order, in multi-row inserts: as
 * `recordEvent` would one by one.
 */
export async function recordEvents(
  trx: Transaction<Database>,
  writer: EventWriter & { dialect: Dialect },
  events: readonly NewEvent[],
): Promise<void> {
  if (events.length === 1) {
    await recordEvent(trx, writer, events[0] as NewEvent);
    return;
  }
  const createdAt = isoNow(writer.clock);
  // Where each account and environment's feed stands, read once: the rows then carry their
  // `seq` and relay mark as plain values (subqueries in a multi-row insert cost more than the
  // inserts themselves). No one else writes under the same order key meanwhile: on PostgreSQL it
  // is this transaction's id, and SQLite has one writer.
  const feeds = new Map<string, { txid: number; lastSeq: number; relayedAt: string | null }>();
  const rows = [];
  for (const event of events) {
    const scope = `${event.accountId} ${event.environment}`;
    let feed = feeds.get(scope);
    if (!feed) {
      const [position] = (await feedPosition.execute(trx, event)).rows;
      if (!position) throw new Error("no row from the feed position's select");
      feed = {
        txid: Number(position.txid),
        lastSeq: Number(position.last_seq),
        relayedAt: position.subscribed ? null : createdAt,
      };
      feeds.set(scope, feed);
    }
    feed.lastSeq += 1;
    rows.push({
      id: event.id ?? newId("evt"),
      account_id: event.accountId,
      environment: event.environment,
      type: event.type,
      data: JSON.stringify(event.data),
      created_at: createdAt,
      txid: feed.txid,
      seq: feed.lastSeq,
      fanned_out_at: feed.relayedAt,
    });
  }
  await insertRows(trx, "events", rows);
}

/** Where an account and environment's feed stands for this transaction: its order key, `lastSeq`, `endpointEnabled`. */
const feedPosition = prepareQuery<
  Pick<NewEvent, "accountId" | "environment">,
  { txid: number | string; last_seq: number | string; subscribed: number | boolean }
>((db, param, dialect) => {
  const scope = { accountId: param("accountId"), environment: param("environment") };
  return db.selectNoFrom([
    writerTransactionId(dialect).as("txid"),
    lastSeq(scope, dialect).as("last_seq"),
    endpointEnabled(scope).as("subscribed"),
  ]);
});

interface EventRow {
  id: string;
  accountId: string;
  environment: Environment;
  type: EventType;
  data: string;
  createdAt: string;
}

/** The account and environment of a feed: values, or SQL (`sql.raw`) that gives them. */
type FeedScope = { accountId: unknown; environment: unknown };

/** The last `seq` of the feed in this transaction's order key (read through the feed index). */
function lastSeq(scope: FeedScope, dialect: Dialect) {
  return sql<number>`(select coalesce(max(seq), 0) from events
    where account_id = ${scope.accountId} and environment = ${scope.environment}
      and txid = ${writerTransactionId(dialect)})`;
}

/**
 * Whether the account and environment has an enabled webhook endpoint. An event with none has
 * nowhere to go: it is written relayed already, so the relay neither reads nor marks it (most
 * accounts have no endpoint). An endpoint enabled before the event's transaction commits may
 * miss it, as it would miss an event the relay fanned out a moment before.
 */
function endpointEnabled(scope: FeedScope) {
  return sql<boolean>`exists (select 1 from webhook_endpoints
    where account_id = ${scope.accountId} and environment = ${scope.environment} and status = 'enabled')`;
}

const insertEvent = prepareQuery<EventRow, never>((db, param, dialect) => {
  const scope = { accountId: param("accountId"), environment: param("environment") };
  return db.insertInto("events").values({
    id: param("id"),
    account_id: param("accountId"),
    environment: param("environment"),
    type: param("type"),
    data: param("data"),
    created_at: param("createdAt"),
    txid: writerTransactionId(dialect),
    seq: sql<number>`${lastSeq(scope, dialect)} + 1`,
    fanned_out_at: sql<
      string | null
    >`case when ${endpointEnabled(scope)} then null else ${param("createdAt")} end`,
  });
});

/** The event `recordEvent` writes, and its insert, unexecuted (for a one-flight transaction). */
export function eventInsert(
  db: DbOrTrx,
  writer: EventWriter,
  event: NewEvent,
): { view: EventView; insert: CompiledQuery<never> } {
  const view: EventView = {
    id: event.id ?? newId("evt"),
    type: event.type,
    created_at: isoNow(writer.clock),
    environment: event.environment,
    data: event.data as Record<string, unknown>,
  };
  const insert = insertEvent.compile(db, {
    id: view.id,
    accountId: event.accountId,
    environment: event.environment,
    type: event.type,
    data: JSON.stringify(event.data),
    createdAt: view.created_at,
  });
  return { view, insert };
}

/**
 * For a one-flight statement (PostgreSQL, src/db/postgres/one-flight.ts): an insert, as
 * `insertEvent` makes one, of an event for each row of `source` (a common table expression
 * before it) that `where` keeps. Every other field is SQL: a placeholder of the statement (`$9`),
 * a literal or an expression over the columns of `source`.
 */
export function eventInsertFromRows(
  db: DbOrTrx,
  rows: {
    source: string;
    where: string;
    id: string;
    accountId: string;
    environment: string;
    type: string;
    data: string;
    createdAt: string;
  },
): string {
  const scope = { accountId: sql.raw(rows.accountId), environment: sql.raw(rows.environment) };
  const createdAt = sql.raw(rows.createdAt);
  return sql`insert into events (id, account_id, environment, type, data, created_at, txid, seq, fanned_out_at)
    select ${sql.raw(rows.id)}, ${scope.accountId}, ${scope.environment}, ${sql.raw(rows.type)}, ${sql.raw(rows.data)},
      ${createdAt}, ${writerTransactionId("postgres")}, ${lastSeq(scope, "postgres")} + 1,
      case when ${endpointEnabled(scope)} then null else ${createdAt} end
    from ${sql.raw(rows.source)} where ${sql.raw(rows.where)}`.compile(db).sql;
}

export function toEventView(
  row: Pick<EventsTable, "id" | "type" | "created_at" | "environment" | "data">,
): EventView {
  return {
    id: row.id,
    type: row.type,
    created_at: row.created_at,
    environment: row.environment,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}
