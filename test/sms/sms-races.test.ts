import { createInterface } from "node:readline";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getBalance, sumLedger } from "../../src/accounts/ledger.js";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { systemClock } from "../../src/lib/clock.js";
import { openTestContext, TEST_SECRET, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { parseExposition } from "../helpers/prometheus.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

/**
 * Single sends and batches of one account to the same new numbers, in opposite orders, and OTPs
 * to them, on two server processes of one database (one on SQLite): every path that counts and
 * charges must lock the rows it shares with the others in one order (docs/money.md), so none
 * deadlocks, none is answered 5xx, and none needs the transaction's retry for a conflict.
 */

/** One GSM-7 segment at the default price, ₹0.25: an SMS here, and an OTP by SMS. */
const PRICE = 2_500;
const CREDITS = 100_000_000;
const NUMBERS_PER_ROUND = 6;
/** Rounds in flight at once, each to numbers of its own. */
const CONCURRENT_ROUNDS = 3;
const MAX_ROUNDS = 90;
/** No round starts after this; a loaded machine gets through fewer, every one still a full race. */
const TIME_BUDGET_MS = 10_000;
const MIN_ROUNDS = 3;
/** How the servers' connections to PostgreSQL are named, to know when they have all ended. */
const SERVER_APPLICATION = "dakiya-sms-races";

interface Sent {
  status: number;
  /** The ids of the messages the request was answered with. */
  ids: string[];
}

describe.each(DIALECTS)("single sends and batches to the same new numbers on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext | undefined;
  const servers: ServerProcess[] = [];
  /** The servers' log lines that speak of a deadlock or a conflict, or report an error. */
  const troubleLogged: string[] = [];
  let accountId: string;
  let secret: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: systemClock });
    ({ accountId, secret } = await createSendingAccount(ctx, CREDITS));
    const env = {
      DATABASE_URL:
        dialect === "postgres" ? `${database.url}?application_name=${SERVER_APPLICATION}` : database.url,
      DAKIYA_SECRET: TEST_SECRET,
      ...UNLIMITED_REQUESTS,
      // Counted against, never reached.
      SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "100000",
      OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "100000",
    };
    const processes = dialect === "postgres" ? 2 : 1;
    for (let index = 0; index < processes; index++) {
      const server = await startServerProcess(env, ["--no-worker"]);
      createInterface({ input: server.child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
        if (/deadlock|40P01|40001|conflict|"level":(50|60)/i.test(line))
          troubleLogged.push(line.slice(0, 600));
      });
      servers.push(server);
    }
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.kill();
    await ctx?.close();
    await database?.drop();
  });

  it("charges each accepted message once, with no 5xx and no conflict", { timeout: 90_000 }, async () => {
    const [first, second = first] = servers as [ServerProcess, ServerProcess?];
    const post = async (
      server: ServerProcess,
      path: string,
      body: unknown,
      idempotencyKey?: string,
    ): Promise<Sent> => {
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as {
        id?: string;
        message_id?: string;
        data?: Array<{ id?: string }>;
      };
      const ids = answer.data
        ? answer.data.flatMap((item) => (item.id ? [item.id] : []))
        : response.status === 202 && answer.id
          ? [answer.id]
          : response.status === 200 && answer.message_id
            ? [answer.message_id]
            : [];
      return { status: response.status, ids };
    };
    const message = (to: string, ref: string) => ({
      to,
      sender: "DAKIYA",
      template_id: SMS_TEMPLATE_ID,
      variables: { ref },
    });

    /** Every way a send reaches the rows, at once, to `numbers` no one has sent to yet. */
    const race = (round: number, numbers: string[]): Array<Promise<Sent>> => {
      const backwards = [...numbers].reverse();
      return [
        post(first, "/v2/sms/batch", { messages: numbers.map((to) => message(to, `a${round}`)) }),
        post(second, "/v2/sms/batch", { messages: backwards.map((to) => message(to, `b${round}`)) }),
        // Without a key: on PostgreSQL one round trip, sends of a process sharing flights.
        ...backwards.map((to) => post(first, "/v2/sms/send", message(to, `c${round}`))),
        ...numbers.map((to) => post(second, "/v2/sms/send", message(to, `d${round}`))),
        // With a key: the ordinary transaction, which stores the answer.
        ...numbers.map((to) => post(first, "/v2/sms/send", message(to, `e${round}`), `e-${round}-${to}`)),
        ...backwards.map((to) => post(second, "/v2/sms/send", message(to, `f${round}`), `f-${round}-${to}`)),
        // An OTP to each number, charged from the same balance: in flights with the SMS, or keyed,
        // in the ordinary transaction.
        ...numbers.map((to, index) =>
          post(
            index % 2 === 0 ? first : second,
            "/v2/otp/send",
            { to },
            index % 4 < 2 ? undefined : `o-${to}`,
          ),
        ),
      ];
    };

    const answers: Sent[] = [];
    let rounds = 0;
    const runRound = async () => {
      const round = rounds++;
      const numbers = Array.from(
        { length: NUMBERS_PER_ROUND },
        (_, index) => `+9170${String(round).padStart(4, "0")}${String(index).padStart(4, "0")}`,
      );
      answers.push(...(await Promise.all(race(round, numbers))));
    };
    // The servers load the code of each path on its first use: not in the time of the race.
    await runRound();
    const startedAt = Date.now();
    const raceOn = async () => {
      while (rounds < MAX_ROUNDS && Date.now() - startedAt < TIME_BUDGET_MS) await runRound();
    };
    await Promise.all(Array.from({ length: CONCURRENT_ROUNDS }, raceOn));

    const statuses: Record<number, number> = {};
    for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
    let conflicts = 0;
    for (const server of servers) {
      const { samples } = parseExposition(await (await fetch(`${server.url}/metrics`)).text());
      for (const sample of samples) {
        if (sample.name === "dakiya_db_transaction_conflicts_total") conflicts += sample.value;
      }
    }
    // Every deadlock, also those the servers ran again without counting them.
    const deadlocks = await deadlocksIn(ctx as AppContext, dialect, servers);
    expect({ statuses, conflicts, deadlocks, troubleLogged }).toEqual({
      // Per round: the two batches and four single sends a number, one OTP a number.
      statuses: { 200: rounds * NUMBERS_PER_ROUND, 202: rounds * (2 + 4 * NUMBERS_PER_ROUND) },
      conflicts: 0,
      deadlocks: 0,
      troubleLogged: [],
    });
    expect(rounds).toBeGreaterThanOrEqual(MIN_ROUNDS);

    const accepted = answers.flatMap((answer) => answer.ids);
    expect(accepted).toHaveLength(rounds * NUMBERS_PER_ROUND * 7);
    const db = (ctx as AppContext).db;
    const messages = await db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", accountId)
      .execute();
    expect(messages.map((row) => row.id).sort()).toEqual([...accepted].sort());
    const charges = await db
      .selectFrom("ledger_entries")
      .select(["reference", "amount"])
      .where("account_id", "=", accountId)
      .where("reason", "=", "sms_charge")
      .execute();
    expect(charges.map((charge) => charge.reference).sort()).toEqual([...accepted].sort());
    expect(charges.every((charge) => Number(charge.amount) === -PRICE)).toBe(true);
    const balance = await getBalance(db, accountId, "sandbox");
    expect(balance).toBe(CREDITS - accepted.length * PRICE);
    expect(await sumLedger(db, accountId, "sandbox")).toBe(balance);
  });
});

