import type { AppContext } from "../context.js";
import { lockForUpdate } from "../db/locks.js";
import { rowLimit } from "../db/row-limit.js";
import { type DbOrTrx, ENVIRONMENTS, type Environment } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { formatInr } from "../lib/money.js";
import { emailTaken, hashPassword, normaliseEmail } from "../members/credentials.js";
import { insertOwner, memberWithEmail } from "../members/members.js";

export interface Account {
  id: string;
  email: string;
  createdAt: string;
}

/**
 * Creates an account with zero live and sandbox balances, and its owner, who signs in with this
 * email and password (kept as an argon2id hash).
 */
export async function createAccount(
  ctx: AppContext,
  input: { email: string; password: string },
): Promise<Account> {
  return insertAccount(ctx, input, { onlyIfFirst: false });
}

/**
 * Creates the installation's first account, as the dashboard's set-up does; once any account
 * exists, `already_set_up`. Two set-ups at once create one account.
 */
export async function createFirstAccount(
  ctx: AppContext,
  input: { email: string; password: string },
): Promise<Account> {
  if (!(await hasNoAccounts(ctx.db))) throw alreadySetUp();
  return insertAccount(ctx, input, { onlyIfFirst: true });
}

/** Whether the installation has no account yet. */
export async function hasNoAccounts(db: DbOrTrx): Promise<boolean> {
  return (await db.selectFrom("accounts").select("id").limit(rowLimit(1)).executeTakeFirst()) === undefined;
}

async function insertAccount(
  ctx: AppContext,
  input: { email: string; password: string },
  options: { onlyIfFirst: boolean },
): Promise<Account> {
  const email = normaliseEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const account: Account = { id: newId("acct"), email, createdAt: isoNow(ctx.clock) };
  await inTransaction(ctx, async (trx) => {
    if (options.onlyIfFirst) {
      await lockForUpdate(trx, ctx.dialect, "accounts:first");
      if (!(await hasNoAccounts(trx))) throw alreadySetUp();
    }
    await lockForUpdate(trx, ctx.dialect, `member-email:${email}`);
    if (await memberWithEmail(trx, email)) throw emailTaken(email);
    await trx
      .insertInto("accounts")
      .values({ id: account.id, email, created_at: account.createdAt })
      .execute();
    await trx
      .insertInto("balances")
      .values(
        ENVIRONMENTS.map((environment) => ({
          account_id: account.id,
          environment,
          balance: 0,
          updated_at: account.createdAt,
        })),
      )
      .execute();
    await insertOwner(trx, { accountId: account.id, email, passwordHash, createdAt: account.createdAt });
  });
  return account;
}

/** An account as the operator's `account list` shows it: balances in INR, as `"0.0000"`. */
export interface AccountSummary {
  id: string;
  email: string;
  created_at: string;
  balances: Record<Environment, string>;
}

/** Every account of the installation, oldest first, with its live and sandbox balances. */
export async function listAccounts(db: DbOrTrx): Promise<AccountSummary[]> {
  const [accounts, balances] = await Promise.all([
    db
      .selectFrom("accounts")
      .select(["id", "email", "created_at"])
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
    db.selectFrom("balances").select(["account_id", "environment", "balance"]).execute(),
  ]);
  const byAccount = new Map<string, Record<Environment, string>>();
  for (const row of balances) {
    const own = byAccount.get(row.account_id) ?? { live: formatInr(0), sandbox: formatInr(0) };
    own[row.environment] = formatInr(Number(row.balance));
    byAccount.set(row.account_id, own);
  }
  return accounts.map((account) => ({
    ...account,
    balances: byAccount.get(account.id) ?? { live: formatInr(0), sandbox: formatInr(0) },
  }));
}

/** Throws `not_found` (param `account`) unless an account with this id exists. */
export async function requireAccountExists(db: DbOrTrx, accountId: string): Promise<void> {
  const row = await db.selectFrom("accounts").select("id").where("id", "=", accountId).executeTakeFirst();
  if (!row) throw new ApiError("not_found", `No account ${accountId}.`, "account");
}

function alreadySetUp(): ApiError {
  return new ApiError("already_set_up", "This installation already has an account: sign in instead.");
}
