/**
 * Setting the low-balance threshold: GET/PATCH /dashboard/api/billing and `dakiya account update
 * --environment E --low-balance-threshold INR|none`, on both databases; what they set is what
 * the charges then go by.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { addCredits, changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { type CliResult, cliRunner, json, oneLineError } from "../helpers/cli.js";
import { TEST_SECRET } from "../helpers/context.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { useTestInstances } from "../helpers/instances.js";

/** ₹1.00 in 1/10,000 INR. */
const RUPEE = 10_000;
const SLOW = 60_000;

describe.each(DIALECTS)("the low-balance threshold's settings on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let owner: SignedIn;
  let dakiya: (...args: string[]) => Promise<CliResult>;

  beforeAll(async () => {
    ({ ctx, app } = instances);
    owner = await signedInAccount(ctx, app);
    const env = {
      ...process.env,
      DATABASE_URL: instances.database.url,
      DAKIYA_SECRET: TEST_SECRET,
      LOG_LEVEL: "warn",
    };
    dakiya = cliRunner(() => env).dakiya;
  });

  const billing = (session: SignedIn, method: "GET" | "PATCH", environment: string, body?: object) =>
    dashboardRequest(app, session, method, `/dashboard/api/billing?environment=${environment}`, body);

  async function alerts(accountId: string): Promise<unknown[]> {
    const rows = await ctx.db
      .selectFrom("events")
      .select(["environment", "data"])
      .where("account_id", "=", accountId)
      .where("type", "=", "balance.low")
      .execute();
    return rows.map((row) => ({ environment: row.environment, ...JSON.parse(row.data) }));
  }

  const charge = (accountId: string, environment: "live" | "sandbox", amount: number) =>
    changeBalance(ctx, { accountId, environment, amount: -amount, reason: "sms_charge", reference: null });

  it("GET answers the balance with no threshold at first, per environment", async () => {
    await addCredits(
      ctx,
      {
        accountId: owner.accountId,
        environment: "sandbox",
        amount: 2 * RUPEE,
        reason: "sandbox_top_up",
        reference: null,
      },
      CLI_ORIGIN,
    );
    for (const [environment, balance] of [
      ["live", "0.0000"],
      ["sandbox", "2.0000"],
    ]) {
      const response = await billing(owner, "GET", environment as string);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        environment,
        balance,
        low_balance_threshold: null,
        below_threshold: false,
      });
    }
  });

  it("PATCH sets and clears it, answering as GET, and charges go by it", async () => {
    const set = await billing(owner, "PATCH", "sandbox", { low_balance_threshold: "1.5" });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({
      environment: "sandbox",
      balance: "2.0000",
      low_balance_threshold: "1.5000",
      below_threshold: false,
    });
    expect((await billing(owner, "GET", "sandbox")).json()).toEqual(set.json());
    expect((await billing(owner, "GET", "live")).json().low_balance_threshold).toBeNull();

    await charge(owner.accountId, "sandbox", 6_000);
    expect(await alerts(owner.accountId)).toEqual([
      { environment: "sandbox", balance: "1.4000", threshold: "1.5000" },
    ]);
    expect((await billing(owner, "GET", "sandbox")).json()).toMatchObject({
      balance: "1.4000",
      below_threshold: true,
    });

    const cleared = await billing(owner, "PATCH", "sandbox", { low_balance_threshold: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toEqual({
      environment: "sandbox",
      balance: "1.4000",
      low_balance_threshold: null,
      below_threshold: false,
    });
  });

  it("PATCH refuses what is not a threshold, changing nothing", async () => {
    await billing(owner, "PATCH", "live", { low_balance_threshold: "3.00" });
    const refusals: Array<[object, string | undefined]> = [
      [{ low_balance_threshold: "0" }, "low_balance_threshold"],
      [{ low_balance_threshold: "-1.00" }, "low_balance_threshold"],
      [{ low_balance_threshold: "1e3" }, "low_balance_threshold"],
      [{ low_balance_threshold: "1.23456" }, "low_balance_threshold"],
      [{ low_balance_threshold: "900000000000.0001" }, "low_balance_threshold"],
      [{ low_balance_threshold: "" }, "low_balance_threshold"],
      [{ low_balance_threshold: 1 }, "low_balance_threshold"],
      [{}, "low_balance_threshold"],
      [{ low_balance_threshold: "1.00", extra: true }, "extra"],
    ];
    for (const [body, param] of refusals) {
      const response = await billing(owner, "PATCH", "live", body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error, JSON.stringify(body)).toMatchObject({ code: "invalid_request", param });
    }
    expect((await billing(owner, "PATCH", "staging", { low_balance_threshold: "1.00" })).statusCode).toBe(
      400,
    );
    expect((await billing(owner, "GET", "live")).json().low_balance_threshold).toBe("3.0000");
  });

  it("needs a signed-in session (and its CSRF token to change) and sees only its own account", async () => {
    const anonymous = await app.inject({ method: "GET", url: "/dashboard/api/billing?environment=live" });
    expect(anonymous.statusCode).toBe(401);
    const noCsrf = await app.inject({
      method: "PATCH",
      url: "/dashboard/api/billing?environment=live",
      headers: { cookie: owner.cookie },
      payload: { low_balance_threshold: "9.00" },
    });
    expect(noCsrf.statusCode).toBe(403);
    const other = await signedInAccount(ctx, app);
    await billing(other, "PATCH", "live", { low_balance_threshold: "7.00" });
    expect((await billing(owner, "GET", "live")).json().low_balance_threshold).toBe("3.0000");
    expect((await billing(other, "GET", "live")).json().low_balance_threshold).toBe("7.0000");
  });

  it(
    "dakiya account update --environment E --low-balance-threshold sets and clears it",
    async () => {
      const { accountId } = owner;
      await addCredits(
        ctx,
        {
          accountId,
          environment: "live",
          amount: 5 * RUPEE,
          reason: "credits_added",
          reference: null,
        },
        CLI_ORIGIN,
      );
      const set = json<{ id: string; low_balance: unknown }>(
        await dakiya(
          "account",
          "update",
          "--account",
          accountId,
          "--environment",
          "live",
          "--low-balance-threshold",
          "4.00",
          "--json",
        ),
      );
      expect(set.id).toBe(accountId);
      expect(set.low_balance).toEqual({
        environment: "live",
        balance: "5.0000",
        low_balance_threshold: "4.0000",
        below_threshold: false,
      });
      await charge(accountId, "live", 2 * RUPEE);
      expect(await alerts(accountId)).toContainEqual({
        environment: "live",
        balance: "3.0000",
        threshold: "4.0000",
      });

      const human = await dakiya(
        "account",
        "update",
        "--account",
        accountId,
        "--environment",
        "live",
        "--low-balance-threshold",
        "none",
      );
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toContain("Low-balance alert (live): off (balance ₹3.0000)");
      expect((await billing(owner, "GET", "live")).json().low_balance_threshold).toBeNull();
    },
    SLOW,
  );

  it(
    "dakiya account update refuses a threshold without its environment, and bad amounts, in one line",
    async () => {
      const { accountId } = owner;
      await billing(owner, "PATCH", "live", { low_balance_threshold: "2.00" });
      const update = (...args: string[]) => dakiya("account", "update", "--account", accountId, ...args);
      const [alone, environmentAlone, zero, words, unknownEnvironment, unknownAccount] = await Promise.all([
        update("--low-balance-threshold", "1.00"),
        update("--environment", "live"),
        update("--environment", "live", "--low-balance-threshold", "0"),
        update("--environment", "live", "--low-balance-threshold", "ten"),
        update("--environment", "prod", "--low-balance-threshold", "1.00"),
        dakiya(
          "account",
          "update",
          "--account",
          "acct_doesnotexist000000000",
          "--environment",
          "live",
          "--low-balance-threshold",
          "1.00",
        ),
      ]);
      const together =
        "dakiya: account update: give --environment live|sandbox and --low-balance-threshold together";
      expect(oneLineError(alone)).toBe(together);
      expect(oneLineError(environmentAlone)).toBe(together);
      expect(oneLineError(zero)).toMatch(
        /--low-balance-threshold.*must be an amount in INR above 0.*or none/,
      );
      expect(oneLineError(words)).toMatch(/--low-balance-threshold.*'ten' is invalid/);
      expect(oneLineError(unknownEnvironment)).toMatch(/--environment.*Allowed choices are live, sandbox/);
      expect(oneLineError(unknownAccount)).toBe("dakiya: No account acct_doesnotexist000000000.");
      expect((await billing(owner, "GET", "live")).json().low_balance_threshold).toBe("2.0000");
    },
    SLOW,
  );
});
