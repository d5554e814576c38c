import pg from "pg";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { DIALECTS } from "../helpers/database.js";
import { HUNDRED_RUPEES, nextNumber, useOtpHarness } from "../helpers/otp.js";

/*
 * Many sends of one account at once, on two instances (PostgreSQL) or one (SQLite): the hourly
 * limits hold exactly, every send is charged once, and (PostgreSQL) no lock makes one account's
 * sends wait for each other.
 */

const SMS_PRICE = 2_500;

describe.each(DIALECTS)("concurrent OTP sends of one account on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const { openOther, account, send, ledgerOf } = harness;
  const instances = async (env: NodeJS.ProcessEnv) => {
    if (dialect === "postgres") return [(await openOther({ env })).app, (await openOther({ env })).app];
    // A second SQLite instance in this process would wait on the first one's write lock while
    // blocking the event loop that releases it: the harness's own instance takes the limits instead.
    harness.ctx.otpLimits = loadConfig(env).otpLimits;
    return [harness.app];
  };

  it("50 sends to different numbers at once: exactly the account's hourly limit go through, each charged once", async () => {
    const targets = await instances({ OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "30" });
    const { accountId, secret } = await account();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        send(secret, { to: nextNumber() }, { target: targets[i % targets.length] }),
      ),
    );
    const sent = results.filter((r) => r.statusCode === 200);
    expect(sent).toHaveLength(30);
    for (const refused of results.filter((r) => r.statusCode !== 200)) {
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe("rate_limited");
    }
    const ledger = await ledgerOf(accountId);
    expect(ledger).toHaveLength(30);
    expect(new Set(ledger.map((entry) => entry.reference))).toEqual(
      new Set(sent.map((r) => r.json().message_id)),
    );
    const balance = await harness.ctx.db
      .selectFrom("balances")
      .select("balance")
      .where("account_id", "=", accountId)
      .where("environment", "=", "sandbox")
      .executeTakeFirstOrThrow();
    expect(Number(balance.balance)).toBe(HUNDRED_RUPEES - 30 * SMS_PRICE);
  });

  it("sends to one number at once, each with a new code: exactly the number's hourly limit go through", async () => {
    const targets = await instances({ OTP_MAX_SENDS_PER_NUMBER_PER_HOUR: "3" });
    const { accountId, secret } = await account({ otpSettings: { resend_cooldown_seconds: 0 } });
    const to = nextNumber();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(secret, { to, code: String(100_000 + i) }, { target: targets[i % targets.length] }),
      ),
    );
    // With no cooldown each send replaces the OTP before it, as one after another would.
    const sent = results.filter((r) => r.statusCode === 200);
    expect(sent).toHaveLength(3);
    for (const refused of results.filter((r) => r.statusCode !== 200)) {
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe("rate_limited");
    }
    expect(await ledgerOf(accountId)).toHaveLength(sent.length);
    const otps = await harness.ctx.db
      .selectFrom("otps")
      .select("status")
      .where("account_id", "=", accountId)
      .execute();
    expect(otps).toHaveLength(sent.length);
    expect(otps.filter((otp) => otp.status === "pending")).toHaveLength(1);
  });

  it.skipIf(dialect !== "postgres")(
    "while one send of the account waits inside its transaction, the account's other sends go through",
    async () => {
      const targets = await instances({});
      const { accountId, secret } = await account();
      const stalled = nextNumber();
      // Hold the row of the stalled number's counter for this minute, as a slow transaction would.
      const minute = new Date(Math.floor(harness.clock.now().getTime() / 60_000) * 60_000).toISOString();
      const key = `otp-sends:${accountId}:sandbox:${stalled}`;
      const holder = new pg.Client({ connectionString: harness.database.url });
      await holder.connect();
      try {
        await holder.query(
          "insert into rate_limit_counters (key, window_start, count, expires_at) values ($1, $2, 0, $3)",
          [key, minute, "2999-01-01T00:00:00.000Z"],
        );
        await holder.query("begin");
        await holder.query("select 1 from rate_limit_counters where key = $1 for update", [key]);

        let stalledAnswered = false;
        const stalledSend = send(secret, { to: stalled }, { target: targets[0] }).then((response) => {
          stalledAnswered = true;
          return response;
        });
        // The stalled send is inside its transaction, waiting for the counter's row.
        await waitFor(async () => {
          const waiting = await holder.query(
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          return waiting.rows[0].n >= 1;
        });

        const others = await within(
          10_000,
          "the account's other sends waited for the stalled one",
          Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              send(secret, { to: nextNumber() }, { target: targets[i % targets.length] }),
            ),
          ),
        );
        for (const response of others) expect(response.statusCode, response.body).toBe(200);
        expect(stalledAnswered).toBe(false);

        await holder.query("rollback");
        const released = await stalledSend;
        expect(released.statusCode, released.body).toBe(200);
        expect(await ledgerOf(accountId)).toHaveLength(21);
      } finally {
        await holder.end();
      }
    },
  );
});

function within<T>(milliseconds: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} (over ${milliseconds} ms)`)), milliseconds);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the condition did not hold within 5 s");
}
