import type { Transaction } from "kysely";
import type { Database, Dialect, MessagesTable } from "../db/schema.js";
import { type EventWriter, recordEvent, recordEvents } from "../events/outbox.js";
import type { FinalStatus, Metrics } from "../metrics/metrics.js";
import { toMessageView } from "./store.js";

export type MessageEventType =
  | "sms.submitted"
  | "sms.delivered"
  | "sms.undelivered"
  | "sms.failed"
  | "sms.cancelled";

const FINAL_STATUS_OF: Partial<Record<MessageEventType, FinalStatus>> = {
  "sms.delivered": "delivered",
  "sms.undelivered": "undelivered",
  "sms.failed": "failed",
  "sms.cancelled": "cancelled",
};

/**
 * A message's status change, with the message as `GET /v2/sms/{id}` shows it after the change.
 * Every change of a message to a final status comes through here, so it is counted here too.
 */
export async function recordMessageEvent(
  trx: Transaction<Database>,
  writer: EventWriter & { metrics: Metrics },
  type: MessageEventType,
  row: MessagesTable,
  carrierMessageIds: string[],
): Promise<void> {
  await recordEvent(trx, writer, {
    accountId: row.account_id,
    environment: row.environment,
    type,
    data: toMessageView(row, carrierMessageIds),
  });
  countFinished(writer.metrics, type, row);
}

/** Several messages' status changes, in order, in multi-row inserts (`recordEvents`). */
export async function recordMessageEvents(
  trx: Transaction<Database>,
  writer: EventWriter & { metrics: Metrics; dialect: Dialect },
  changes: ReadonlyArray<{ type: MessageEventType; row: MessagesTable; carrierMessageIds: string[] }>,
): Promise<void> {
  await recordEvents(
    trx,
    writer,
    changes.map(({ type, row, carrierMessageIds }) => ({
      accountId: row.account_id,
      environment: row.environment,
      type,
      data: toMessageView(row, carrierMessageIds),
    })),
  );
  for (const { type, row } of changes) countFinished(writer.metrics, type, row);
}

function countFinished(metrics: Metrics, type: MessageEventType, row: MessagesTable): void {
  const finalStatus = FINAL_STATUS_OF[type];
  if (finalStatus) metrics.messageFinished(row.channel, row.environment, finalStatus);
}
