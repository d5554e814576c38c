import { type CompiledQuery, sql, type Transaction } from "kysely";
import { type Clock, isoNow } from "../clock.js";
import { writerTransactionId } from "../db/event-order.js";
import { executeCompiled, prepareQuery } from "../db/prepared.js";
import type { Database, DbOrTrx, Environment, EventsTable, EventType } from "../db/schema.js";
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

interface EventRow {
  id: string;
  accountId: string;
  environment: Environment;
  type: EventType;
  data: string;
  createdAt: string;
}

// `seq` reads the feed index for the next number in the same statement. An event of an account
// and environment with no enabled webhook endpoint has nowhere to go: it is written relayed
// already, so the relay neither reads nor marks it (most accounts have no endpoint). An endpoint
// enabled before the event's transaction commits may miss it, as it would miss an event the relay
// fanned out a moment before.
const insertEvent = prepareQuery<EventRow, never>((db, param, dialect) =>
  db.insertInto("events").values(({ selectFrom, exists }) => ({
    id: param("id"),
    account_id: param("accountId"),
    environment: param("environment"),
    type: param("type"),
    data: param("data"),
    created_at: param("createdAt"),
    txid: writerTransactionId(dialect),
    seq: selectFrom("events")
      .select((eb) => eb(eb.fn.coalesce(eb.fn.max("seq"), eb.lit(0)), "+", 1).as("next"))
      .where("account_id", "=", param("accountId"))
      .where("environment", "=", param("environment"))
      .where("txid", "=", writerTransactionId(dialect)),
    fanned_out_at: sql<string | null>`case when ${exists(
      selectFrom("webhook_endpoints")
        .select(sql.lit(1).as("one"))
        .where("account_id", "=", param("accountId"))
        .where("environment", "=", param("environment"))
        .where("status", "=", sql.lit("enabled")),
    )} then null else ${param("createdAt")} end`,
  })),
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
