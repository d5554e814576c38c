import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addCredits,
  changeBalance,
  getBalance,
  type LedgerEntry,
  MAX_CREDITED_BALANCE,
  sumLedger,
} from "../../src/accounts/ledger.js";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { loadConfig } from "../../src/config.js";
import type { AppContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import { ApiError, ConfigError } from "../../src/errors.js";
import type { App } from "../../src/http/types.js";
import { formatInr, parseInr } from "../../src/lib/money.js";
import { cliRunner, oneLineError } from "../helpers/cli.js";
import { openTestContext, TEST_SECRET } from "../helpers/context.js";
import { dashboardRequest, signIn } from "../helpers/dashboard.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createTestAccount, TEST_PASSWORD } from "../helpers/fixtures.js";

/** The largest amount `credits add` takes: ₹99,999,999,999.9999. */
const LARGEST_AMOUNT = "99999999999.9999";
const LARGEST_UNITS = 999_999_999_999_999;

/** Amounts as an operator would type them: 0 to 11 digits of rupees, 0 to 4 decimals. */
const amountText = fc
  .tuple(
    fc.oneof(
      fc.constant("0"),
      fc.bigInt({ min: 1n, max: 99_999_999_999n }).map(String),
      fc.constant("99999999999"),
    ),
    fc.oneof(fc.constant(""), fc.stringMatching(/^\.\d{1,4}$/)),
  )
  .map(([rupees, fraction]) => rupees + fraction);

describe("INR amounts at the edges", () => {
  it("refuses exponents, signs, leading zeros and more than 11 digits of rupees", () => {
    for (const bad of [
      "1e5",
      "1E5",
      "-0",
      "+1",
      "00.1",
      "01",
      "000",
      "0x10",
      "1_000",
      "１",
      "Infinity",
      "NaN",
      "1 ",
      "1.00000",
      "100000000000",
      "9".repeat(16),
      "9".repeat(400),
      `${"9".repeat(11)}.${"9".repeat(400)}`,
    ]) {
      expect(parseInr(bad), bad).toBeUndefined();
    }
    expect(parseInr("0")).toBe(0);
    expect(parseInr("0.5")).toBe(5_000);
    expect(parseInr(LARGEST_AMOUNT)).toBe(LARGEST_UNITS);
  });

  it("parses every accepted amount to a safe integer that formats back to the same value", () => {
    fc.assert(
      fc.property(amountText, (text) => {
        const units = parseInr(text);
        expect(units).toBeDefined();
        expect(Number.isSafeInteger(units)).toBe(true);
        expect(units).toBeLessThanOrEqual(LARGEST_UNITS);
        const [rupees = "", fraction = ""] = text.split(".");
        expect(formatInr(units ?? -1)).toBe(`${rupees}.${fraction.padEnd(4, "0")}`);
      }),
    );
  });

  it("keeps the operator's prices small enough that no message cost can overflow", () => {
    for (const price of [LARGEST_AMOUNT, "10000.0001", "1e3", "00.25"]) {
      expect(() => loadConfig({ PRICE_SMS_SEGMENT: price }), price).toThrow(ConfigError);
      expect(() => loadConfig({ PRICE_VOICE_CALL: price }), price).toThrow(/PRICE_VOICE_CALL/);
    }
    expect(loadConfig({ PRICE_WHATSAPP_MESSAGE: "10000" }).prices.whatsapp).toBe(100_000_000);
  });
});

describe.each(DIALECTS)("balances at the limit on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  /** A second pool on the same database, as another process would have (PostgreSQL only; see ledger.test.ts). */
  let otherCtx: AppContext;
  let app: App;
  const { dakiya } = cliRunner(() => ({
    ...process.env,
    DATABASE_URL: database.url,
    DAKIYA_SECRET: TEST_SECRET,
    LOG_LEVEL: "warn",
  }));

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url);
    otherCtx = dialect === "postgres" ? await openTestContext(database.url) : ctx;
    app = await buildApp(ctx);
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    if (otherCtx !== ctx) await otherCtx?.close();
    await database?.drop();
  });

  const credit = (accountId: string, amount: number, environment: Environment = "live", on = ctx) =>
    addCredits(on, { accountId, environment, amount, reason: "credits_added", reference: null }, CLI_ORIGIN);

  async function expectBalanceIsLedgerSum(accountId: string, environment: Environment, expected: number) {
    expect(await getBalance(ctx.db, accountId, environment)).toBe(expected);
    expect(await sumLedger(ctx.db, accountId, environment)).toBe(expected);
  }

  it("refuses the credit of 11 × the largest amount that would pass the maximum, and stays exact", async () => {
    const accountId = await createTestAccount(ctx);
    const outcomes: string[] = [];
    for (let step = 1; step <= 11; step++) {
      try {
        const entry = await credit(accountId, LARGEST_UNITS);
        outcomes.push(formatInr(entry.balanceAfter));
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        expect(error).toMatchObject({ code: "invalid_request", status: 400, param: "amount" });
        outcomes.push("refused");
      }
    }
    expect(outcomes.slice(8)).toEqual(["899999999999.9991", "refused", "refused"]);
    await expectBalanceIsLedgerSum(accountId, "live", 9 * LARGEST_UNITS);
  });

  it("credits add past the maximum exits non-zero with one line, and changes nothing", async () => {
    const accountId = await createTestAccount(ctx);
    for (let step = 1; step <= 9; step++) await credit(accountId, LARGEST_UNITS);
    const refused = await dakiya(
      "credits",
      "add",
      "--account",
      accountId,
      "--environment",
      "live",
      "--amount",
      LARGEST_AMOUNT,
    );
    expect(oneLineError(refused)).toBe("dakiya: The live balance cannot go above ₹900000000000.0000.");
    await expectBalanceIsLedgerSum(accountId, "live", 9 * LARGEST_UNITS);
  }, 30_000);

  it("refuses a dashboard sandbox top-up past the maximum in the error envelope", async () => {
    const accountId = await createTestAccount(ctx);
    await credit(accountId, MAX_CREDITED_BALANCE - 5_000, "sandbox");
    const email = (
      await ctx.db
        .selectFrom("accounts")
        .select("email")
        .where("id", "=", accountId)
        .executeTakeFirstOrThrow()
    ).email;
    const session = await signIn(app, email, TEST_PASSWORD);
    const topUp = (amount: string) =>
      dashboardRequest(app, session, "POST", "/dashboard/api/sandbox/credits", { amount });

    const refused = await topUp("1.00");
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: {
        code: "invalid_request",
        message: "The sandbox balance cannot go above ₹900000000000.0000.",
        param: "amount",
        request_id: expect.any(String),
      },
    });
    const filled = await topUp("0.50");
    expect(filled.json()).toMatchObject({ balance: "900000000000.0000" });
    await expectBalanceIsLedgerSum(accountId, "sandbox", MAX_CREDITED_BALANCE);
  });

  it("concurrent credits near the maximum: exactly those that fit go through", async () => {
    const accountId = await createTestAccount(ctx);
    const step = 1_000;
    await credit(accountId, MAX_CREDITED_BALANCE - 7 * step - 1);
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => credit(accountId, step, "live", i % 2 === 0 ? ctx : otherCtx)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(7);
    for (const r of results) {
      if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "invalid_request" });
    }
    await expectBalanceIsLedgerSum(accountId, "live", MAX_CREDITED_BALANCE - 1);
  });

  it("refunds a charge made at the maximum, but never past the largest exact integer", async () => {
    const accountId = await createTestAccount(ctx);
    const change = (amount: number, reason: string) =>
      changeBalance(ctx, { accountId, environment: "live", amount, reason, reference: "msg_x" });
    await credit(accountId, MAX_CREDITED_BALANCE);
    await change(-25_000, "sms_charge");
    await credit(accountId, 25_000);
    await change(25_000, "sms_refund");
    await expectBalanceIsLedgerSum(accountId, "live", MAX_CREDITED_BALANCE + 25_000);

    const headroom = Number.MAX_SAFE_INTEGER - (MAX_CREDITED_BALANCE + 25_000);
    await expect(change(headroom + 1, "sms_refund")).rejects.toMatchObject({ code: "invalid_request" });
    await change(headroom, "sms_refund");
    await expectBalanceIsLedgerSum(accountId, "live", Number.MAX_SAFE_INTEGER);
  });

  it("property: over any sequence of accepted credits, debits and refunds, balance = ledger sum ≥ 0", async () => {
    type Operation = { kind: "credit" | "debit" | "refund"; units: number };
    const units = fc.oneof(
      { weight: 3, arbitrary: amountText.map((text) => parseInr(text) ?? 0) },
      { weight: 2, arbitrary: fc.constant(LARGEST_UNITS) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 10_000 }) },
    );
    const operation: fc.Arbitrary<Operation> = fc.record({
      kind: fc.constantFrom("credit", "credit", "debit", "refund"),
      units: units.filter((n) => n > 0),
    });

    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 30 }), async (operations) => {
        const accountId = await createTestAccount(ctx);
        let expected = 0;
        for (const { kind, units: amount } of operations) {
          const signed = kind === "debit" ? -amount : amount;
          const ceiling = kind === "credit" ? MAX_CREDITED_BALANCE : Number.MAX_SAFE_INTEGER;
          const fits = expected + signed >= 0 && expected + signed <= ceiling;
          const applied: Promise<LedgerEntry> =
            kind === "credit"
              ? credit(accountId, amount)
              : changeBalance(ctx, {
                  accountId,
                  environment: "live",
                  amount: signed,
                  reason: kind === "debit" ? "sms_charge" : "sms_refund",
                  reference: null,
                });
          if (fits) {
            expected += signed;
            expect((await applied).balanceAfter).toBe(expected);
          } else {
            await expect(applied).rejects.toMatchObject({
              code: kind === "debit" ? "insufficient_balance" : "invalid_request",
            });
          }
        }
        expect(expected).toBeGreaterThanOrEqual(0);
        await expectBalanceIsLedgerSum(accountId, "live", expected);
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
