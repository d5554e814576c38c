import { sql } from "kysely";
import { isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { newId } from "../ids.js";

export interface LedgerChange {
  accountId: string;
  environment: Environment;
  /** Signed 1/10,000 INR: positive credits, negative debits. */
  amount: number;
  /** Why the balance moved, e.g. `credit_purchase`, `sms_charge`, `sms_refund`. */
  reason: string;
  /** What the change pays for or came from (a message id, an invoice); `null` if nothing. */
  reference: string | null;
}

export interface LedgerEntry {
  id: string;
  amount: number;
  balanceAfter: number;
  createdAt: string;
}

/**
 * Moves a balance and records why, inside the caller's transaction, so the change commits or
 * rolls back with whatever it pays for. The update is guarded: a debit the balance cannot cover
 * changes nothing and throws `insufficient_balance`.
 */
export async function applyLedgerChange(
  trx: DbOrTrx,
  clock: AppContext["clock"],
  change: LedgerChange,
): Promise<LedgerEntry> {
  if (!Number.isSafeInteger(change.amount) || change.amount === 0) {
    throw new RangeError(`ledger amount must be a non-zero integer, got ${change.amount}`);
  }
  const now = isoNow(clock);
  const updated = await trx
    .updateTable("balances")
    .set({ balance: sql`balance + ${change.amount}`, updated_at: now })
    .where("account_id", "=", change.accountId)
    .where("environment", "=", change.environment)
    .where(sql<boolean>`balance + ${change.amount} >= 0`)
    .returning("balance")
    .executeTakeFirst();
  if (!updated) {
    const exists = await trx
      .selectFrom("balances")
      .select("account_id")
      .where("account_id", "=", change.accountId)
      .where("environment", "=", change.environment)
      .executeTakeFirst();
    if (!exists) throw new ApiError("not_found", `No account ${change.accountId}.`, "account");
    throw new ApiError("insufficient_balance", `The ${change.environment} balance cannot pay for this.`);
  }
  const entry: LedgerEntry = {
    id: newId("led"),
    amount: change.amount,
    balanceAfter: Number(updated.balance),
    createdAt: now,
  };
  await trx
    .insertInto("ledger_entries")
    .values({
      id: entry.id,
      account_id: change.accountId,
      environment: change.environment,
      amount: change.amount,
      balance_after: entry.balanceAfter,
      reason: change.reason,
      reference: change.reference,
      created_at: now,
    })
    .execute();
  return entry;
}

/** A ledger change in a transaction of its own. */
export function changeBalance(ctx: AppContext, change: LedgerChange): Promise<LedgerEntry> {
  return ctx.db.transaction().execute((trx) => applyLedgerChange(trx, ctx.clock, change));
}

export async function getBalance(db: DbOrTrx, accountId: string, environment: Environment): Promise<number> {
  const row = await db
    .selectFrom("balances")
    .select("balance")
    .where("account_id", "=", accountId)
    .where("environment", "=", environment)
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", `No account ${accountId}.`, "account");
  return Number(row.balance);
}

/** The sum of an account's ledger for one environment; always equal to its balance. */
export async function sumLedger(db: DbOrTrx, accountId: string, environment: Environment): Promise<number> {
  const row = await db
    .selectFrom("ledger_entries")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>("amount"), sql<number>`0`).as("total"))
    .where("account_id", "=", accountId)
    .where("environment", "=", environment)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
