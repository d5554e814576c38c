import { recordAudit } from "../audit/record.js";
import { balanceSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import { inTransaction } from "../db/transaction.js";
import { applyLedgerChange, type LedgerChange, type LedgerEntry, MAX_CREDITED_BALANCE } from "./ledger.js";

/**
 * Credits bought or granted (the operator's `credits add`, the console's sandbox top-up) and
 * their audit row, in one transaction. They may bring the balance up to MAX_CREDITED_BALANCE and
 * no further.
 */
export function grantCredits(
  ctx: AppContext,
  credit: LedgerChange,
  origin: ChangeOrigin,
): Promise<LedgerEntry> {
  if (credit.amount <= 0) throw new RangeError(`credits must be positive, got ${credit.amount}`);
  return inTransaction(ctx, async (trx) => {
    const entry = await applyLedgerChange(trx, ctx.clock, credit, MAX_CREDITED_BALANCE);
    await recordAudit(trx, ctx.clock, {
      accountId: credit.accountId,
      environment: credit.environment,
      origin,
      action: "credits.added",
      target: { type: "balance", id: entry.id },
      before: balanceSnapshot({ balance: entry.balanceAfter - credit.amount }),
      after: balanceSnapshot({
        balance: entry.balanceAfter,
        amount: credit.amount,
        reference: credit.reference,
      }),
    });
    return entry;
  });
}
