import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyLedgerChange } from "../../src/accounts/ledger.js";
import { cliRunner, json, oneLineError, ROOT } from "../helpers/cli.js";
import { openTestContext, TestClock } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

const SECRET = "cli-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const SLOW = 90_000;
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

interface LedgerJson {
  id: string;
  amount: string;
  balance_after: string;
  reason: string;
  reference: string | null;
  created_at: string;
}

interface BalanceJson {
  account: string;
  environment: string;
  balance: string;
  currency: string;
  ledger: LedgerJson[];
}

describe("dakiya --version and help", () => {
  const { dakiya } = cliRunner(() => ({ ...process.env, DAKIYA_SECRET: SECRET }));

  it(
    "prints the package's version, and help without a doubled [command]",
    async () => {
      const [long, short, help] = await Promise.all([dakiya("--version"), dakiya("-V"), dakiya("--help")]);
      for (const result of [long, short])
        expect(result).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("-V, --version");
      for (const command of ["balance", "account", "template"])
        expect(help.stdout).toMatch(new RegExp(`\\n  ${command} `));

      // Every group of subcommands, as the top-level help lists them.
      const groups = [...help.stdout.matchAll(/^ {2}([a-z]+) \[command\]/gm)]
        .map((match) => match[1] as string)
        .filter((name) => name !== "help");
      expect(groups).toEqual(
        expect.arrayContaining(["account", "credits", "keys", "sender", "template", "otp", "webhooks"]),
      );
      const helps = await Promise.all(groups.map((group) => dakiya(group, "--help")));
      helps.forEach((result, i) => {
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`Usage: dakiya ${groups[i]} <command> [options]\n`);
        expect(result.stdout).not.toContain("[command] [command]");
      });
      const template = helps[groups.indexOf("template")]?.stdout ?? "";
      for (const sub of ["add", "list", "update", "remove", "deactivate", "activate"]) {
        expect(template).toMatch(new RegExp(`\\n  ${sub} `));
      }
      const [update, balance] = await Promise.all([
        dakiya("template", "update", "--help"),
        dakiya("balance", "--help"),
      ]);
      expect(update.stdout).toContain("Usage: dakiya template update [options]");
      for (const option of [
        "--account",
        "--template-id",
        "--content",
        "--senders",
        "--name",
        "--entity-id",
        "--category",
      ]) {
        expect(update.stdout).toContain(option);
      }
      for (const option of ["--account", "--environment", "--entries"])
        expect(balance.stdout).toContain(option);
    },
    SLOW,
  );
});

