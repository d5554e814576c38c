import { applyLedgerCharges, chargeOf } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import { insertRows } from "../db/prepared.js";
import type { DbOrTrx } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { chargeAndQueue } from "./messages.js";
import {
  claimRecipients,
  countNewRecipient,
  countNewRecipients,
  forgetRecipients,
  holdRecipientCount,
  type RecipientScope,
  uncountRecipient,
} from "./recipient-cap.js";
import type { PreparedSms } from "./send.js";

/**
 * Counts, charges and queues sends of one account and environment that passed their checks, in
 * the caller's transaction and in order, each as POST /v2/sms/send takes one: its recipient
 * counted against the hourly cap, its cost debited, its message queued. Answers, for each send,
 * `undefined` when it was queued or the `ApiError` that refused it (past the cap, or a balance
 * that no longer covers it); a refused send leaves nothing behind, and does not stop the others.
 *
 * When nothing is refused, as nearly always, the sends are counted, charged and queued together,
 * in a handful of statements rather than a few each.
 */
export async function queuePreparedSends(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  sends: readonly PreparedSms[],
): Promise<Array<ApiError | undefined>> {
  // All the numbers first, in one statement and in sorted order, then the count, then the balance:
  // the lock order of every transaction that sends (src/accounts/ledger.ts).
  const fresh = await claimRecipients(
    trx,
    ctx,
    scope,
    sends.map((send) => send.row.recipient),
  );
  if (await chargeAndQueueAll(trx, ctx, scope, sends, fresh)) return sends.map(() => undefined);
  const { refusals, counted } = await chargeAndQueueEach(trx, ctx, scope, sends, fresh);
  await forgetRecipients(
    trx,
    ctx,
    scope,
    [...fresh].filter((number) => !counted.has(number)),
  );
  return refusals;
}

/**
 * Every send at once, when the cap takes all the new numbers and the balance covers every send:
 * one guarded count, one guarded debit, and the ledger entries and messages in multi-row
 * inserts, as the sends would have left them one by one. `false`, with nothing changed, when
 * either refuses: the sends then go one by one (`chargeAndQueueEach`).
 */
async function chargeAndQueueAll(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  sends: readonly PreparedSms[],
  fresh: ReadonlySet<string>,
): Promise<boolean> {
  if (!(await countNewRecipients(trx, ctx, scope, fresh.size))) return false;
  const rows = sends.map((send) => send.row);
  const charges = rows.filter((row) => row.cost > 0).map(chargeOf);
  if (!(await applyLedgerCharges(trx, ctx.clock, scope, charges))) {
    await uncountRecipient(trx, ctx, scope, fresh.size);
    return false;
  }
  await insertRows(trx, "messages", rows);
  return true;
}

/**
 * Each send on its own, in order: the numbers past the cap and the sends the balance no longer
 * covers are refused. Answers the refusals and the new numbers counted.
 */
async function chargeAndQueueEach(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  sends: readonly PreparedSms[],
  fresh: ReadonlySet<string>,
): Promise<{ refusals: Array<ApiError | undefined>; counted: Set<string> }> {
  const refusals: Array<ApiError | undefined> = [];
  const counted = new Set<string>();
  // A send charged here may come before a new number counted after it: the count is taken first.
  if (fresh.size > 0) await holdRecipientCount(trx, ctx, scope);
  for (const { row } of sends) {
    const to = row.recipient;
    const counts = fresh.has(to) && !counted.has(to);
    try {
      if (counts) await countNewRecipient(trx, ctx, scope);
      try {
        await chargeAndQueue(trx, ctx, row);
      } catch (error) {
        // The guarded debit refused it and wrote nothing (ledger.ts): only the count is undone.
        if (counts && error instanceof ApiError) await uncountRecipient(trx, ctx, scope);
        throw error;
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refusals.push(error);
      continue;
    }
    refusals.push(undefined);
    if (counts) counted.add(to);
  }
  return { refusals, counted };
}
