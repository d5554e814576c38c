import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyLedgerChange, changeBalance, getBalance, sumLedger } from "../../src/accounts/ledger.js";
import type { AppContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import { ApiError } from "../../src/errors.js";
import { formatInr, parseInr } from "../../src/lib/money.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

describe.each(DIALECTS)("the ledger on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  /**
   * A second connection pool on the same database, as another server process would have. Only on
   * PostgreSQL: better-sqlite3 blocks its thread while it waits for a lock, so two SQLite
   * connections in one process would wait on each other (the CLI test covers two processes).
   */
  let otherCtx: AppContext;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url);
    otherCtx = dialect === "postgres" ? await openTestContext(database.url) : ctx;
  });

  afterAll(async () => {
    await ctx?.close();
    if (otherCtx !== ctx) await otherCtx?.close();
    await database?.drop();
  });

  const credit = (accountId: string, environment: Environment, amount: number) =>
    changeBalance(ctx, { accountId, environment, amount, reason: "credits_added", reference: "invoice-1" });

  it("starts both balances at zero and records every change with its reason and reference", async () => {
    const accountId = await createTestAccount(ctx);
    expect(await getBalance(ctx.db, accountId, "live")).toBe(0);
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(0);

    const entry = await credit(accountId, "live", 1_000_000);
    expect(entry.balanceAfter).toBe(1_000_000);
    await changeBalance(ctx, {
      accountId,
      environment: "live",
      amount: -2_500,
      reason: "sms_charge",
      reference: "msg_1",
    });

    expect(await getBalance(ctx.db, accountId, "live")).toBe(997_500);
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(0);
    const rows = await ctx.db
      .selectFrom("ledger_entries")
      .select(["amount", "balance_after", "reason", "reference"])
      .where("account_id", "=", accountId)
      .orderBy("created_at")
      .orderBy("balance_after", "desc")
      .execute();
    expect(
      rows.map((r) => ({ ...r, amount: Number(r.amount), balance_after: Number(r.balance_after) })),
    ).toEqual([
      { amount: 1_000_000, balance_after: 1_000_000, reason: "credits_added", reference: "invoice-1" },
      { amount: -2_500, balance_after: 997_500, reason: "sms_charge", reference: "msg_1" },
    ]);
    expect(await sumLedger(ctx.db, accountId, "live")).toBe(997_500);
  });

  it("refuses a debit the balance cannot cover, and changes nothing", async () => {
    const accountId = await createTestAccount(ctx);
    await credit(accountId, "sandbox", 10_000);
    const debit = changeBalance(ctx, {
      accountId,
      environment: "sandbox",
      amount: -10_001,
      reason: "sms_charge",
      reference: null,
    });
    await expect(debit).rejects.toMatchObject({ code: "insufficient_balance", status: 402 });
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(10_000);
    expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(10_000);
  });

  it("rolls the balance back with the transaction it was part of", async () => {
    const accountId = await createTestAccount(ctx);
    await credit(accountId, "live", 50_000);
    const failing = ctx.db.transaction().execute(async (trx) => {
      await applyLedgerChange(trx, ctx.clock, {
        accountId,
        environment: "live",
        amount: -20_000,
        reason: "sms_charge",
        reference: "msg_x",
      });
      throw new Error("the message insert failed");
    });
    await expect(failing).rejects.toThrow("the message insert failed");
    expect(await getBalance(ctx.db, accountId, "live")).toBe(50_000);
    expect(await sumLedger(ctx.db, accountId, "live")).toBe(50_000);
  });

  it("refuses changes for an unknown account, and zero or fractional amounts", async () => {
    await expect(credit("acct_missing", "live", 100)).rejects.toMatchObject({ code: "not_found" });
    const accountId = await createTestAccount(ctx);
    await expect(credit(accountId, "live", 0)).rejects.toThrow(RangeError);
    await expect(credit(accountId, "live", 1.5)).rejects.toThrow(RangeError);
  });

  it("500 concurrent debits: exactly the affordable ones succeed, never below zero", async () => {
    const accountId = await createTestAccount(ctx);
    const price = 2_500; // ₹0.25
    const affordable = 137;
    await credit(accountId, "live", price * affordable + price - 1);

    const results = await Promise.allSettled(
      Array.from({ length: 500 }, (_, i) =>
        changeBalance(i % 2 === 0 ? ctx : otherCtx, {
          accountId,
          environment: "live",
          amount: -price,
          reason: "sms_charge",
          reference: `msg_${i}`,
        }),
      ),
    );
    const succeeded = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected");
    expect(succeeded).toHaveLength(affordable);
    for (const r of refused) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ApiError);
      expect((r as PromiseRejectedResult).reason.code).toBe("insufficient_balance");
    }
    const balance = await getBalance(ctx.db, accountId, "live");
    expect(balance).toBe(price - 1);
    expect(await sumLedger(ctx.db, accountId, "live")).toBe(balance);
    const balancesAfter = succeeded.map(
      (r) => (r as PromiseFulfilledResult<{ balanceAfter: number }>).value.balanceAfter,
    );
    expect(new Set(balancesAfter).size).toBe(affordable);
    expect(Math.min(...balancesAfter)).toBe(price - 1);
  });
});

describe("INR amounts", () => {
  it("parses and formats exactly, without floats", () => {
    expect(parseInr("100.00")).toBe(1_000_000);
    expect(parseInr("0.2500")).toBe(2_500);
    expect(parseInr("7")).toBe(70_000);
    expect(parseInr("0.0001")).toBe(1);
    expect(parseInr("99999999999.9999")).toBe(999_999_999_999_999);
    expect(parseInr("100000000000")).toBeUndefined();
    for (const bad of ["", "-1", "1.23456", "1e3", "abc", ".5", "1.", " 1"])
      expect(parseInr(bad)).toBeUndefined();
    expect(formatInr(2_500)).toBe("0.2500");
    expect(formatInr(997_500)).toBe("99.7500");
    expect(formatInr(0)).toBe("0.0000");
    expect(formatInr(-2_500)).toBe("-0.2500");
  });
});
