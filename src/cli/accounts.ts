import { type Command, InvalidArgumentError, Option } from "commander";
import { type AccountSummary, createAccount, listAccounts } from "../accounts/accounts.js";
import { addCredits, getBalance, type LedgerEntryView, latestLedgerEntries } from "../accounts/ledger.js";
import { type LowBalanceView, parseThreshold, THRESHOLD_RANGE } from "../accounts/low-balance.js";
import { type AccountChanges, type AccountView, getAccount, updateAccount } from "../accounts/update.js";
import { CLI_ORIGIN } from "../audit/types.js";
import { ENVIRONMENTS, type Environment } from "../db/schema.js";
import { ConfigError } from "../errors.js";
import { formatInr, parseInr } from "../lib/money.js";
import { commandGroup, type OutputOptions, parseNonNegativeInteger, print, withContext } from "./run.js";

const DEFAULT_LEDGER_ENTRIES = 10;
const MAX_LEDGER_ENTRIES = 1000;

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

  account
    .command("list")
    .description("list every account, oldest first, with its live and sandbox balances")
    .action(async () => {
      const data = await withContext((ctx) => listAccounts(ctx.db));
      print(output(), { data }, data.length === 0 ? ["No accounts."] : data.map(describeAccount));
    });

  accountUpdateCommand(account, output);

  program
    .command("balance")
    .description("show a balance and the latest entries of its ledger, newest first")
    .requiredOption("--account <id>", "account id (acct_…)")
    .addOption(environmentOption())
    .option(
      "--entries <n>",
      `how many ledger entries to show, 0 to ${MAX_LEDGER_ENTRIES}`,
      parseEntryCount,
      DEFAULT_LEDGER_ENTRIES,
    )
    .action(async (opts: { account: string; environment: Environment; entries: number }) => {
      const { balance, entries } = await withContext(async (ctx) => {
        // getBalance answers not_found for an unknown account.
        const [balance, entries] = await Promise.all([
          getBalance(ctx.db, opts.account, opts.environment),
          latestLedgerEntries(ctx.db, opts.account, opts.environment, opts.entries),
        ]);
        return { balance, entries };
      });
      const shown = formatInr(balance);
      const lines = [`The ${opts.environment} balance of ${opts.account} is ₹${shown}.`];
      if (opts.entries > 0) {
        lines.push(entries.length === 0 ? "No ledger entries." : "Latest ledger entries:");
        lines.push(...entries.map(describeLedgerEntry));
      }
      print(
        output(),
        {
          account: opts.account,
          environment: opts.environment,
          balance: shown,
          currency: "INR",
          ledger: entries,
        },
        lines,
      );
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
          addCredits(
            ctx,
            {
              accountId: opts.account,
              environment: opts.environment,
              amount: opts.amount,
              reason: "credits_added",
              reference: opts.reference ?? null,
            },
            CLI_ORIGIN,
          ),
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

interface AccountUpdateOptions {
  account: string;
  bfsi?: boolean;
  tmChain?: string;
  environment?: Environment;
  /** 1/10,000 INR, or `none`: no alerts. */
  lowBalanceThreshold?: number | "none";
}

/**
 * `account update --account ID [--bfsi | --no-bfsi] [--tm-chain ID1,ID2] [--environment E
 * --low-balance-threshold INR|none]`: changes what the operator decides of an account, one option
 * per field (`AccountChanges`), and prints the account; with no option, prints it.
 */
function accountUpdateCommand(account: Command, output: () => OutputOptions): void {
  const given = new Set<string>();
  const update = account
    .command("update")
    .description("change an account and print it (with no option, print it)")
    .requiredOption("--account <id>", "account id (acct_…)")
    .option(
      "--bfsi",
      "mark it a bank, NBFC, broker or insurer: voice OTPs call only from 1600-series numbers",
    )
    .option("--no-bfsi", "mark it not BFSI")
    .option(
      "--tm-chain <ids>",
      "its PE–TM chain: the telemarketer ids after the PE, comma-separated, overriding the routes' (\"\" for the routes')",
    )
    .addOption(
      new Option(
        "--environment <environment>",
        "the balance --low-balance-threshold is for: live or sandbox",
      ).choices(ENVIRONMENTS),
    )
    .option(
      "--low-balance-threshold <inr>",
      "send balance.low when a charge takes that balance below this amount in INR, e.g. 1.00 (none: no alerts)",
      parseLowBalanceThreshold,
    );
  update.on("option:bfsi", () => given.add("--bfsi"));
  update.on("option:no-bfsi", () => given.add("--no-bfsi"));
  update.action(async (opts: AccountUpdateOptions) => {
    if (given.size > 1) throw new ConfigError("account update: give --bfsi or --no-bfsi, not both");
    if ((opts.environment === undefined) !== (opts.lowBalanceThreshold === undefined)) {
      throw new ConfigError(
        "account update: give --environment live|sandbox and --low-balance-threshold together",
      );
    }
    const changes: AccountChanges = {};
    if (opts.bfsi !== undefined) changes.bfsi = opts.bfsi;
    if (opts.tmChain !== undefined) {
      changes.tmChain = opts.tmChain.trim() === "" ? null : opts.tmChain.split(",");
    }
    const { environment, lowBalanceThreshold } = opts;
    if (environment !== undefined && lowBalanceThreshold !== undefined) {
      changes.lowBalanceThreshold = {
        environment,
        threshold: lowBalanceThreshold === "none" ? null : lowBalanceThreshold,
      };
    }
    const view = await withContext((ctx) =>
      Object.keys(changes).length === 0
        ? getAccount(ctx.db, opts.account)
        : updateAccount(ctx, opts.account, changes, CLI_ORIGIN),
    );
    print(output(), view, describeAccountView(view));
  });
}

/** A threshold, or `none` (commander would take a null for an option given without its value). */
function parseLowBalanceThreshold(value: string): number | "none" {
  if (value === "none") return value;
  const threshold = parseThreshold(value);
  if (threshold === undefined) {
    throw new InvalidArgumentError(
      `must be an amount in INR ${THRESHOLD_RANGE} with at most 4 decimals, e.g. 1.00, or none to turn the alert off.`,
    );
  }
  return threshold;
}

function describeAccountView(view: AccountView): string[] {
  return [
    `Account ${view.id} (${view.email}), created ${view.created_at}`,
    view.bfsi ? "  BFSI: yes (voice OTPs call only from 1600-series numbers)" : "  BFSI: no",
    view.tm_chain
      ? `  PE–TM chain: ${view.tm_chain.join(",")} (after each template's PE; overrides the routes')`
      : "  PE–TM chain: the routes' (tm_chain in SMPP_ROUTES)",
    ...(view.low_balance ? [describeLowBalance(view.low_balance)] : []),
  ];
}

function describeLowBalance(alert: LowBalanceView): string {
  const { environment, balance, low_balance_threshold: threshold } = alert;
  if (threshold === null) return `  Low-balance alert (${environment}): off (balance ₹${balance})`;
  const state = alert.below_threshold ? "below it now" : "above it now";
  return `  Low-balance alert (${environment}): below ₹${threshold} (balance ₹${balance}, ${state})`;
}

function parseAmount(value: string): number {
  const units = parseInr(value);
  if (units === undefined || units === 0) {
    throw new InvalidArgumentError("must be a positive amount in INR with at most 4 decimals, e.g. 100.00.");
  }
  return units;
}

function parseEntryCount(value: string): number {
  const count = parseNonNegativeInteger(value);
  if (count > MAX_LEDGER_ENTRIES) throw new InvalidArgumentError(`must be at most ${MAX_LEDGER_ENTRIES}.`);
  return count;
}

function describeAccount(account: AccountSummary): string {
  return (
    `${account.id} ${account.email} created ${account.created_at} ` +
    `live ₹${account.balances.live} sandbox ₹${account.balances.sandbox}`
  );
}

function describeLedgerEntry(entry: LedgerEntryView): string {
  const amount = entry.amount.startsWith("-") ? `-₹${entry.amount.slice(1)}` : `+₹${entry.amount}`;
  const reference = entry.reference === null ? "" : ` ${entry.reference}`;
  return `${entry.created_at} ${amount} ${entry.reason}${reference} → ₹${entry.balance_after}`;
}
