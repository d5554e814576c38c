import type { ExpressionBuilder } from "kysely";
import { refundMessage } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import type { Database, Environment } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import { isoNow } from "../lib/clock.js";
import { recordMessageEvent } from "../messages/events.js";
import { getMessage, type MessageView, toMessageView } from "../messages/store.js";

/**
 * Cancels a message no delivery has taken yet: `scheduled`, or `queued` without a try and with
 * no worker holding it. It ends `cancelled`, its charge refunded, with `sms.cancelled`, in one
 * transaction. A cancel racing a worker's claim is one statement against another on the same
 * row: whichever the database orders first wins, and the other finds nothing to change (the
 * claim skips the row; the cancel sees the lease) — the cancel then answers `not_cancellable`.
 */
export async function cancelMessage(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  id: string,
  record?: RecordAnswer<MessageView>,
): Promise<MessageView> {
  const cancelled = await inTransaction(ctx, async (trx) => {
    const now = isoNow(ctx.clock);
    const row = await trx
      .updateTable("messages")
      .set(cancelledColumns(now))
      .where("id", "=", id)
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .where((eb) => cancellable(eb, now))
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    await recordMessageEvent(trx, ctx, "sms.cancelled", row, []);
    await refundMessage(trx, ctx.clock, row, Number(row.cost));
    const view = toMessageView(row);
    await record?.(trx, view);
    return view;
  });
  if (cancelled) return cancelled;
  // Not found, or found in a state a cancel cannot change: say which, without a hint across accounts.
  const message = await getMessage(ctx, scope, id);
  throw new ApiError("not_cancellable", notCancellableReason(message), "id");
}

/**
 * A message no delivery has taken yet: `scheduled`, or `queued` without a try (a retried one may
 * have parts a carrier accepted) and with no worker holding it. The one rule of every cancel.
 */
export function cancellable(eb: ExpressionBuilder<Database, "messages">, now: string) {
  return eb.and([
    eb("status", "in", ["scheduled", "queued"]),
    eb("attempts", "=", 0),
    eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]),
  ]);
}

/** What a cancel writes to a message: `cancelled`, out of the queue, its sealed text gone. */
export function cancelledColumns(now: string) {
  return {
    status: "cancelled",
    cancelled_at: now,
    updated_at: now,
    sealed: null,
    next_attempt_at: null,
    lease_until: null,
    lease_owner: null,
  } as const;
}

function notCancellableReason(message: MessageView): string {
  if (message.status === "cancelled") return `Message ${message.id} is already cancelled.`;
  if (message.status === "queued" || message.status === "scheduled") {
    return `Message ${message.id} is already being handed to a carrier and can no longer be cancelled.`;
  }
  return `Message ${message.id} is ${message.status}: it was already handed to a carrier and can no longer be cancelled.`;
}
