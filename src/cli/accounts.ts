import { type Command, InvalidArgumentError, Option } from "commander";
import { createAccount } from "../accounts/accounts.js";
import { addCredits } from "../accounts/ledger.js";
import { ENVIRONMENTS, type Environment } from "../db/schema.js";
import { formatInr, parseInr } from "../money.js";
import { commandGroup, type OutputOptions, print, withContext } from "./run.js";

export function environmentOption(): Option {
  return new Option("--environment <environment>", "live or sandbox")
    .choices(ENVIRONMENTS)
    .makeOptionMandatory();
}

export function accountCommands(program: Command, output: () => OutputOptions): void {
  const account = commandGroup(program, "account", "manage accounts");
  account
    .command("create")
    .description("create an account with empty live and sandbox balances")
    .requiredOption("--email <email>", "sign-in email")
    .requiredOption("--password <password>", "sign-in password (at least 10 characters)")
    .action(async (opts: { email: string; password: string }) => {
      const created = await withContext((ctx) => createAccount(ctx, opts));
      print(output(), { id: created.id, email: created.email, created_at: created.createdAt }, [
        `Created account ${created.id} (${created.email}).`,
      ]);
    });

  const credits = commandGroup(program, "credits", "manage prepaid credits");
  credits
    .command("add")
    .description("add prepaid credits to a balance")
    .requiredOption("--account <id>", "account id (acct_…)")
    .addOption(environmentOption())
    .requiredOption("--amount <inr>", "amount in INR, up to 4 decimals, e.g. 100.00", parseAmount)
    .option("--reference <text>", "what the credits came from, e.g. an invoice number")
    .action(
      async (opts: { account: string; environment: Environment; amount: number; reference?: string }) => {
        const entry = await withContext((ctx) =>
          addCredits(ctx, {
            accountId: opts.account,
            environment: opts.environment,
            amount: opts.amount,
            reason: "credits_added",
            reference: opts.reference ?? null,
          }),
        );
        const balance = formatInr(entry.balanceAfter);
        print(
          output(),
          {
            account: opts.account,
            environment: opts.environment,
            balance,
            currency: "INR",
            ledger_entry_id: entry.id,
          },
          [
            `Added ₹${formatInr(opts.amount)}: the ${opts.environment} balance of ${opts.account} is now ₹${balance}.`,
          ],
        );
      },
    );
}

function parseAmount(value: string): number {
  const units = parseInr(value);
  if (units === undefined || units === 0) {
    throw new InvalidArgumentError("must be a positive amount in INR with at most 4 decimals, e.g. 100.00.");
  }
  return units;
}
