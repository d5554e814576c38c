import type { AppContext } from "../context.js";
import { findTemplates } from "../dlt/registry.js";
import { findSenders } from "../dlt/senders.js";
import { ApiError, type ErrorCode } from "../errors.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import type { KeyPrincipal } from "../keys/authenticate.js";
import { requireIndianMobile } from "../lib/phone.js";
import type { MessageView } from "../messages/store.js";
import { queueSends, type Refusals } from "./queue.js";
import { ctaWhitelistFor, prepareSms, withHeaderCase } from "./send.js";
import type { PreparedSms, SmsSendRequest } from "./types.js";

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
 * POST /v2/sms/batch (docs/sms-batch.md, docs/sms-batch.md): every item checked, priced, charged and
 * queued as POST /v2/sms/send would (send.ts's `prepareSms`, then queue.ts), each on its own: a
 * refused item does not stop the others.
 *
 * The registry is read once for the whole batch, and every accepted item is written in one
 * transaction, with the answer stored under the Idempotency-Key (`record`) last in it: a crash
 * leaves the whole batch or none of it, so each item is all-or-nothing and a retry replays the
 * answer. Within the transaction an item that is refused leaves nothing behind.
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

  const cta = await ctaWhitelistFor(ctx, accountId, templates.values());

  const checked: Array<MessageView | BatchItemError | undefined> = [];
  const prepared: Array<{ index: number; sms: PreparedSms }> = [];
  items.forEach((item, index) => {
    try {
      requireIndianMobile(item.to);
      const registry = {
        senderKnown: senders.has(item.sender),
        template: templates.get(item.template_id),
        cta,
      };
      const sms = prepareSms(ctx, principal, item, registry, true);
      prepared.push({ index, sms });
      checked.push(undefined);
    } catch (error) {
      checked.push(refusal(error));
    }
  });

  const scope = { accountId, environment: principal.environment };
  const sends = prepared.map(({ sms }) => sms);
  const answerOf = (refusals: Refusals) => {
    const data = [...checked];
    prepared.forEach(({ index, sms }, at) => {
      const refused = refusals[at];
      data[index] = refused ? refusal(refused) : sms.view;
    });
    return summarise(data as Array<MessageView | BatchItemError>);
  };
  const answer = answerOf(
    await queueSends(ctx, {
      scope,
      sends,
      batch: true,
      answer: record && ((trx, refusals) => record(trx, answerOf(refusals))),
    }),
  );
  if (answer.accepted > 0) {
    ctx.queue.notify();
    ctx.metrics.messagesAccepted("sms", principal.environment, answer.accepted);
  }
  return answer;
}

/** A refused item's entry: the `ApiError` a send threw, in the error envelope without a request id. */
export function refusal(error: unknown): BatchItemError {
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
