import { type CompiledQuery, sql, type Transaction } from "kysely";
import { type Clock, isoNow } from "../clock.js";
import { writerTransactionId } from "../db/event-order.js";
import { executeCompiled, prepareQuery } from "../db/prepared.js";
import type { Database, DbOrTrx, Dialect, Environment, EventsTable, EventType } from "../db/schema.js";
import { newId } from "../ids.js";

export { EVENT_TYPES, type EventType } from "../db/schema.js";

/** An event as the API shows it and as webhooks deliver it (API.md §8). */
export interface EventView {
  id: string;
  type: EventType;
  created_at: string;
  environment: Environment;
  data: Record<string, unknown>;
}

export interface NewEvent {
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
  for (let start = 0; start < events.length; start += INSERT_CHUNK_EVENTS) {
    // Each row's `seq` reads the feed as it stood before the statement: the events of one
    // account and environment in the statement count on from there.
    const before = new Map<string, number>();
    const rows = events.slice(start, start + INSERT_CHUNK_EVENTS).map((event) => {
      const scope = `${event.accountId} ${event.environment}`;
      const offset = (before.get(scope) ?? 0) + 1;
      before.set(scope, offset);
      return {
        id: newId("evt"),
        account_id: event.accountId,
        environment: event.environment,
        type: event.type,
        data: JSON.stringify(event.data),
        created_at: createdAt,
        ...placeInFeed({ ...event, createdAt }, writer.dialect, offset),
      };
    });
    await trx.insertInto("events").values(rows).execute();
  }
}

const INSERT_CHUNK_EVENTS = 200;

interface EventRow {
  id: string;
  accountId: string;
  environment: Environment;
  type: EventType;
  data: string;
  createdAt: string;
}

/**
 * What an event's insert works out in the database: `seq`, the next number of its account and
 * environment's feed (read through the feed index, `offset` past the last), and `fanned_out_at`.
 * An event of an account and environment with no enabled webhook endpoint has nowhere to go: it
 * is written relayed already, so the relay neither reads nor marks it (most accounts have no
 * endpoint). An endpoint enabled before the event's transaction commits may miss it, as it would
 * miss an event the relay fanned out a moment before.
 */
function placeInFeed(
  event: Pick<EventRow, "accountId" | "environment" | "createdAt">,
  dialect: Dialect,
  offset: number,
) {
  const txid = writerTransactionId(dialect);
  return {
    txid,
    seq: sql<number>`(select coalesce(max(seq), 0) from events
      where account_id = ${event.accountId} and environment = ${event.environment} and txid = ${txid}) + ${sql.lit(offset)}`,
    fanned_out_at: sql<string | null>`case when exists (select 1 from webhook_endpoints
      where account_id = ${event.accountId} and environment = ${event.environment} and status = 'enabled')
      then null else ${event.createdAt} end`,
  };
}

const insertEvent = prepareQuery<EventRow, never>((db, param, dialect) =>
  db.insertInto("events").values({
    id: param("id"),
    account_id: param("accountId"),
    environment: param("environment"),
    type: param("type"),
    data: param("data"),
    created_at: param("createdAt"),
    ...placeInFeed(
      { accountId: param("accountId"), environment: param("environment"), createdAt: param("createdAt") },
      dialect,
      1,
    ),
  }),
);

/** The event `recordEvent` writes, and its insert, unexecuted (for a one-flight transaction). */
export function eventInsert(
  db: DbOrTrx,
  writer: EventWriter,
  event: NewEvent,
): { view: EventView; insert: CompiledQuery<never> } {
  const view: EventView = {
    id: newId("evt"),
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
