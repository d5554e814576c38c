import type { Transaction } from "kysely";
import { applyLedgerChange } from "../accounts/ledger.js";
import { isoAfter, isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import { preparedInsert, prepareQuery } from "../db/prepared.js";
import type { Database, MessagesTable } from "../db/schema.js";
import { recordMessageEvent } from "../events/emit.js";
import { addToSandboxInbox } from "../sandbox/inbox.js";
import type { AcceptingRoute, Receipt, SandboxInboxEntry } from "./carrier.js";

/** The claim a worker holds on a message while it delivers it. */
export interface Lease {
  messageId: string;
  owner: string;
}

/**
 * The carrier took the message: record its part ids and leave the queue. Receipts the carrier
 * already knows and the sandbox inbox entry (the sandbox's) are recorded in the same
 * transaction, so a crash cannot keep the acceptance and lose them, and a lost lease adds nothing.
 */
export async function markSubmitted(
  ctx: AppContext,
  lease: Lease,
  carrier: string,
  carrierMessageIds: string[],
  receipts: Receipt[] = [],
  inbox?: SandboxInboxEntry,
  route?: AcceptingRoute,
): Promise<boolean> {
  const now = isoNow(ctx.clock);
  // Every part reported delivered along with the acceptance (the sandbox's): the message goes
  // straight to delivered in one update, with both events, as if the receipts came one by one.
  const deliveredAtOnce =
    carrierMessageIds.length > 0 &&
    carrierMessageIds.every((id) =>
      receipts.some((r) => r.carrier === carrier && r.carrierMessageId === id && r.state === "delivered"),
    );
  return ctx.db.transaction().execute(async (trx) => {
    const [updated] = (
      await acceptMessage.execute(trx, {
        id: lease.messageId,
        owner: lease.owner,
        status: deliveredAtOnce ? "delivered" : "submitted",
        deliveredAt: deliveredAtOnce ? now : null,
        carrier,
        route: route?.name ?? null,
        now,
      })
    ).rows;
    if (!updated) return false;
    if (carrierMessageIds.length > 0) {
      const parts = carrierMessageIds.map((carrierMessageId, index) => ({
        carrier: route?.receiptCarrier ?? carrier,
        carrier_message_id: carrierMessageId,
        message_id: lease.messageId,
        part: index + 1,
        status: deliveredAtOnce ? ("delivered" as const) : ("submitted" as const),
        error_code: null,
        updated_at: now,
      }));
      // Most messages are one part: that insert is compiled once; a long message's in one statement.
      if (parts.length === 1) await insertCarrierPart.execute(trx, parts[0] as (typeof parts)[number]);
      else await trx.insertInto("carrier_messages").values(parts).execute();
    }
    if (inbox) await addToSandboxInbox(trx, lease.messageId, inbox, now);
    if (deliveredAtOnce) {
      const submitted = { ...updated, status: "submitted" as const, delivered_at: null };
      await recordMessageEvent(trx, ctx, "sms.submitted", submitted, carrierMessageIds);
      await recordMessageEvent(trx, ctx, "sms.delivered", updated, carrierMessageIds);
      return true;
    }
    await recordMessageEvent(trx, ctx, "sms.submitted", updated, carrierMessageIds);
    for (const receipt of receipts) await recordReceipt(trx, ctx, now, receipt);
    return true;
  });
}

interface Acceptance {
  id: string;
  owner: string;
  status: "submitted" | "delivered";
  deliveredAt: string | null;
  carrier: string;
  route: string | null;
  now: string;
}

/** A leased, queued message leaves the queue as accepted; no row if the lease was lost. */
const acceptMessage = prepareQuery<Acceptance, MessagesTable>((db, param) =>
  db
    .updateTable("messages")
    .set((eb) => ({
      status: param("status"),
      delivered_at: param("deliveredAt"),
      carrier: param("carrier"),
      route: param("route"),
      sealed: null,
      submitted_at: param("now"),
      updated_at: param("now"),
      attempts: eb("attempts", "+", 1),
      error_code: null,
      error_message: null,
      next_attempt_at: null,
      lease_until: null,
      lease_owner: null,
    }))
    .where("id", "=", param("id"))
    .where("status", "=", "queued")
    .where("lease_owner", "=", param("owner"))
    .returningAll(),
);

const insertCarrierPart = preparedInsert("carrier_messages");

/** Puts a message back in the queue to be tried again after `delaySeconds`. */
export async function scheduleRetry(
  ctx: AppContext,
  lease: Lease,
  error: { code: string; message: string },
  delaySeconds: number,
): Promise<void> {
  await ctx.db
    .updateTable("messages")
    .set((eb) => ({
      attempts: eb("attempts", "+", 1),
      error_code: error.code,
      error_message: error.message,
      next_attempt_at: isoAfter(ctx.clock, delaySeconds),
      lease_until: null,
      lease_owner: null,
      updated_at: isoNow(ctx.clock),
    }))
    .where("id", "=", lease.messageId)
    .where("status", "=", "queued")
    .where("lease_owner", "=", lease.owner)
    .execute();
}

/**
 * The message was never accepted and never will be: it fails and its charge goes back through
 * the ledger, in one transaction. Only a queued message can fail, so the refund happens once.
 */
export async function failMessage(
  ctx: AppContext,
  messageId: string,
  error: { code: string; message: string },
  owner?: string,
): Promise<boolean> {
  const now = isoNow(ctx.clock);
  return ctx.db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable("messages")
      .set((eb) => ({
        status: "failed",
        sealed: null,
        failed_at: now,
        updated_at: now,
        attempts: eb("attempts", "+", 1),
        error_code: error.code,
        error_message: error.message,
        next_attempt_at: null,
        lease_until: null,
        lease_owner: null,
      }))
      .where("id", "=", messageId)
      .where("status", "=", "queued");
    if (owner !== undefined) update = update.where("lease_owner", "=", owner);
    const failed = await update.returningAll().executeTakeFirst();
    if (!failed) return false;
    // Only a message no carrier accepted fails, so it has no carrier message ids.
    await recordMessageEvent(trx, ctx, "sms.failed", failed, []);
    const cost = Number(failed.cost);
    if (cost > 0) {
      await applyLedgerChange(trx, ctx.clock, {
        accountId: failed.account_id,
        environment: failed.environment,
        amount: cost,
        reason: `${failed.channel}_refund`,
        reference: messageId,
      });
    }
    return true;
  });
}

