// Many sends of one account at once through real server processes (two on PostgreSQL, one on
// SQLite), in every form a send's write takes (flights or bursts, and the transaction that
// stores an Idempotency-Key's answer), crossing the balance's threshold: exactly one
// `balance.low` event, in the events feed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance } from "../../src/accounts/ledger.js";
import { setLowBalanceThreshold } from "../../src/accounts/low-balance.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { systemClock } from "../../src/lib/clock.js";
import { openTestContext, TEST_SECRET, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

/** One GSM-7 segment at the default price, ₹0.25, in 1/10,000 INR. */
const PRICE = 2_500;
const RUPEE = 10_000;
const SENDS = 100;

let numbers = 0;
function nextNumber(): string {
  numbers += 1;
  return `+9198${String(70_000_000 + numbers).padStart(8, "0")}`;
}

function message(to: string) {
  return { to, sender: "DAKIYA", template_id: SMS_TEMPLATE_ID, variables: { ref: "A1" } };
}

describe.each(DIALECTS)("balance.low under concurrent sends on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext | undefined;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: systemClock });
    const env = {
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      ...UNLIMITED_REQUESTS,
      SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "100000",
    };
    const processes = dialect === "postgres" ? 2 : 1;
    const started = await Promise.all(
      Array.from({ length: processes }, () => startServerProcess(env, ["--no-worker"])),
    );
    servers.push(...started);
  }, 90_000);

  afterAll(async () => {
    for (const server of servers) await server.kill();
    await ctx?.close();
    await database?.drop();
  });

  async function post(server: ServerProcess, secret: string, path: string, body: unknown, key?: string) {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        ...(key ? { "idempotency-key": key } : {}),
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.text() };
  }

  /** The account's `balance.low` events as GET /v2/events lists them. */
  async function alertsOf(secret: string) {
    const response = await fetch(`${servers[0]?.url}/v2/events?type=balance.low&limit=100`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as {
      data: Array<{ type: string; environment: string; data: unknown }>;
    };
    return page.data;
  }

  async function sendingAccount(credits: number, threshold: number) {
    if (!ctx) throw new Error("no context");
    const account = await createSendingAccount(ctx, credits, { otpSettings: null });
    await setLowBalanceThreshold(
      ctx,
      { accountId: account.accountId, environment: "sandbox" },
      threshold,
      CLI_ORIGIN,
    );
    return account;
  }

  it(`${SENDS} sends at once crossing the threshold send one balance.low`, { timeout: 90_000 }, async () => {
    const { accountId, secret } = await sendingAccount(30 * RUPEE, 20 * RUPEE);
    const answers = await Promise.all(
      Array.from({ length: SENDS }, (_, index) => {
        const server = servers[index % servers.length] as ServerProcess;
        // Every fifth with a key: the transaction that stores the answer; the rest in flights or bursts.
        const key = index % 5 === 0 ? `low-${index}` : undefined;
        return post(server, secret, "/v2/sms/send", message(nextNumber()), key);
      }),
    );
    for (const answer of answers) expect(answer.status, answer.body).toBe(202);
    expect(await getBalance((ctx as AppContext).db, accountId, "sandbox")).toBe(30 * RUPEE - SENDS * PRICE);

    const alerts = await alertsOf(secret);
    expect(alerts).toHaveLength(1);
    const [alert] = alerts;
    expect(alert?.environment).toBe("sandbox");
    const data = alert?.data as { balance: string; threshold: string };
    expect(data.threshold).toBe("20.0000");
    // The balance the crossing charge left (a burst's sends are charged together, so it may be
    // more than one send below the threshold).
    expect(Number(data.balance)).toBeLessThan(20);
    expect(Number(data.balance)).toBeGreaterThanOrEqual((30 * RUPEE - SENDS * PRICE) / RUPEE);
  });

  it("batches crossing the threshold send one balance.low", { timeout: 60_000 }, async () => {
    const { secret } = await sendingAccount(3 * RUPEE, RUPEE);
    const batch = (size: number) => ({ messages: Array.from({ length: size }, () => message(nextNumber())) });
    const first = await post(servers[0] as ServerProcess, secret, "/v2/sms/batch", batch(6));
    expect(first.status, first.body).toBe(202);
    expect(await alertsOf(secret)).toEqual([]);
    // Two at once of ₹0.75 each: whichever comes first takes the balance from ₹1.50 to ₹0.75.
    const both = await Promise.all(
      servers
        .concat(servers)
        .slice(0, 2)
        .map((server) => post(server, secret, "/v2/sms/batch", batch(3))),
    );
    for (const answer of both) expect(answer.status, answer.body).toBe(202);
    const alerts = await alertsOf(secret);
    expect(alerts.map((alert) => alert.data)).toEqual([{ balance: "0.7500", threshold: "1.0000" }]);
  });
});