/**
 * The deadlocks PostgreSQL broke in the test's database (0 on SQLite). A connection reports its
 * own when it ends, so the servers are stopped first, and their connections waited for.
 */
async function deadlocksIn(ctx: AppContext, dialect: string, servers: ServerProcess[]): Promise<number> {
  if (dialect !== "postgres") return 0;
  for (const server of servers) await server.kill();
  for (let waited = 0; waited < 10_000; waited += 100) {
    const { rows } = await sql<{ open: string }>`
      select count(*) as open from pg_stat_activity where application_name = ${SERVER_APPLICATION}`.execute(
      ctx.db,
    );
    if (Number(rows[0]?.open) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { rows } = await sql<{ deadlocks: string }>`
    select deadlocks from pg_stat_database where datname = current_database()`.execute(ctx.db);
  return Number(rows[0]?.deadlocks);
}

/*
 * The lock order, one path at a time (PostgreSQL): while another transaction holds one of the
 * account's counters, a send that needs it waits for it holding nothing that comes after it in
 * the order, and so never the balance.
 */
describe.skipIf(!DIALECTS.includes("postgres"))("the lock order of each send on postgres", () => {
  /** The hourly cap on distinct SMS recipients here: small, so a batch can go past it. */
  const CAP = 3;
  let database: TestDatabase;
  let ctx: AppContext;
  let app: App;
  let accountId: string;
  let secret: string;
  let nextNumber = 0;
  const newNumber = () => `+9180${String(nextNumber++).padStart(8, "0")}`;

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    ctx = await openTestContext(database.url, {
      env: { ...UNLIMITED_REQUESTS, SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: String(CAP) },
    });
    app = await buildApp(ctx);
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await database?.drop();
  });

  beforeEach(async () => {
    // A fresh account for each path: its counts start at nothing.
    ({ accountId, secret } = await createSendingAccount(ctx, CREDITS));
  });

  const send = (url: string, payload: unknown, idempotencyKey?: string) =>
    app.inject({
      method: "POST",
      url,
      headers: { ...bearer(secret), ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
      payload: payload as Record<string, unknown>,
    });
  const sms = (to: string) => ({
    to,
    sender: "DAKIYA",
    template_id: SMS_TEMPLATE_ID,
    variables: { ref: "1" },
  });

  /**
   * Holds the account's counter `counter` (its rows of every window) in a transaction of its
   * own, runs `sending` until it waits for them, and answers whether the balance was free then.
   */
  async function balanceFreeWhileWaiting(counter: string, sending: () => Promise<{ statusCode: number }>) {
    const holder = new pg.Client({ connectionString: database.url });
    const prober = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await prober.connect();
    try {
      await holder.query("begin");
      const held = await holder.query("select key from rate_limit_counters where key = $1 for update", [
        `${counter}:${accountId}:sandbox`,
      ]);
      expect(held.rowCount).toBeGreaterThan(0);
      const sent = sending();
      for (let waited = 0; ; waited += 20) {
        const { rows } = await prober.query<{ waiting: string }>(
          `select count(*) as waiting from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (Number(rows[0]?.waiting) > 0) break;
        if (waited > 10_000) throw new Error("the send never waited for the counter");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await prober.query("begin");
      const free = await prober
        .query("select balance from balances where account_id = $1 for update nowait", [accountId])
        .then(
          () => true,
          (error: { code?: string }) => {
            if (error.code !== "55P03") throw error;
            return false;
          },
        );
      await prober.query("rollback");
      await holder.query("commit");
      expect((await sent).statusCode).toBeLessThan(300);
      return free;
    } finally {
      await holder.end();
      await prober.end();
    }
  }

  it("an SMS to a new number, in one round trip", async () => {
    expect((await send("/v2/sms/send", sms(newNumber()))).statusCode).toBe(202);
    const free = await balanceFreeWhileWaiting("sms-recipients", () =>
      send("/v2/sms/send", sms(newNumber())),
    );
    expect(free).toBe(true);
  });

  it("an SMS to a new number with an Idempotency-Key, in its transaction", async () => {
    expect((await send("/v2/sms/send", sms(newNumber()))).statusCode).toBe(202);
    const free = await balanceFreeWhileWaiting("sms-recipients", () =>
      send("/v2/sms/send", sms(newNumber()), "keyed-sms"),
    );
    expect(free).toBe(true);
  });

  it("a batch with more new numbers than the cap has room for, after one already sent to", async () => {
    const known = newNumber();
    expect((await send("/v2/sms/send", sms(known))).statusCode).toBe(202);
    const items = [known, newNumber(), newNumber(), newNumber(), newNumber()];
    let answer: { data: Array<{ status?: string; error?: { code: string } }> } | undefined;
    const free = await balanceFreeWhileWaiting("sms-recipients", async () => {
      const response = await send("/v2/sms/batch", { messages: items.map(sms) });
      answer = response.json();
      return response;
    });
    expect(free).toBe(true);
    expect(answer?.data.map((item) => item.error?.code ?? item.status)).toEqual([
      "queued",
      "queued",
      "queued",
      "rate_limited",
      "rate_limited",
    ]);
  });

  it("an OTP with an Idempotency-Key, in its transaction", async () => {
    expect((await send("/v2/otp/send", { to: newNumber() })).statusCode).toBe(200);
    const free = await balanceFreeWhileWaiting("otp-sends", () =>
      send("/v2/otp/send", { to: newNumber() }, "keyed-otp"),
    );
    expect(free).toBe(true);
  });
});
