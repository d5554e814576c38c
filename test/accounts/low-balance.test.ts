// The low-balance alert's rule (src/accounts/low-balance.ts) through every form a charge takes
// (src/accounts/ledger.ts): one table of cases, each run with every debit form of the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addCredits,
  applyLedgerChange,
  applyLedgerCharges,
  chargeInOneFlight,
  getBalance,
  sumLedger,
} from "../../src/accounts/ledger.js";
import { getLowBalance, parseThreshold, setLowBalanceThreshold } from "../../src/accounts/low-balance.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { commitInOneFlight, FlightRefused } from "../../src/db/postgres/one-flight.js";
import type { Environment } from "../../src/db/schema.js";
import { inTransaction } from "../../src/db/transaction.js";
import { isoNow } from "../../src/lib/clock.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

/** ₹1.00 in 1/10,000 INR. */
const RUPEE = 10_000;

type DebitForm = "applyLedgerChange" | "applyLedgerCharges" | "chargeInOneFlight";

/** A step of a case: a charge, a refund, credits, or a new threshold (INR, null to clear). */
type Step =
  | { charge: number }
  | { refund: number }
  | { credits: number }
  | { threshold: string | null }
  /** The `balance.low` events so far, as `balance/threshold` in INR. */
  | { alerts: string[] };

interface AlertCase {
  name: string;
  credits: number;
  steps: Step[];
}

const CASES: AlertCase[] = [
  {
    name: "a charge from above to below sends one alert; below to further below sends none",
    credits: 2 * RUPEE,
    steps: [
      { threshold: "1.00" },
      { charge: 5_000 },
      { alerts: [] },
      { charge: 6_000 },
      { alerts: ["0.9000/1.0000"] },
      { charge: 1_000 },
      { charge: 7_000 },
      { alerts: ["0.9000/1.0000"] },
    ],
  },
  {
    name: "a charge that leaves the balance exactly at the threshold sends none; the next one below does",
    credits: 2 * RUPEE,
    steps: [
      { threshold: "1.00" },
      { charge: RUPEE },
      { alerts: [] },
      { charge: 1 },
      { alerts: ["0.9999/1.0000"] },
    ],
  },
  {
    name: "a refund back above the threshold does not re-arm it",
    credits: 2 * RUPEE,
    steps: [
      { threshold: "1.00" },
      { charge: 11_000 },
      { refund: 5_000 },
      { charge: 5_000 },
      { alerts: ["0.9000/1.0000"] },
    ],
  },
  {
    name: "credits back to the threshold re-arm it; credits short of it do not",
    credits: 2 * RUPEE,
    steps: [
      { threshold: "1.00" },
      { charge: 11_000 },
      { credits: 500 },
      { refund: 1_000 },
      { charge: 3_000 },
      { alerts: ["0.9000/1.0000"] },
      { credits: 2_500 },
      { charge: 2_000 },
      { alerts: ["0.9000/1.0000", "0.8000/1.0000"] },
    ],
  },
  {
    name: "a threshold set with the balance already below it arms nothing until credits lift the balance",
    credits: 5_000,
    steps: [
      { threshold: "1.00" },
      { charge: 1_000 },
      { refund: 8_000 },
      { charge: 3_000 },
      { alerts: [] },
      { credits: 2_000 },
      { charge: 2_000 },
      { alerts: ["0.9000/1.0000"] },
    ],
  },
  {
    name: "no threshold, or one cleared, sends nothing",
    credits: 2 * RUPEE,
    steps: [
      { charge: 15_000 },
      { credits: 5_000 },
      { threshold: "1.00" },
      { threshold: null },
      { charge: 5_000 },
      { alerts: [] },
    ],
  },
  {
    name: "a threshold lowered below the balance arms the alert again",
    credits: 2 * RUPEE,
    steps: [
      { threshold: "1.00" },
      { charge: 11_000 },
      { threshold: "0.50" },
      { charge: 5_000 },
      { alerts: ["0.9000/1.0000", "0.4000/0.5000"] },
    ],
  },
];

