import type { Transaction } from "kysely";
import { isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import { executeForIds, prepareForIds, prepareQuery } from "../db/prepared.js";
import type { CarrierMessagesTable, Database, MessagesTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { burstsRetriedOneByOne } from "../db/write-bursts.js";
import type { Receipt } from "../delivery/carrier.js";
import { recordMessageEvent, recordMessageEvents } from "../messages/events.js";

/** `applyReceipts` of the receipts that come in together (`burstsRetriedOneByOne`). */
export function receiptsInBursts(ctx: AppContext): (receipt: Receipt) => Promise<boolean> {
  return burstsRetriedOneByOne((receipts: readonly Receipt[]) => applyReceipts(ctx, receipts));
}

/**
 * `applyReceipt` for many receipts in one transaction, answering for each whether its part was
 * known. Reports of delivery (nearly all) take a statement each to record their part, and then a
 * few for the lot: a message whose parts are now all delivered is `delivered` once, as it would
 * be with the receipts one by one. A burst with a report of non-delivery is applied in order,
 * receipt by receipt, since which report comes first decides the message's status.
 */
export function applyReceipts(ctx: AppContext, receipts: readonly Receipt[]): Promise<boolean[]> {
  const now = isoNow(ctx.clock);
  return inTransaction(ctx, async (trx) => {
    if (receipts.some((receipt) => receipt.state !== "delivered")) {
      const known: boolean[] = [];
      for (const receipt of receipts) known.push(await recordReceipt(trx, ctx, now, receipt));
      return known;
    }
    // A message is completed by the first report of the last of its parts reported in the burst.
    const completedAt = new Map<string, number>();
    const reportedParts = new Set<string>();
    const known: boolean[] = [];
    for (const [index, receipt] of receipts.entries()) {
      const { rows } = await markPartDelivered.execute(trx, {
        carrier: receipt.carrier,
        carrierMessageId: receipt.carrierMessageId,
        errorCode: receipt.errorCode ?? null,
        now,
      });
      const messageId = rows[0]?.message_id;
      known.push(messageId !== undefined);
      if (messageId === undefined) continue;
      const part = `${messageId}\u0000${receipt.carrierMessageId}`;
      if (reportedParts.has(part)) continue;
      reportedParts.add(part);
      completedAt.set(messageId, index);
    }
    const messageIds = [...completedAt.keys()];
    const parts = new Map<string, Array<Pick<CarrierMessagesTable, "carrier_message_id" | "status">>>();
    for (const { message_id, ...part } of await executeForIds(trx, partsOfMessages, {}, messageIds)) {
      const ofMessage = parts.get(message_id);
      if (ofMessage) ofMessage.push(part);
      else parts.set(message_id, [part]);
    }
    const complete = messageIds.filter((id) => parts.get(id)?.every((part) => part.status === "delivered"));
    const delivered = await executeForIds(trx, markMessagesDelivered, { now }, complete);
    delivered.sort((a, b) => (completedAt.get(a.id) ?? 0) - (completedAt.get(b.id) ?? 0));
    await recordMessageEvents(
      trx,
      ctx,
      delivered.map((row) => ({
        type: "sms.delivered" as const,
        row,
        carrierMessageIds: (parts.get(row.id) ?? []).map((part) => part.carrier_message_id),
      })),
    );
    return known;
  });
}

const markPartDelivered = prepareQuery<
  { carrier: string; carrierMessageId: string; errorCode: string | null; now: string },
  Pick<CarrierMessagesTable, "message_id">
>((db, param) =>
  db
    .updateTable("carrier_messages")
    .set({ status: "delivered", error_code: param("errorCode"), updated_at: param("now") })
    .where("carrier", "=", param("carrier"))
    .where("carrier_message_id", "=", param("carrierMessageId"))
    .returning("message_id"),
);

const partsOfMessages = prepareForIds<
  Record<never, never>,
  Pick<CarrierMessagesTable, "message_id" | "carrier_message_id" | "status">
>((db, _param, ids) =>
  db
    .selectFrom("carrier_messages")
    .select(["message_id", "carrier_message_id", "status"])
    .where("message_id", "in", ids)
    .orderBy("message_id")
    .orderBy("part"),
);

const markMessagesDelivered = prepareForIds<{ now: string }, MessagesTable>((db, param, ids) =>
  db
    .updateTable("messages")
    .set({ status: "delivered", delivered_at: param("now"), updated_at: param("now") })
    .where("id", "in", ids)
    .where("status", "=", "submitted")
    .returningAll(),
);

/**
 * A delivery report for one part. A message is `delivered` when every part is, and
 * `undelivered` as soon as one part is; later reports for a finished message change nothing.
 * Returns false for a carrier message id Dakiya does not know.
 */
export function applyReceipt(ctx: AppContext, receipt: Receipt): Promise<boolean> {
  return inTransaction(ctx, (trx) => recordReceipt(trx, ctx, isoNow(ctx.clock), receipt));
}

export async function recordReceipt(
  trx: Transaction<Database>,
  ctx: AppContext,
  now: string,
  receipt: Receipt,
): Promise<boolean> {
  const part = await trx
    .updateTable("carrier_messages")
    .set({ status: receipt.state, error_code: receipt.errorCode ?? null, updated_at: now })
    .where("carrier", "=", receipt.carrier)
    .where("carrier_message_id", "=", receipt.carrierMessageId)
    .returning("message_id")
    .executeTakeFirst();
  if (!part) return false;

  const parts = await partsOf(trx, part.message_id);
  const ending = endingOf(receipt, parts, now);
  if (!ending) return true;
  const ended = await trx
    .updateTable("messages")
    .set(ending.change)
    .where("id", "=", part.message_id)
    .where("status", "=", "submitted")
    .returningAll()
    .executeTakeFirst();
  if (ended) {
    await recordMessageEvent(
      trx,
      ctx,
      ending.type,
      ended,
      parts.map((p) => p.carrier_message_id),
    );
  }
  return true;
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
  const parts = await trx
    .selectFrom("carrier_messages")
    .select(["status", "error_code"])
    .where("message_id", "=", messageId)
    .orderBy("part")
    .execute();
  const undelivered = parts.find((part) => part.status === "undelivered");
  const report = undelivered
    ? { state: "undelivered" as const, errorCode: undelivered.error_code ?? undefined }
    : { state: "delivered" as const };
  const ending = endingOf(report, parts, now);
  if (!ending) return;
  const ended = await trx
    .updateTable("messages")
    .set(ending.change)
    .where("id", "=", messageId)
    .where("status", "=", "submitted")
    .returningAll()
    .executeTakeFirst();
  if (ended) await recordMessageEvent(trx, ctx, ending.type, ended, carrierMessageIds);
}

/**
 * What a part's report does to its message: undelivered as soon as one part is, delivered once
 * every part is; nothing while parts are still out.
 */
function endingOf(
  receipt: Pick<Receipt, "state" | "errorCode" | "errorMessage">,
  parts: ReadonlyArray<{ status: string }>,
  now: string,
) {
  if (receipt.state === "undelivered") {
    return {
      type: "sms.undelivered" as const,
      change: {
        status: "undelivered" as const,
        undelivered_at: now,
        updated_at: now,
        error_code: receipt.errorCode ?? "undelivered",
        error_message: receipt.errorMessage ?? "The carrier could not deliver the message.",
      },
    };
  }
  if (parts.every((p) => p.status === "delivered")) {
    return {
      type: "sms.delivered" as const,
      change: { status: "delivered" as const, delivered_at: now, updated_at: now },
    };
  }
  return undefined;
}

function partsOf(trx: Transaction<Database>, messageId: string) {
  return trx
    .selectFrom("carrier_messages")
    .select(["carrier_message_id", "status"])
    .where("message_id", "=", messageId)
    .orderBy("part")
    .execute();
}
