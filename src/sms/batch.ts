import { applyLedgerCharges } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import { insertRows } from "../db/prepared.js";
import type { DbOrTrx } from "../db/schema.js";
import { findSenders, findTemplates } from "../dlt/registry.js";
import { ApiError, type ErrorCode } from "../errors.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import type { KeyPrincipal } from "../keys/authenticate.js";
import { requireIndianMobile } from "../phone.js";
import { chargeAndQueue, type MessageView } from "./messages.js";
import {
  claimRecipients,
  countNewRecipient,
  countNewRecipients,
  forgetRecipients,
  uncountRecipient,
} from "./recipient-cap.js";
import { type PreparedSms, prepareSms, type SmsSendRequest, withHeaderCase } from "./send.js";

export const MAX_BATCH_MESSAGES = 1_000;
/** The batch route's body limit; every other route keeps the server's 16 KiB. */
export const BATCH_BODY_LIMIT_BYTES = 1024 * 1024;

export interface SmsBatchRequest {
  messages: SmsSendRequest[];
}

/** A refused item: the error a single send would have answered, without the request id. */
export interface BatchItemError {
  error: { code: ErrorCode; message: string; param?: string; retry_after?: number };
}

export interface SmsBatchAnswer {
  data: Array<MessageView | BatchItemError>;
  accepted: number;
  rejected: number;
}

/**
 * POST /v2/sms/batch (API.md §4a, docs/sms-batch.md): every item checked, priced, charged and
 * queued as POST /v2/sms/send would (send.ts's `prepareSms`, recipient-cap.ts, `chargeAndQueue`),
 * each on its own: a refused item does not stop the others.
 *
 * The registry is read once for the whole batch, and every accepted item is written in one
 * transaction, with the answer stored under the Idempotency-Key (`record`) last in it: a crash
 * leaves the whole batch or none of it, so each item is all-or-nothing and a retry replays the
 * answer. Within the transaction an item that is refused leaves nothing behind: its recipient
 * count is taken back, and the guarded debit that refuses it changes nothing. When nothing is
 * refused, as nearly always, the items are counted, charged and queued together, in a handful of
 * statements rather than a few per item.
 */
export async function sendSmsBatch(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: SmsBatchRequest,
  record?: RecordAnswer<SmsBatchAnswer>,
): Promise<SmsBatchAnswer> {
  const { accountId } = principal;
  const items = request.messages.map(withHeaderCase);
  const [senders, templates] = await Promise.all([
    findSenders(
      ctx.db,
      accountId,
      items.map((item) => item.sender),
    ),
    findTemplates(
      ctx.db,
      accountId,
      items.map((item) => item.template_id),
    ),
  ]);

  const checked: Array<MessageView | BatchItemError | undefined> = [];
  const prepared: Array<{ index: number; sms: PreparedSms }> = [];
  items.forEach((item, index) => {
    try {
      requireIndianMobile(item.to);
      const sms = prepareSms(ctx, principal, item, {
        senderKnown: senders.has(item.sender),
        template: templates.get(item.template_id),
      });
      prepared.push({ index, sms });
      checked.push(undefined);
    } catch (error) {
      checked.push(refusal(error));
    }
  });

  const answer = await ctx.db.transaction().execute(async (trx) => {
    const data = [...checked];
    // All the batch's numbers first, in one statement and in sorted order: concurrent batches
    // and sends then take their row locks in one order (recipient-cap.ts).
    const fresh = await claimRecipients(
      trx,
      ctx,
      principal,
      prepared.map(({ sms }) => sms.row.recipient),
    );
    const counted = (await chargeAndQueueAll(trx, ctx, principal, prepared, fresh))
      ? new Set(fresh)
      : await chargeAndQueueEach(trx, ctx, principal, prepared, fresh, data);
    for (const { index, sms } of prepared) data[index] ??= sms.view;
    await forgetRecipients(
      trx,
      ctx,
      principal,
      [...fresh].filter((number) => !counted.has(number)),
    );
    const result = summarise(data as Array<MessageView | BatchItemError>);
    await record?.(trx, result);
    return result;
  });
  if (answer.accepted > 0) {
    ctx.queue.notify();
    ctx.metrics.messagesAccepted("sms", principal.environment, answer.accepted);
  }
  return answer;
}

type PreparedItem = { index: number; sms: PreparedSms };

/**
 * Every item at once, when the cap takes all the new numbers and the balance covers every item
 * (nearly always): one guarded count, one guarded debit, and the ledger entries and messages in
 * multi-row inserts, as the items would have left them one by one. `false`, with nothing
 * changed, when either refuses: the items then go one by one (`chargeAndQueueEach`).
 */
async function chargeAndQueueAll(
  trx: DbOrTrx,
  ctx: AppContext,
  principal: KeyPrincipal,
  prepared: readonly PreparedItem[],
  fresh: ReadonlySet<string>,
): Promise<boolean> {
  if (!(await countNewRecipients(trx, ctx, principal, fresh.size))) return false;
  const rows = prepared.map(({ sms }) => sms.row);
  const charges = rows
    .filter((row) => row.cost > 0)
    .map((row) => ({ amount: -row.cost, reason: `${row.channel}_charge`, reference: row.id }));
  if (!(await applyLedgerCharges(trx, ctx.clock, principal, charges))) {
    await uncountRecipient(trx, ctx, principal, fresh.size);
    return false;
  }
  await insertRows(trx, "messages", rows);
  return true;
}

/**
 * Each item on its own, in request order, as POST /v2/sms/send would take it: the numbers past
 * the cap and the items the balance no longer covers are refused in `data`. Answers the new
 * numbers counted.
 */
async function chargeAndQueueEach(
  trx: DbOrTrx,
  ctx: AppContext,
  principal: KeyPrincipal,
  prepared: readonly PreparedItem[],
  fresh: ReadonlySet<string>,
  data: Array<MessageView | BatchItemError | undefined>,
): Promise<Set<string>> {
  const counted = new Set<string>();
  for (const { index, sms } of prepared) {
    const to = sms.row.recipient;
    const counts = fresh.has(to) && !counted.has(to);
    try {
      if (counts) await countNewRecipient(trx, ctx, principal);
      try {
        await chargeAndQueue(trx, ctx, sms.row);
      } catch (error) {
        // The guarded debit refused it and wrote nothing (ledger.ts): only the count is undone.
        if (counts && error instanceof ApiError) await uncountRecipient(trx, ctx, principal);
        throw error;
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      data[index] = refusal(error);
      continue;
    }
    if (counts) counted.add(to);
  }
  return counted;
}

function refusal(error: unknown): BatchItemError {
  if (!(error instanceof ApiError)) throw error;
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      ...(error.retryAfter === undefined ? {} : { retry_after: error.retryAfter }),
    },
  };
}

function summarise(data: Array<MessageView | BatchItemError>): SmsBatchAnswer {
  const rejected = data.filter((item) => "error" in item).length;
  return { data, accepted: data.length - rejected, rejected };
}
