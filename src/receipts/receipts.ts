import type { Transaction } from "kysely";
import { refundMessage } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import { executeForIds, prepareForIds, prepareQuery } from "../db/prepared.js";
import type { CarrierMessagesTable, Database, DbOrTrx, MessagesTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { burstsRetriedOneByOne } from "../db/write-bursts.js";
import type { Receipt } from "../delivery/carrier.js";
import { isRejectionCode, REJECTION_MEANINGS } from "../delivery/carriers/dlt-rejections.js";
import { isoNow } from "../lib/clock.js";
import { recordMessageEvent, recordMessageEvents } from "../messages/events.js";

/*
 * A delivery report is for one part. A message is `delivered` when every part is, and
 * `undelivered` as soon as one part is; later reports for a finished message change nothing. A
 * report of non-delivery never refunds: a part the carrier accepted went out (docs/money.md). A
 * report of the operator's rejection (a DLT scrub failure, `rejected`) is the exception: the
 * network refused the message before delivering it, so it ends `failed` and is refunded whole.
 *
 * Receipts are applied one at a time (`applyReceipt`, the providers' callbacks) or in bursts
 * (`receiptsInBursts`, an SMSC's stream); both come to `applyReceipts`, which decides how a lot
 * is written: reports of delivery together, a lot with a report of non-delivery in order.
 */

/** `applyReceipts` of the receipts that come in together (`burstsRetriedOneByOne`). */
export function receiptsInBursts(ctx: AppContext): (receipt: Receipt) => Promise<boolean> {
  return burstsRetriedOneByOne((receipts: readonly Receipt[]) => applyReceipts(ctx, receipts));
}

/**
 * One receipt in a transaction of its own: `applyReceipts` of one, which takes the same
 * statements. Returns false for a carrier message id Dakiya does not know.
 */
export async function applyReceipt(ctx: AppContext, receipt: Receipt): Promise<boolean> {
  const [known] = await applyReceipts(ctx, [receipt]);
  return known === true;
}

/**
 * Receipts in one transaction, answering for each whether its part was known. Reports of
 * delivery (nearly all) take a statement each to record their part, and then a few for the lot:
 * a message whose parts are now all delivered is `delivered` once, as it would be with the
 * receipts one by one. A lot with a report of non-delivery is applied in order, receipt by
 * receipt, since which report comes first decides the message's status.
 */
export function applyReceipts(ctx: AppContext, receipts: readonly Receipt[]): Promise<boolean[]> {
  const now = isoNow(ctx.clock);
  return inTransaction(ctx, async (trx) => {
    if (receipts.every((receipt) => receipt.state === "delivered")) {
      return recordDeliveries(trx, ctx, now, receipts);
    }
    const known: boolean[] = [];
    for (const receipt of receipts) known.push(await recordReceipt(trx, ctx, now, receipt));
    return known;
  });
}

/** One receipt in the caller's transaction (an acceptance's, or a lot's in order). */
export async function recordReceipt(
  trx: Transaction<Database>,
  ctx: AppContext,
  now: string,
  receipt: Receipt,
): Promise<boolean> {
  if (receipt.state === "delivered") {
    const [known] = await recordDeliveries(trx, ctx, now, [receipt]);
    return known === true;
  }
  const messageId = await markPart(trx, now, receipt);
  if (messageId === undefined) return false;
  const parts = await partsOfMessages(trx, [messageId]);
  const ids = partIds(parts.get(messageId));
  if (receipt.state === "rejected") await endRejected(trx, ctx, now, messageId, receipt, ids);
  else await endUndelivered(trx, ctx, now, messageId, receipt, ids);
  return true;
}

/**
 * Reports of delivery, in order: each part recorded, then the messages whose parts are now all
 * delivered end `delivered`, their events in the order of the report that completed each.
 */
async function recordDeliveries(
  trx: Transaction<Database>,
  ctx: AppContext,
  now: string,
  receipts: readonly Receipt[],
): Promise<boolean[]> {
  // A message is completed by the first report of the last of its parts reported.
  const completedAt = new Map<string, number>();
  const reportedParts = new Set<string>();
  const known: boolean[] = [];
  for (const [index, receipt] of receipts.entries()) {
    const messageId = await markPart(trx, now, receipt);
    known.push(messageId !== undefined);
    if (messageId === undefined) continue;
    const part = `${messageId}\u0000${receipt.carrierMessageId}`;
    if (reportedParts.has(part)) continue;
    reportedParts.add(part);
    completedAt.set(messageId, index);
  }
  const messageIds = [...completedAt.keys()];
  const parts = await partsOfMessages(trx, messageIds);
  const complete = messageIds.filter((id) => allDelivered(parts.get(id)));
  const delivered = await executeForIds(trx, markMessagesDelivered, { now }, complete);
  delivered.sort((a, b) => (completedAt.get(a.id) ?? 0) - (completedAt.get(b.id) ?? 0));
  await recordMessageEvents(
    trx,
    ctx,
    delivered.map((row) => ({
      type: "sms.delivered" as const,
      row,
      carrierMessageIds: partIds(parts.get(row.id)),
    })),
  );
  return known;
}

/**
 * A message whose first parts were reported on while it waited in the queue for the rest, just
 * accepted whole (`submitted`): it ends as those reports say, as if they had come now.
 */
export async function applyReportedParts(
  trx: Transaction<Database>,
  ctx: AppContext,
  now: string,
  messageId: string,
  carrierMessageIds: string[],
): Promise<void> {
  const parts = (await partsOfMessages(trx, [messageId])).get(messageId) ?? [];
  const rejected = parts.find((part) => part.status === "rejected");
  if (rejected) {
    const code = isRejectionCode(rejected.error_code) ? rejected.error_code : "carrier_rejected";
    const report = { errorCode: code, errorMessage: REJECTION_MEANINGS[code] };
    await endRejected(trx, ctx, now, messageId, report, carrierMessageIds);
    return;
  }
  const undelivered = parts.find((part) => part.status === "undelivered");
  if (undelivered) {
    const report = { errorCode: undelivered.error_code ?? undefined };
    await endUndelivered(trx, ctx, now, messageId, report, carrierMessageIds);
    return;
  }
  if (!allDelivered(parts)) return;
  const [ended] = await executeForIds(trx, markMessagesDelivered, { now }, [messageId]);
  if (ended) await recordMessageEvent(trx, ctx, "sms.delivered", ended, carrierMessageIds);
}

type Part = Pick<CarrierMessagesTable, "carrier_message_id" | "status" | "error_code">;

function allDelivered(parts: readonly Part[] | undefined): boolean {
  return parts?.every((part) => part.status === "delivered") ?? false;
}

function partIds(parts: readonly Part[] | undefined): string[] {
  return (parts ?? []).map((part) => part.carrier_message_id);
}

/** Records a part's report; answers its message's id, `undefined` for a part Dakiya does not know. */
async function markPart(
  trx: Transaction<Database>,
  now: string,
  receipt: Receipt,
): Promise<string | undefined> {
  const { rows } = await markPartOf.execute(trx, {
    carrier: receipt.carrier,
    carrierMessageId: receipt.carrierMessageId,
    status: receipt.state,
    errorCode: receipt.errorCode ?? null,
    now,
  });
  return rows[0]?.message_id;
}

const markPartOf = prepareQuery<
  {
    carrier: string;
    carrierMessageId: string;
    status: CarrierMessagesTable["status"];
    errorCode: string | null;
    now: string;
  },
  Pick<CarrierMessagesTable, "message_id">
>((db, param) =>
  db
    .updateTable("carrier_messages")
    .set({ status: param("status"), error_code: param("errorCode"), updated_at: param("now") })
    .where("carrier", "=", param("carrier"))
    .where("carrier_message_id", "=", param("carrierMessageId"))
    .returning("message_id"),
);

/** The parts of messages, in order, by message. */
async function partsOfMessages(db: DbOrTrx, messageIds: readonly string[]): Promise<Map<string, Part[]>> {
  const parts = new Map<string, Part[]>();
  for (const { message_id, ...part } of await executeForIds(db, partsOfMessagesOf, {}, messageIds)) {
    const ofMessage = parts.get(message_id);
    if (ofMessage) ofMessage.push(part);
    else parts.set(message_id, [part]);
  }
  return parts;
}

const partsOfMessagesOf = prepareForIds<
  Record<never, never>,
  Pick<CarrierMessagesTable, "message_id"> & Part
>((db, _param, ids) =>
  db
    .selectFrom("carrier_messages")
    .select(["message_id", "carrier_message_id", "status", "error_code"])
    .where("message_id", "in", ids)
    .orderBy("message_id")
    .orderBy("part"),
);

/** Only a `submitted` message ends by a report: one that ended already stays as it ended. */
function endingMessages(db: DbOrTrx) {
  return db.updateTable("messages").where("status", "=", "submitted");
}

const markMessagesDelivered = prepareForIds<{ now: string }, MessagesTable>((db, param, ids) =>
  endingMessages(db)
    .set({ status: "delivered", delivered_at: param("now"), updated_at: param("now") })
    .where("id", "in", ids)
    .returningAll(),
);

/** A message with a part reported undelivered ends `undelivered`, with the report's reason. */
async function endUndelivered(
  trx: Transaction<Database>,
  ctx: AppContext,
  now: string,
  messageId: string,
  report: Pick<Receipt, "errorCode" | "errorMessage" | "carrierError">,
  carrierMessageIds: string[],
): Promise<void> {
  const ended = await endingMessages(trx)
    .set({
      status: "undelivered",
      undelivered_at: now,
      updated_at: now,
      error_code: report.errorCode ?? "undelivered",
      error_message: report.errorMessage ?? "The carrier could not deliver the message.",
      carrier_error: report.carrierError ?? null,
    })
    .where("id", "=", messageId)
    .returningAll()
    .executeTakeFirst();
  if (ended) await recordMessageEvent(trx, ctx, "sms.undelivered", ended, carrierMessageIds);
}

/**
 * A message with a part the operator rejected (docs/dlt-compliance.md) ends `failed`, named by
 * the rejection, and its whole charge goes back: the network delivered none of it that the
 * handset could put together. Only a `submitted` message ends so, once, so the refund is made once.
 */
async function endRejected(
  trx: Transaction<Database>,
  ctx: AppContext,
  now: string,
  messageId: string,
  report: Pick<Receipt, "errorCode" | "errorMessage" | "carrierError">,
  carrierMessageIds: string[],
): Promise<void> {
  const ended = await endingMessages(trx)
    .set({
      status: "failed",
      failed_at: now,
      updated_at: now,
      error_code: report.errorCode ?? "carrier_rejected",
      error_message: report.errorMessage ?? REJECTION_MEANINGS.carrier_rejected,
      carrier_error: report.carrierError ?? null,
    })
    .where("id", "=", messageId)
    .returningAll()
    .executeTakeFirst();
  if (!ended) return;
  await recordMessageEvent(trx, ctx, "sms.failed", ended, carrierMessageIds);
  await refundMessage(trx, ctx.clock, ended, Number(ended.cost));
}
