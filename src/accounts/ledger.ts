import { type Insertable, sql } from "kysely";
import { recordAudit } from "../audit/record.js";
import { balanceSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import { type FlightStatement, guardedAfter } from "../db/postgres/one-flight.js";
import { insertRows, prepareQuery } from "../db/prepared.js";
import { rowLimit } from "../db/row-limit.js";
import type { DbOrTrx, Environment, LedgerEntriesTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { formatInr } from "../lib/money.js";
import {
  alertAfterChange,
  lowBalanceAlertInFlight,
  type MovedBalance,
  sendLowBalanceAlert,
} from "./low-balance.js";

/*
 * The lock order (docs/money.md). On PostgreSQL a transaction that sends (an SMS, a batch, an
 * OTP; by itself, or in a flight, src/db/postgres/flight-lanes.ts) holds every row it writes until it
 * commits, so two that took shared rows in opposite orders would deadlock. Every one takes its
 * rows in this order, and only touches again rows it already holds:
 *
 *   1. the rows of its recipients, in the order of their numbers: a number's row for the hourly
 *      recipient cap (src/sms/recipient-cap.ts), its pending OTP and its OTP send counter;
 *   2. the account's counters, in the order of their keys: its OTP sends this hour
 *      (`otp-sends:…`), its count of SMS recipients this hour (`sms-recipients:…`);
 *   3. the balance, last: every send that costs something takes it, so whoever holds it waits
 *      for no other row of the account.
 */

/**
 * The most credits may bring a balance to: ₹900,000,000,000.0000. Balances are JavaScript numbers
 * of 1/10,000 INR, exact only up to 2^53 − 1 (Number.MAX_SAFE_INTEGER, about ₹900,719,925,474),
 * and no change may ever take a balance past that. The gap between the two (about ₹719 million)
 * lets refunds of charges made near the maximum go through.
 */
export const MAX_CREDITED_BALANCE = 9_000_000_000_000_000;

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

/** A debit: `amount` negative, in 1/10,000 INR. */
export type LedgerCharge = Pick<LedgerChange, "amount" | "reason" | "reference">;

export interface LedgerEntry {
  id: string;
  amount: number;
  balanceAfter: number;
  createdAt: string;
}

/** How a credit differs from other changes: it may go up to a ceiling, and it re-arms the low-balance alert. */
export interface CreditTerms {
  /** The most the balance may reach. */
  ceiling: number;
  /** Credits bought or granted re-arm the alert (src/accounts/low-balance.ts); refunds do not. */
  rearmsLowBalanceAlert: boolean;
}

const PLAIN_CHANGE: CreditTerms = { ceiling: Number.MAX_SAFE_INTEGER, rearmsLowBalanceAlert: false };

/**
 * Moves a balance and records why, inside the caller's transaction, so the change commits or
 * rolls back with whatever it pays for. The update is guarded, so concurrent changes cannot step
 * over either bound: a debit the balance cannot cover changes nothing and throws
 * `insufficient_balance`; a change that would take the balance past `terms.ceiling` changes
 * nothing and throws `invalid_request` (`param` `amount`). A debit that takes the balance below
 * its threshold sends `balance.low` in the same transaction (src/accounts/low-balance.ts).
 */
export async function applyLedgerChange(
  trx: DbOrTrx,
  clock: AppContext["clock"],
  change: LedgerChange,
  terms: CreditTerms = PLAIN_CHANGE,
): Promise<LedgerEntry> {
  if (!Number.isSafeInteger(change.amount) || change.amount === 0) {
    throw new RangeError(`ledger amount must be a non-zero integer, got ${change.amount}`);
  }
  const { ceiling } = terms;
  const now = isoNow(clock);
  const alertId = change.amount < 0 ? newId("evt") : null;
  const [updated] = (
    await moveBalance.execute(trx, {
      amount: change.amount,
      ceiling,
      now,
      accountId: change.accountId,
      environment: change.environment,
      alertId,
      rearms: terms.rearmsLowBalanceAlert ? 1 : 0,
    })
  ).rows;
  if (!updated) {
    const current = await trx
      .selectFrom("balances")
      .select("balance")
      .where("account_id", "=", change.accountId)
      .where("environment", "=", change.environment)
      .executeTakeFirst();
    if (!current) throw new ApiError("not_found", `No account ${change.accountId}.`, "account");
    if (change.amount > 0) {
      throw new ApiError(
        "invalid_request",
        `The ${change.environment} balance cannot go above ₹${formatInr(ceiling)}.`,
        "amount",
      );
    }
    // Only what the key may see anyway: its own environment's balance (GET /v2/balance) and this price.
    throw new ApiError(
      "insufficient_balance",
      `The ${change.environment} balance is ₹${formatInr(Number(current.balance))} and this costs ₹${formatInr(-change.amount)}; add credits to send it.`,
    );
  }
  if (alertId !== null) await sendLowBalanceAlert(trx, clock, change, alertId, updated);
  const entry: LedgerEntry = {
    id: newId("led"),
    amount: change.amount,
    balanceAfter: Number(updated.balance),
    createdAt: now,
  };
  await insertEntry.execute(trx, {
    id: entry.id,
    account_id: change.accountId,
    environment: change.environment,
    amount: change.amount,
    balance_after: entry.balanceAfter,
    reason: change.reason,
    reference: change.reference,
    created_at: now,
  });
  return entry;
}

/**
 * Debits several charges of one balance at once, in the caller's transaction: one guarded update
 * by their sum, and an entry for each, in order, as if each had been applied on its own (each
 * entry's `balance_after` is the balance after it and every charge before it), and, if their
 * sum takes the balance below its threshold, one `balance.low`. Answers `false`, having changed
 * nothing, when the balance cannot cover them all.
 */
export async function applyLedgerCharges(
  trx: DbOrTrx,
  clock: AppContext["clock"],
  scope: { accountId: string; environment: Environment },
  charges: readonly LedgerCharge[],
): Promise<boolean> {
  if (charges.length === 0) return true;
  let total = 0;
  for (const { amount } of charges) {
    if (!Number.isSafeInteger(amount) || amount >= 0) {
      throw new RangeError(`a charge must be a negative integer, got ${amount}`);
    }
    total += amount;
  }
  const now = isoNow(clock);
  const alertId = newId("evt");
  const [updated] = (
    await moveBalance.execute(trx, {
      amount: total,
      ceiling: Number.MAX_SAFE_INTEGER,
      now,
      accountId: scope.accountId,
      environment: scope.environment,
      alertId,
      rearms: 0,
    })
  ).rows;
  if (!updated) return false;
  await sendLowBalanceAlert(trx, clock, scope, alertId, updated);
  let balance = Number(updated.balance) - total;
  const entries = charges.map((charge): Insertable<LedgerEntriesTable> => {
    balance += charge.amount;
    return {
      id: newId("led"),
      account_id: scope.accountId,
      environment: scope.environment,
      amount: charge.amount,
      balance_after: balance,
      reason: charge.reason,
      reference: charge.reference,
      created_at: now,
    };
  });
  await insertRows(trx, "ledger_entries", entries);
  return true;
}

/** The alert's insert of `chargeInOneFlight` by the text of its update (the same on every call): built once. */
const alertsInFlight = new Map<string, string>();

/**
 * `applyLedgerCharges` of one charge as a statement of a one-flight transaction (PostgreSQL,
 * src/db/postgres/one-flight.ts): the same guarded update, its ledger entry and, when it takes the
 * balance below its threshold, its `balance.low` event, in one statement; refused as
 * `insufficient_balance` when the balance does not cover it (or there is none), changing nothing.
 */
export function chargeInOneFlight(
  db: DbOrTrx,
  scope: { accountId: string; environment: Environment },
  charge: LedgerCharge,
  createdAt: string,
): FlightStatement {
  if (!Number.isSafeInteger(charge.amount) || charge.amount >= 0) {
    throw new RangeError(`a charge must be a negative integer, got ${charge.amount}`);
  }
  const alertId = newId("evt");
  const debit = moveBalance.compile(db, {
    amount: charge.amount,
    ceiling: Number.MAX_SAFE_INTEGER,
    now: createdAt,
    accountId: scope.accountId,
    environment: scope.environment,
    alertId,
    rearms: 0,
  });
  // The statement's own parameters follow the update's.
  const parameters = [...debit.parameters];
  const placeholder = (value: unknown): string => `$${parameters.push(value)}`;
  const alert = placeholder(alertId);
  const account = placeholder(scope.accountId);
  const environment = placeholder(scope.environment);
  const at = placeholder(createdAt);
  let alerted = alertsInFlight.get(debit.sql);
  if (alerted === undefined) {
    alerted = lowBalanceAlertInFlight(db, "debit", {
      alertId: alert,
      accountId: account,
      environment,
      createdAt: at,
    });
    alertsInFlight.set(debit.sql, alerted);
  }
  return guardedAfter(
    `debit as (${debit.sql}), alerted as (${alerted}),`,
    `insert into ledger_entries (id, account_id, environment, amount, balance_after, reason, reference, created_at)
      select ${placeholder(newId("led"))}, ${account}, ${environment}, ${placeholder(charge.amount)}, balance,
        ${placeholder(charge.reason)}, ${placeholder(charge.reference)}, ${at} from debit
      returning 1`,
    parameters,
    "insufficient_balance",
  );
}

/** What a queued message costs, as its debit: `<channel>_charge`, referencing the message. */
export function chargeOf(message: { id: string; channel: string; cost: number }): LedgerCharge {
  return { amount: -message.cost, reason: `${message.channel}_charge`, reference: message.id };
}

/**
 * Gives `amount` of a message's charge back, as `<channel>_refund` referencing the message, in
 * the caller's transaction (the one that ends the message, so it happens once). Nothing for 0.
 */
export async function refundMessage(
  trx: DbOrTrx,
  clock: AppContext["clock"],
  message: { id: string; account_id: string; environment: Environment; channel: string },
  amount: number,
): Promise<void> {
  if (amount <= 0) return;
  await applyLedgerChange(trx, clock, {
    accountId: message.account_id,
    environment: message.environment,
    amount,
    reason: `${message.channel}_refund`,
    reference: message.id,
  });
}

interface BalanceMove {
  amount: number;
  ceiling: number;
  now: string;
  accountId: string;
  environment: Environment;
  /** The id of the `balance.low` event this change would send (debits); null for credits and refunds. */
  alertId: string | null;
  /** 1 for credits bought or granted, which re-arm the low-balance alert; else 0. */
  rearms: 0 | 1;
}

/**
 * The guarded update: it changes nothing, and returns no row, if the balance would leave [0, ceiling].
 * It also keeps the low-balance alert's state (src/accounts/low-balance.ts).
 */
const moveBalance = prepareQuery<BalanceMove, MovedBalance>((db, param) =>
  db
    .updateTable("balances")
    .set({
      balance: sql`balance + ${param("amount")}`,
      updated_at: param("now"),
      low_balance_alerted: alertAfterChange(param("amount"), param("alertId"), param("rearms")),
    })
    .where("account_id", "=", param("accountId"))
    .where("environment", "=", param("environment"))
    .where(sql<boolean>`balance + ${param("amount")} >= 0`)
    .where(sql<boolean>`balance + ${param("amount")} <= ${param("ceiling")}`)
    .returning(["balance", "low_balance_threshold", "low_balance_alerted"]),
);

const insertEntry = prepareQuery<Insertable<LedgerEntriesTable>, never>((db, param) =>
  db.insertInto("ledger_entries").values({
    id: param("id"),
    account_id: param("account_id"),
    environment: param("environment"),
    amount: param("amount"),
    balance_after: param("balance_after"),
    reason: param("reason"),
    reference: param("reference"),
    created_at: param("created_at"),
  }),
);

/** A ledger change in a transaction of its own. */
export function changeBalance(ctx: AppContext, change: LedgerChange): Promise<LedgerEntry> {
  return inTransaction(ctx, (trx) => applyLedgerChange(trx, ctx.clock, change));
}

/**
 * Credits bought or granted (the operator's `credits add`, the dashboard's sandbox top-up), in a
 * transaction of their own with their audit row. They may bring the balance up to
 * MAX_CREDITED_BALANCE and no further, and re-arm the low-balance alert when they bring it to its
 * threshold or above.
 */
export function addCredits(
  ctx: AppContext,
  credit: LedgerChange,
  origin: ChangeOrigin,
): Promise<LedgerEntry> {
  if (credit.amount <= 0) throw new RangeError(`credits must be positive, got ${credit.amount}`);
  return inTransaction(ctx, async (trx) => {
    const entry = await applyLedgerChange(trx, ctx.clock, credit, {
      ceiling: MAX_CREDITED_BALANCE,
      rearmsLowBalanceAlert: true,
    });
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

const balanceOf = prepareQuery<{ accountId: string; environment: Environment }, { balance: number }>(
  (db, param) =>
    db
      .selectFrom("balances")
      .select("balance")
      .where("account_id", "=", param("accountId"))
      .where("environment", "=", param("environment")),
);

export async function getBalance(db: DbOrTrx, accountId: string, environment: Environment): Promise<number> {
  const [row] = (await balanceOf.execute(db, { accountId, environment })).rows;
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

/** A ledger entry as the operator's `balance` command shows it: signed amounts in INR. */
export interface LedgerEntryView {
  id: string;
  amount: string;
  balance_after: string;
  reason: string;
  reference: string | null;
  created_at: string;
}

/** The `limit` latest entries of an account's ledger for one environment, newest first. */
export async function latestLedgerEntries(
  db: DbOrTrx,
  accountId: string,
  environment: Environment,
  limit: number,
): Promise<LedgerEntryView[]> {
  return (await ledgerEntriesPage(db, { accountId, environment }, { limit })).data;
}

/** Where a page of the ledger starts: the entry shown last on the page before. */
export interface LedgerCursor {
  created_at: string;
  id: string;
}

export interface LedgerPageFilter {
  /** Entries created at or after this time (UTC ISO). */
  createdAfter?: string | undefined;
  /** Entries created before this time (UTC ISO). */
  createdBefore?: string | undefined;
  /** Entries after this one, newest first. */
  cursor?: LedgerCursor | undefined;
  limit: number;
}

/**
 * One page of an environment's ledger, newest first, ordered by (created_at, id): the entries of
 * one transaction share a time, and page without gaps or repeats. Read along
 * ledger_entries_account_idx (account_id, environment, created_at).
 */
export async function ledgerEntriesPage(
  db: DbOrTrx,
  scope: { accountId: string; environment: Environment },
  filter: LedgerPageFilter,
): Promise<{ data: LedgerEntryView[]; has_more: boolean; cursor: LedgerCursor | undefined }> {
  let query = db
    .selectFrom("ledger_entries")
    .select(["id", "amount", "balance_after", "reason", "reference", "created_at"])
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment);
  if (filter.createdAfter !== undefined) query = query.where("created_at", ">=", filter.createdAfter);
  if (filter.createdBefore !== undefined) query = query.where("created_at", "<", filter.createdBefore);
  const { cursor } = filter;
  if (cursor !== undefined) {
    // The first bound lets the index stop the scan at the cursor's time; the tuple settles ties.
    query = query
      .where("created_at", "<=", cursor.created_at)
      .where((eb) => eb(eb.refTuple("created_at", "id"), "<", eb.tuple(cursor.created_at, cursor.id)));
  }
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(rowLimit(filter.limit + 1))
    .execute();
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    data: page.map((row) => ({
      ...row,
      amount: formatInr(Number(row.amount)),
      balance_after: formatInr(Number(row.balance_after)),
    })),
    has_more: rows.length > filter.limit,
    cursor: last && { created_at: last.created_at, id: last.id },
  };
}

/** Where an entry stands in its environment's ledger; undefined if it is not one of its entries. */
export async function ledgerCursorOf(
  db: DbOrTrx,
  scope: { accountId: string; environment: Environment },
  id: string,
): Promise<LedgerCursor | undefined> {
  return db
    .selectFrom("ledger_entries")
    .select(["created_at", "id"])
    .where("id", "=", id)
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .executeTakeFirst();
}

/** The message a charge or refund (chargeOf, refundMessage) paid for or gave back; null for other entries. */
export function messageOfEntry(entry: { reason: string; reference: string | null }): string | null {
  return /^(sms|whatsapp|voice)_(charge|refund)$/.test(entry.reason) ? entry.reference : null;
}
