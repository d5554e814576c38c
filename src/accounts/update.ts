import type { AppContext } from "../context.js";
import type { DbOrTrx } from "../db/schema.js";
import { ApiError } from "../errors.js";

/** An account as the operator's `account update` shows it. */
export interface AccountView {
  id: string;
  email: string;
  created_at: string;
  /** A bank, NBFC, broker or insurer: voice OTPs call only from a 1600-series number (docs/otp.md#voice-caller-id). */
  bfsi: boolean;
}

/** What the operator may change of an account; each field left out stays as it is. */
export interface AccountChanges {
  bfsi?: boolean;
}

/** The account `accountId`; `not_found` (param `account`) if there is none. */
export async function getAccount(db: DbOrTrx, accountId: string): Promise<AccountView> {
  const row = await db
    .selectFrom("accounts")
    .select(["id", "email", "created_at", "bfsi"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", `No account ${accountId}.`, "account");
  return { id: row.id, email: row.email, created_at: row.created_at, bfsi: Number(row.bfsi) === 1 };
}

/** Applies `changes` to the account and answers it as it now is. */
export async function updateAccount(
  ctx: AppContext,
  accountId: string,
  changes: AccountChanges,
): Promise<AccountView> {
  if (changes.bfsi !== undefined) {
    const updated = await ctx.db
      .updateTable("accounts")
      .set({ bfsi: changes.bfsi ? 1 : 0 })
      .where("id", "=", accountId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      throw new ApiError("not_found", `No account ${accountId}.`, "account");
    }
    // Sends read the flag with the OTP settings, through the cache.
    ctx.settingsCache.forget(accountId);
  }
  return getAccount(ctx.db, accountId);
}

/** Whether the account is marked BFSI (false for an unknown account). */
export async function isBfsiAccount(db: DbOrTrx, accountId: string): Promise<boolean> {
  const row = await db.selectFrom("accounts").select("bfsi").where("id", "=", accountId).executeTakeFirst();
  return Number(row?.bfsi ?? 0) === 1;
}
