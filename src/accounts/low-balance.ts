import { type RawBuilder, sql } from "kysely";
import { recordAudit } from "../audit/record.js";
import { thresholdSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import { executeCompiled } from "../db/prepared.js";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { eventInsert, eventInsertFromRows } from "../events/outbox.js";
import type { Clock } from "../lib/clock.js";
import { formatInr, parseInr, UNITS_PER_RUPEE } from "../lib/money.js";

/*
 * Low-balance alerts (docs/money.md#low-balance-alerts). A balance may have a threshold; a charge
 * that takes it from at or above the threshold to below it sends one `balance.low` event, in the
 * charge's transaction. Then the alert is spent until credits (the operator's, a sandbox top-up)
 * bring the balance back to at least the threshold: a refund that lifts it back does not re-arm it.
 *
 * `balances.low_balance_alerted` is null while the alert is armed. A charge's guarded update
 * (src/accounts/ledger.ts) spends it in its own SET, reading the row as it stands under the row
 * lock, by writing the id of the event it is to send: the update answers the column, and only the
 * charge that finds its own id there sends the event. So the ordinary charge costs no statement
 * more, the one that crosses one (the event), and of any number of concurrent charges exactly
 * one sends it: on PostgreSQL an update that waited for the row re-reads its latest version.
 */

/** `low_balance_alerted` when the threshold was set with the balance already below it: nothing is sent for that dip. */
export const THRESHOLD_SET_BELOW = "threshold_set_below";

/** The most a threshold may be: the largest balance credits may reach (MAX_CREDITED_BALANCE). */
const MAX_THRESHOLD = 900_000_000_000 * UNITS_PER_RUPEE;

/**
 * The rule, as the guarded update's new `low_balance_alerted` (`balance` is the balance before
 * the change): credits (`rearms` 1) that bring the balance to the threshold or above re-arm the
 * alert; a change that takes the balance from at or above the threshold to below it spends an armed
 * alert on `alertId`; anything else, and every change of a balance without a threshold, leaves it.
 */
export function alertAfterChange(
  amount: unknown,
  alertId: unknown,
  rearms: unknown,
): RawBuilder<string | null> {
  return sql<string | null>`case
    when ${rearms} = 1 and balance + ${amount} >= low_balance_threshold then null
    when low_balance_alerted is null and balance >= low_balance_threshold
      and balance + ${amount} < low_balance_threshold then ${alertId}
    else low_balance_alerted end`;
}

/** A balance as its guarded update answers it: after the change. */
export interface MovedBalance {
  balance: number;
  low_balance_threshold: number | null;
  low_balance_alerted: string | null;
}

/**
 * Sends the `balance.low` event of a change whose update spent the alert on `alertId`, in the
 * change's transaction; nothing for any other change.
 */
export async function sendLowBalanceAlert(
  trx: DbOrTrx,
  clock: Clock,
  scope: { accountId: string; environment: Environment },
  alertId: string,
  moved: MovedBalance,
): Promise<void> {
  if (moved.low_balance_alerted !== alertId || moved.low_balance_threshold === null) return;
  const { insert } = eventInsert(
    trx,
    { clock },
    {
      id: alertId,
      ...scope,
      type: "balance.low",
      data: {
        balance: formatInr(Number(moved.balance)),
        threshold: formatInr(Number(moved.low_balance_threshold)),
      },
    },
  );
  await executeCompiled(trx, insert);
}

/**
 * `sendLowBalanceAlert` as a common table expression of a one-flight statement (PostgreSQL):
 * inserts the event when `moved`, the CTE of the guarded update, answers the alert spent on the
 * parameter `alertId`. The other placeholders name the statement's parameters.
 */
export function lowBalanceAlertInFlight(
  db: DbOrTrx,
  moved: string,
  placeholders: { alertId: string; accountId: string; environment: string; createdAt: string },
): string {
  return eventInsertFromRows(db, {
    ...placeholders,
    id: placeholders.alertId,
    type: "'balance.low'",
    data: `'{"balance":"' || ${inrInSql("balance")} || '","threshold":"' || ${inrInSql("low_balance_threshold")} || '"}'`,
    source: moved,
    where: `low_balance_alerted = ${placeholders.alertId} and low_balance_threshold is not null`,
  });
}

/** `formatInr` in SQL, of a non-negative integer column: `9000` → `0.9000`. */
function inrInSql(column: string): string {
  return `(${column} / ${UNITS_PER_RUPEE})::text || '.' || lpad((${column} % ${UNITS_PER_RUPEE})::text, 4, '0')`;
}

/** An environment's balance and its alert, as the console and the CLI show them. */
export interface LowBalanceView {
  environment: Environment;
  balance: string;
  /** Null: no alerts. */
  low_balance_threshold: string | null;
  /** Whether the balance is below its threshold now (the console's banner). */
  below_threshold: boolean;
}

function viewOf(
  environment: Environment,
  row: { balance: number; low_balance_threshold: number | null },
): LowBalanceView {
  const balance = Number(row.balance);
  const threshold = row.low_balance_threshold === null ? null : Number(row.low_balance_threshold);
  return {
    environment,
    balance: formatInr(balance),
    low_balance_threshold: threshold === null ? null : formatInr(threshold),
    below_threshold: threshold !== null && balance < threshold,
  };
}

export async function getLowBalance(
  db: DbOrTrx,
  accountId: string,
  environment: Environment,
): Promise<LowBalanceView> {
  const row = await db
    .selectFrom("balances")
    .select(["balance", "low_balance_threshold"])
    .where("account_id", "=", accountId)
    .where("environment", "=", environment)
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", `No account ${accountId}.`, "account");
  return viewOf(environment, row);
}

/** What a threshold may be, in words for an error message. */
export const THRESHOLD_RANGE = `above 0 and at most ${formatInr(MAX_THRESHOLD)}`;

/** A threshold as typed (`"1.00"`, INR as docs/money.md takes amounts) in 1/10,000 INR; undefined if it is none. */
export function parseThreshold(text: string): number | undefined {
  const threshold = parseInr(text);
  return threshold === undefined || threshold <= 0 || threshold > MAX_THRESHOLD ? undefined : threshold;
}

/**
 * Sets (or, with null, clears) an environment's threshold, in one statement. With the balance at
 * or above the new threshold the alert is armed; already below it, it is spent: nothing is sent
 * until credits lift the balance back to the threshold and a charge takes it below again.
 */
export async function setLowBalanceThreshold(
  ctx: Pick<AppContext, "db" | "clock" | "metrics">,
  scope: { accountId: string; environment: Environment },
  threshold: number | null,
  origin: ChangeOrigin,
): Promise<LowBalanceView> {
  return inTransaction(ctx, async (trx) => {
    const before = await trx
      .selectFrom("balances")
      .select("low_balance_threshold")
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .executeTakeFirst();
    if (!before) throw new ApiError("not_found", `No account ${scope.accountId}.`, "account");
    const row = await trx
      .updateTable("balances")
      .set({
        low_balance_threshold: threshold,
        low_balance_alerted:
          threshold === null
            ? null
            : sql<string | null>`case when balance < ${threshold} then ${THRESHOLD_SET_BELOW} end`,
      })
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .returning(["balance", "low_balance_threshold"])
      .executeTakeFirstOrThrow();
    await recordAudit(trx, ctx.clock, {
      accountId: scope.accountId,
      environment: scope.environment,
      origin,
      action: "low_balance_threshold.updated",
      target: { type: "balance", id: null },
      before: thresholdSnapshot(before.low_balance_threshold),
      after: thresholdSnapshot(row.low_balance_threshold),
    });
    return viewOf(scope.environment, row);
  });
}