/**
 * A delivery report for one part. A message is `delivered` when every part is, and
 * `undelivered` as soon as one part is; later reports for a finished message change nothing.
 * Returns false for a carrier message id Dakiya does not know.
 */
export function applyReceipt(ctx: AppContext, receipt: Receipt): Promise<boolean> {
  return ctx.db.transaction().execute((trx) => recordReceipt(trx, ctx, isoNow(ctx.clock), receipt));
}

async function recordReceipt(
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

  if (receipt.state === "undelivered") {
    const undelivered = await trx
      .updateTable("messages")
      .set({
        status: "undelivered",
        undelivered_at: now,
        updated_at: now,
        error_code: receipt.errorCode ?? "undelivered",
        error_message: receipt.errorMessage ?? "The carrier could not deliver the message.",
      })
      .where("id", "=", part.message_id)
      .where("status", "=", "submitted")
      .returningAll()
      .executeTakeFirst();
    if (undelivered) {
      const parts = await partsOf(trx, part.message_id);
      await recordMessageEvent(
        trx,
        ctx,
        "sms.undelivered",
        undelivered,
        parts.map((p) => p.carrier_message_id),
      );
    }
    return true;
  }
  const parts = await partsOf(trx, part.message_id);
  if (parts.every((p) => p.status === "delivered")) {
    const delivered = await trx
      .updateTable("messages")
      .set({ status: "delivered", delivered_at: now, updated_at: now })
      .where("id", "=", part.message_id)
      .where("status", "=", "submitted")
      .returningAll()
      .executeTakeFirst();
    if (delivered) {
      await recordMessageEvent(
        trx,
        ctx,
        "sms.delivered",
        delivered,
        parts.map((p) => p.carrier_message_id),
      );
    }
  }
  return true;
}

function partsOf(trx: Transaction<Database>, messageId: string) {
  return trx
    .selectFrom("carrier_messages")
    .select(["carrier_message_id", "status"])
    .where("message_id", "=", messageId)
    .orderBy("part")
    .execute();
}
