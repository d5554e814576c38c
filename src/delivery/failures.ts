import type { Transaction } from "kysely";
import { refundMessage } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import type { Database, MessagesTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { isoAfter, isoNow } from "../lib/clock.js";
import { recordMessageEvent } from "../messages/events.js";
import { carriedParts, deliverableMessages, type Lease } from "./status.js";

// A try that did not end in an acceptance: the message goes back in the queue, or it ends
// failed (or, partly carried, undelivered) with its refund.

/** Why a message ends: its `error_code`, `error_message`, and the carrier's own code when it gave one. */
export interface FailureReason {
  code: string;
  message: string;
  carrierError?: string;
}

/** Puts a message back in the queue to be tried again after `delaySeconds`. */
export async function scheduleRetry(
  ctx: AppContext,
  lease: Lease,
  error: { code: string; message: string },
  delaySeconds: number,
): Promise<void> {
  await deliverableMessages(ctx.db, lease.owner)
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
    .execute();
}

/**
 * The message will never be accepted whole. If the carrier took none of it, it fails and its
 * charge goes back through the ledger. If it took some parts of a long message, those went out:
 * the message ends `undelivered`, charged for the parts carried, and the parts that never left
 * are refunded (docs/money.md). One transaction; only a queued message ends here, so the refund
 * happens once.
 */
export async function failMessage(
  ctx: AppContext,
  messageId: string,
  error: FailureReason,
  owner?: string,
): Promise<boolean> {
  const now = isoNow(ctx.clock);
  return inTransaction(ctx, async (trx) => {
    const failed = await deliverableMessages(trx, owner)
      .set((eb) => ({
        status: "failed",
        sealed: null,
        failed_at: now,
        updated_at: now,
        attempts: eb("attempts", "+", 1),
        error_code: error.code,
        error_message: error.message,
        carrier_error: error.carrierError ?? null,
        next_attempt_at: null,
        lease_until: null,
        lease_owner: null,
      }))
      .where("id", "=", messageId)
      .returningAll()
      .executeTakeFirst();
    if (!failed) return false;
    await settleFailed(trx, ctx, now, failed, error);
    return true;
  });
}

/**
 * What follows a message's change to `failed`, in its transaction: its event and its refund,
 * or, when parts of it were carried, its end as partly carried.
 */
export async function settleFailed(
  trx: Transaction<Database>,
  ctx: AppContext,
  now: string,
  failed: MessagesTable,
  error: { code: string; message: string },
): Promise<void> {
  // The row is locked now: a part recorded while it was queued is among these.
  const { rows: carried } = await carriedParts.execute(trx, { messageId: failed.id });
  if (carried.length > 0) {
    await endPartlyCarried(
      trx,
      ctx,
      now,
      failed,
      carried.map((part) => part.carrier_message_id),
      error,
    );
    return;
  }
  await recordMessageEvent(trx, ctx, "sms.failed", failed, []);
  await refundMessage(trx, ctx.clock, failed, Number(failed.cost));
}

/**
 * A long message of which the carrier took only the first `carrierMessageIds.length` parts:
 * `undelivered`, since the handset cannot put it together, with the reason the rest did not go;
 * charged for the parts that went out, the others refunded.
 */
async function endPartlyCarried(
  trx: Transaction<Database>,
  ctx: AppContext,
  now: string,
  message: MessagesTable,
  carrierMessageIds: string[],
  error: { code: string; message: string },
) {
  const parts = Math.max(message.segments, carrierMessageIds.length);
  const carried = carrierMessageIds.length;
  const cost = Number(message.cost);
  const charged = chargeForParts(cost, parts, carried);
  const went =
    carried === 1
      ? `Part 1 of ${parts} went out and is charged`
      : `Parts 1 to ${carried} of ${parts} went out and are charged`;
  const ended = await trx
    .updateTable("messages")
    .set({
      status: "undelivered",
      failed_at: null,
      undelivered_at: now,
      cost: charged,
      error_message: `${error.message} ${went}; the rest, never sent, was refunded.`,
    })
    .where("id", "=", message.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordMessageEvent(trx, ctx, "sms.undelivered", ended, carrierMessageIds);
  await refundMessage(trx, ctx.clock, ended, cost - charged);
}

/**
 * What `carried` of a message's `parts` cost, of its whole `cost`: each part its equal share
 * (a message is priced per part), rounded down to the 1/10,000 rupee.
 */
export function chargeForParts(cost: number, parts: number, carried: number): number {
  if (parts <= 0 || carried >= parts) return cost;
  return Math.floor((cost * carried) / parts);
}
