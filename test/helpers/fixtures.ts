import { randomBytes } from "node:crypto";
import { createAccount } from "../../src/accounts/accounts.js";
import { changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { Db, Environment } from "../../src/db/schema.js";
import { createKey } from "../../src/keys/keys.js";

export const TEST_PASSWORD = "correct horse battery staple";

export async function createTestAccount(ctx: AppContext): Promise<string> {
  const account = await createAccount(ctx, {
    email: `dev-${randomBytes(4).toString("hex")}@example.com`,
    password: TEST_PASSWORD,
  });
  return account.id;
}

/** An account with a key in `environment` and, optionally, credits there. */
export async function createAccountWithKey(
  ctx: AppContext,
  environment: Environment = "sandbox",
  credits = 0,
): Promise<{ accountId: string; keyId: string; secret: string }> {
  const accountId = await createTestAccount(ctx);
  const key = await createKey(ctx, { accountId, environment, label: "test" }, CLI_ORIGIN);
  if (credits > 0) {
    await changeBalance(ctx, {
      accountId,
      environment,
      amount: credits,
      reason: "credits_added",
      reference: null,
    });
  }
  return { accountId, keyId: key.id, secret: key.secret };
}

/** What a send can change for an account, to compare before and after: both balances, the ledger's ids, its messages' ids. */
export async function sendStateOf(
  db: Db,
  accountId: string,
): Promise<{ balances: string[]; ledger: string[]; messages: string[] }> {
  const [balances, ledger, messages] = await Promise.all([
    db
      .selectFrom("balances")
      .select(["environment", "balance"])
      .where("account_id", "=", accountId)
      .orderBy("environment")
      .execute(),
    db.selectFrom("ledger_entries").select("id").where("account_id", "=", accountId).orderBy("id").execute(),
    db.selectFrom("messages").select("id").where("account_id", "=", accountId).orderBy("id").execute(),
  ]);
  return {
    balances: balances.map((row) => `${row.environment}:${Number(row.balance)}`),
    ledger: ledger.map((row) => row.id),
    messages: messages.map((row) => row.id),
  };
}

export function bearer(secret: string): Record<string, string> {
  return { authorization: `Bearer ${secret}` };
}
