import { recordAudit } from "../audit/record.js";
import { accountSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { parseTmChain } from "../dlt/tm-chain.js";
import { ApiError } from "../errors.js";
import { type LowBalanceView, setLowBalanceThreshold } from "./low-balance.js";

/** An account as the operator's `account update` shows it. */
export interface AccountView {
  id: string;
  email: string;
  created_at: string;
  /** A bank, NBFC, broker or insurer: voice OTPs call only from a 1600-series number (docs/otp.md#voice-caller-id). */
  bfsi: boolean;
  /** Its own PE–TM chain, overriding its routes' (docs/dlt-compliance.md#pe-tm-chain-hash); null: theirs. */
  tm_chain: string[] | null;
  /** After a change of an environment's low-balance threshold: that balance and its alert. */
  low_balance?: LowBalanceView;
}

/** What the operator may change of an account; each field left out stays as it is. */
export interface AccountChanges {
  bfsi?: boolean;
  /** Telemarketer ids after the PE, in order; null or an empty list: the routes' chain again. */
  tmChain?: readonly string[] | null;
  /** The low-balance threshold of one environment's balance, in 1/10,000 INR; null: no alerts. */
  lowBalanceThreshold?: { environment: Environment; threshold: number | null };
}

/** The account `accountId`; `not_found` (param `account`) if there is none. */
export async function getAccount(db: DbOrTrx, accountId: string): Promise<AccountView> {
  const row = await db
    .selectFrom("accounts")
    .select(["id", "email", "created_at", "bfsi", "tm_chain"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", `No account ${accountId}.`, "account");
  return {
    id: row.id,
    email: row.email,
    created_at: row.created_at,
    bfsi: Number(row.bfsi) === 1,
    tm_chain: chainOf(row.tm_chain) ?? null,
  };
}

/** Applies `changes` to the account and answers it as it now is. */
export async function updateAccount(
  ctx: AppContext,
  accountId: string,
  changes: AccountChanges,
  origin: ChangeOrigin,
): Promise<AccountView> {
  const set: { bfsi?: number; tm_chain?: string | null } = {};
  if (changes.bfsi !== undefined) set.bfsi = changes.bfsi ? 1 : 0;
  if (changes.tmChain !== undefined) set.tm_chain = storedChain(changes.tmChain);
  if (Object.keys(set).length > 0) {
    await inTransaction(ctx, async (trx) => {
      const before = await getAccount(trx, accountId);
      await trx.updateTable("accounts").set(set).where("id", "=", accountId).execute();
      const after = await getAccount(trx, accountId);
      await recordAudit(trx, ctx.clock, {
        accountId,
        environment: null,
        origin,
        action: "account.updated",
        target: { type: "account", id: accountId },
        before: accountSnapshot(before),
        after: accountSnapshot(after),
      });
    });
    // Sends read the flag with the OTP settings, and delivery the chain, through the cache.
    ctx.settingsCache.forget(accountId);
  }
  const view = await getAccount(ctx.db, accountId);
  if (changes.lowBalanceThreshold !== undefined) {
    const { environment, threshold } = changes.lowBalanceThreshold;
    view.low_balance = await setLowBalanceThreshold(ctx, { accountId, environment }, threshold, origin);
  }
  return view;
}

/** Whether the account is marked BFSI (false for an unknown account). */
export async function isBfsiAccount(db: DbOrTrx, accountId: string): Promise<boolean> {
  const row = await db.selectFrom("accounts").select("bfsi").where("id", "=", accountId).executeTakeFirst();
  return Number(row?.bfsi ?? 0) === 1;
}

/**
 * The account's own PE–TM chain as delivery reads it: through the settings cache, so a worker
 * asks the database once per account every half second at most, not once per message.
 */
export function accountTmChain(ctx: AppContext, accountId: string): Promise<readonly string[] | undefined> {
  return ctx.settingsCache.read(accountId, "tm_chain", async () => {
    const row = await ctx.db
      .selectFrom("accounts")
      .select("tm_chain")
      .where("id", "=", accountId)
      .executeTakeFirst();
    return chainOf(row?.tm_chain ?? null);
  });
}

/** A chain to store: checked (`invalid_request`, param `tm_chain`), or null to use the routes'. */
function storedChain(ids: readonly string[] | null): string | null {
  if (ids === null || ids.length === 0) return null;
  const parsed = parseTmChain(ids);
  if ("problem" in parsed) throw new ApiError("invalid_request", `${parsed.problem}.`, "tm_chain");
  return JSON.stringify(parsed.chain);
}

function chainOf(stored: string | null): string[] | undefined {
  return stored === null ? undefined : (JSON.parse(stored) as string[]);
}
