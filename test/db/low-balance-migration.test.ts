import { describe, expect, it } from "vitest";
import { addCredits, changeBalance } from "../../src/accounts/ledger.js";
import { getLowBalance } from "../../src/accounts/low-balance.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { down, up } from "../../src/db/migrations/2026-11-29T0022-low-balance.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

/* Balances of before have no threshold, and their charges send nothing; down drops both columns. */

describe.each(DIALECTS)("the low-balance migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  async function columnsOf(db: AppContext["db"]): Promise<string[]> {
    const tables = await db.introspection.getTables();
    return (tables.find((t) => t.name === "balances")?.columns ?? []).map((column) => column.name);
  }

  it("adds balances.low_balance_threshold and low_balance_alerted (null for existing balances), and down drops them", async () => {
    const ctx = await fresh.open();
    const accountId = await createTestAccount(ctx);
    await down(ctx.db);
    expect(await columnsOf(ctx.db)).not.toContain("low_balance_threshold");
    expect(await columnsOf(ctx.db)).not.toContain("low_balance_alerted");

    await up(ctx.db);
    expect(await getLowBalance(ctx.db, accountId, "live")).toEqual({
      environment: "live",
      balance: "0.0000",
      low_balance_threshold: null,
      below_threshold: false,
    });
    await addCredits(
      ctx,
      {
        accountId,
        environment: "live",
        amount: 10_000,
        reason: "credits_added",
        reference: null,
      },
      CLI_ORIGIN,
    );
    await changeBalance(ctx, {
      accountId,
      environment: "live",
      amount: -9_000,
      reason: "sms_charge",
      reference: null,
    });
    const events = await ctx.db
      .selectFrom("events")
      .select("id")
      .where("account_id", "=", accountId)
      .execute();
    expect(events).toEqual([]);
  });
});
