import type { AppContext } from "../context.js";
import { type BurstRunner, burstQueue } from "../db/transaction-bursts.js";
import type { ApiError } from "../errors.js";
import { queuePreparedSends } from "./queue-sends.js";
import type { RecipientScope } from "./recipient-cap.js";
import type { PreparedSms } from "./send.js";

interface BurstSend {
  scope: RecipientScope;
  sms: PreparedSms;
}

/**
 * SQLite: checked sends with no answer to store (POST /v2/sms/send without an Idempotency-Key)
 * that arrive in one turn of the event loop are queued in one transaction, as a batch's items
 * are (queue-sends.ts): per account and environment, one claim of their numbers, one guarded
 * count, one guarded debit, and multi-row inserts, where each send alone took a transaction of
 * five statements. Each is refused or queued as it would have been alone, in arrival order, and
 * answered once the transaction has committed (src/db/transaction-bursts.ts). Answers the send's
 * refusal, if it has one.
 */
export function queueInBurst(
  ctx: AppContext,
  scope: RecipientScope,
  sms: PreparedSms,
): Promise<ApiError | undefined> {
  return burstQueue(ctx, sendsInBurst).add({ scope, sms });
}

function sendsInBurst(ctx: AppContext): BurstRunner<BurstSend, ApiError | undefined> {
  return {
    groupOf: ({ scope }) => `${scope.accountId} ${scope.environment}`,
    run: (trx, sends) =>
      queuePreparedSends(
        trx,
        ctx,
        (sends[0] as BurstSend).scope,
        sends.map((send) => send.sms),
      ),
  };
}