describe.each(DIALECTS)("dakiya account list and balance (%s)", (dialect) => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const { dakiya } = cliRunner(() => env);
  let first: string;
  let second: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    env = { ...process.env, DATABASE_URL: database.url, DAKIYA_SECRET: SECRET, LOG_LEVEL: "warn" };
  });

  afterAll(async () => {
    await database?.drop();
  });

  it(
    "lists no accounts on a new installation, then every account with its balances, oldest first",
    async () => {
      expect(await dakiya("account", "list")).toEqual({ code: 0, stdout: "No accounts.\n", stderr: "" });
      expect(json<{ data: unknown[] }>(await dakiya("--json", "account", "list"))).toEqual({ data: [] });

      // Accounts and ledgers come from the library (subprocesses are slow); each step a second apart.
      const clock = new TestClock();
      const ctx = await openTestContext(database.url, { clock });
      try {
        first = await createTestAccount(ctx);
        clock.advance(1);
        second = await createTestAccount(ctx);
        const change = (amount: number, reason: string, reference: string | null) => {
          clock.advance(1);
          return ctx.db.transaction().execute((trx) =>
            applyLedgerChange(trx, clock, {
              accountId: first,
              environment: "sandbox",
              amount,
              reason,
              reference,
            }),
          );
        };
        await change(1_000_000, "credits_added", "inv-1");
        await change(-2_500, "sms_charge", "msg_one");
        await change(-5_000, "voice_charge", "msg_two");
        await change(2_500, "sms_refund", "msg_one");
      } finally {
        await ctx.close();
      }

      const listed = json<{
        data: Array<{ id: string; email: string; created_at: string; balances: object }>;
      }>(await dakiya("--json", "account", "list"));
      expect(listed.data.map((account) => account.id)).toEqual([first, second]);
      expect(listed.data[0]).toMatchObject({
        email: expect.stringMatching(/@example\.com$/),
        balances: { live: "0.0000", sandbox: "99.5000" },
      });
      expect(listed.data[1]?.balances).toEqual({ live: "0.0000", sandbox: "0.0000" });
      expect(JSON.stringify(listed)).not.toMatch(/password|hash/i);

      const human = await dakiya("account", "list");
      expect(human.code).toBe(0);
      const lines = human.stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        new RegExp(`^${first} \\S+@example\\.com created \\S+ live ₹0\\.0000 sandbox ₹99\\.5000$`),
      );
    },
    SLOW,
  );

  it(
    "shows a balance with its latest ledger entries, newest first",
    async () => {
      const shown = json<BalanceJson>(
        await dakiya("--json", "balance", "--account", first, "--environment", "sandbox"),
      );
      expect(shown).toMatchObject({
        account: first,
        environment: "sandbox",
        balance: "99.5000",
        currency: "INR",
      });
      expect(
        shown.ledger.map(({ amount, balance_after, reason, reference }) => ({
          amount,
          balance_after,
          reason,
          reference,
        })),
      ).toEqual([
        { amount: "0.2500", balance_after: "99.5000", reason: "sms_refund", reference: "msg_one" },
        { amount: "-0.5000", balance_after: "99.2500", reason: "voice_charge", reference: "msg_two" },
        { amount: "-0.2500", balance_after: "99.7500", reason: "sms_charge", reference: "msg_one" },
        { amount: "100.0000", balance_after: "100.0000", reason: "credits_added", reference: "inv-1" },
      ]);
      for (const entry of shown.ledger) {
        expect(entry.id).toMatch(/^led_/);
        expect(Date.parse(entry.created_at)).not.toBeNaN();
      }

      const [one, none, live, human] = await Promise.all([
        dakiya("--json", "balance", "--account", first, "--environment", "sandbox", "--entries", "1"),
        dakiya("--json", "balance", "--account", first, "--environment", "sandbox", "--entries", "0"),
        dakiya("--json", "balance", "--account", first, "--environment", "live"),
        dakiya("balance", "--account", first, "--environment", "sandbox", "--entries", "2"),
      ]);
      expect(json<BalanceJson>(one).ledger.map((entry) => entry.reason)).toEqual(["sms_refund"]);
      expect(json<BalanceJson>(none).ledger).toEqual([]);
      expect(json<BalanceJson>(live)).toMatchObject({ balance: "0.0000", ledger: [] });
      expect(human.code).toBe(0);
      const lines = human.stdout.trimEnd().split("\n");
      expect(lines[0]).toBe(`The sandbox balance of ${first} is ₹99.5000.`);
      expect(lines[1]).toBe("Latest ledger entries:");
      expect(lines[2]).toMatch(/^\S+ \+₹0\.2500 sms_refund msg_one → ₹99\.5000$/);
      expect(lines[3]).toMatch(/^\S+ -₹0\.5000 voice_charge msg_two → ₹99\.2500$/);
      expect(lines).toHaveLength(4);
    },
    SLOW,
  );

  it(
    "refuses an unknown account and bad options in one line",
    async () => {
      const [unknown, noEnvironment, badEnvironment, badEntries, tooMany] = await Promise.all([
        dakiya("--json", "balance", "--account", "acct_nobody", "--environment", "sandbox"),
        dakiya("balance", "--account", first),
        dakiya("balance", "--account", first, "--environment", "prod"),
        dakiya("balance", "--account", first, "--environment", "live", "--entries", "-1"),
        dakiya("balance", "--account", first, "--environment", "live", "--entries", "1001"),
      ]);
      expect(oneLineError(unknown)).toBe("dakiya: No account acct_nobody.");
      expect(oneLineError(noEnvironment)).toContain("--environment");
      expect(oneLineError(badEnvironment)).toContain("live, sandbox");
      expect(oneLineError(badEntries)).toContain("--entries");
      expect(oneLineError(tooMany)).toContain("at most 1000");
    },
    SLOW,
  );
});