describe.each(DIALECTS)("low-balance alerts on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  const forms: DebitForm[] = ["applyLedgerChange", "applyLedgerCharges"];
  if (dialect === "postgres") forms.push("chargeInOneFlight");

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url);
  });

  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  async function charge(form: DebitForm, scope: Scope, amount: number): Promise<void> {
    const debit = { amount: -amount, reason: "sms_charge", reference: null };
    switch (form) {
      case "applyLedgerChange":
        await inTransaction(ctx, (trx) => applyLedgerChange(trx, ctx.clock, { ...scope, ...debit }));
        return;
      case "applyLedgerCharges": {
        // Two charges of one debit, as a batch's sends are charged together.
        const first = Math.floor(amount / 2);
        const charges = [
          { ...debit, amount: -first },
          { ...debit, amount: first - amount },
        ].filter((item) => item.amount < 0);
        const charged = await inTransaction(ctx, (trx) => applyLedgerCharges(trx, ctx.clock, scope, charges));
        if (!charged) throw new Error("applyLedgerCharges refused the charges");
        return;
      }
      case "chargeInOneFlight":
        await commitInOneFlight(ctx.db, [chargeInOneFlight(ctx.db, scope, debit, isoNow(ctx.clock))]);
        return;
    }
  }

  async function alertsOf(scope: Scope): Promise<string[]> {
    const rows = await ctx.db
      .selectFrom("events")
      .select("data")
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .where("type", "=", "balance.low")
      .orderBy("txid")
      .orderBy("seq")
      .orderBy("created_at")
      .execute();
    return rows.map((row) => {
      const data = JSON.parse(row.data) as { balance: string; threshold: string };
      expect(Object.keys(data)).toEqual(["balance", "threshold"]);
      return `${data.balance}/${data.threshold}`;
    });
  }

  for (const alertCase of CASES) {
    it.each(forms)(`${alertCase.name} (%s)`, async (form) => {
      const scope: Scope = { accountId: await createTestAccount(ctx), environment: "live" };
      await addCredits(
        ctx,
        {
          ...scope,
          amount: alertCase.credits,
          reason: "credit_purchase",
          reference: null,
        },
        CLI_ORIGIN,
      );
      for (const step of alertCase.steps) {
        if ("charge" in step) await charge(form, scope, step.charge);
        else if ("refund" in step) {
          await inTransaction(ctx, (trx) =>
            applyLedgerChange(trx, ctx.clock, {
              ...scope,
              amount: step.refund,
              reason: "sms_refund",
              reference: null,
            }),
          );
        } else if ("credits" in step) {
          await addCredits(
            ctx,
            {
              ...scope,
              amount: step.credits,
              reason: "credit_purchase",
              reference: null,
            },
            CLI_ORIGIN,
          );
        } else if ("threshold" in step) {
          const threshold = step.threshold === null ? null : parseThreshold(step.threshold);
          if (threshold === undefined) throw new Error(`not a threshold: ${step.threshold}`);
          await setLowBalanceThreshold(ctx, scope, threshold, CLI_ORIGIN);
        } else expect(await alertsOf(scope), JSON.stringify(step)).toEqual(step.alerts);
      }
      expect(await sumLedger(ctx.db, scope.accountId, "live")).toBe(
        await getBalance(ctx.db, scope.accountId, "live"),
      );
      // The sandbox balance of the account knows nothing of it.
      expect(await alertsOf({ ...scope, environment: "sandbox" })).toEqual([]);
    });
  }

  it.each(forms)("a refused charge sends nothing and spends nothing (%s)", async (form) => {
    const scope: Scope = { accountId: await createTestAccount(ctx), environment: "sandbox" };
    await addCredits(
      ctx,
      { ...scope, amount: 2 * RUPEE, reason: "sandbox_top_up", reference: null },
      CLI_ORIGIN,
    );
    await setLowBalanceThreshold(ctx, scope, RUPEE, CLI_ORIGIN);
    const refused = charge(form, scope, 3 * RUPEE);
    if (form === "chargeInOneFlight") await expect(refused).rejects.toBeInstanceOf(FlightRefused);
    else if (form === "applyLedgerChange")
      await expect(refused).rejects.toMatchObject({ code: "insufficient_balance" });
    else await expect(refused).rejects.toThrow("refused");
    expect(await alertsOf(scope)).toEqual([]);
    await charge(form, scope, 15_000);
    expect(await alertsOf(scope)).toEqual(["0.5000/1.0000"]);
  });

  it("the view tells whether the balance is below its threshold", async () => {
    const scope: Scope = { accountId: await createTestAccount(ctx), environment: "live" };
    await addCredits(
      ctx,
      { ...scope, amount: 9_000, reason: "credit_purchase", reference: null },
      CLI_ORIGIN,
    );
    expect(await getLowBalance(ctx.db, scope.accountId, "live")).toEqual({
      environment: "live",
      balance: "0.9000",
      low_balance_threshold: null,
      below_threshold: false,
    });
    expect(await setLowBalanceThreshold(ctx, scope, RUPEE, CLI_ORIGIN)).toEqual({
      environment: "live",
      balance: "0.9000",
      low_balance_threshold: "1.0000",
      below_threshold: true,
    });
    expect((await getLowBalance(ctx.db, scope.accountId, "sandbox")).low_balance_threshold).toBeNull();
    await expect(
      setLowBalanceThreshold(ctx, { accountId: "acct_missing", environment: "live" }, RUPEE, CLI_ORIGIN),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

interface Scope {
  accountId: string;
  environment: Environment;
}
