import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance } from "../src/accounts/ledger.js";
import { systemClock } from "../src/clock.js";
import type { AppContext } from "../src/context.js";
import { openTestContext, TEST_SECRET } from "./helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "./helpers/database.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "./helpers/dlt-fixtures.js";
import { type ServerProcess, startServerProcess } from "./helpers/server-process.js";

/**
 * Sends without an Idempotency-Key, many at once from one account (on PostgreSQL they share
 * flights, src/db/flight-lanes.ts), and the server killed with SIGKILL among them. A request
 * with no answer may or may not have been sent; one answered as sent must be, and whatever was
 * written must be whole: each message charged once, no charge without its message, and the
 * balance the sum of the ledger.
 */

const REQUESTS = 400;
const CONCURRENCY = 40;
const KILL_AFTER_ANSWERED = 120;
const PRICE = 2_500;
const CREDITS = 10_000_000;

describe.each(DIALECTS)("unkeyed sends of one account across SIGKILL on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext | undefined;
  let server: ServerProcess | undefined;
  let accountId: string;
  let secret: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: systemClock });
    ({ accountId, secret } = await createSendingAccount(ctx, CREDITS));
  }, 30_000);

  afterAll(async () => {
    await server?.kill();
    await ctx?.close();
    await database?.drop();
  });

  it("every send answered as sent is stored and charged once, and nothing is half written", {
    timeout: 60_000,
  }, async () => {
    server = await startServerProcess({
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      RATE_LIMIT_PER_MINUTE: "1000000",
      RATE_LIMIT_BURST: "1000000",
    });
    const { url } = server;
    const sent = new Map<string, string>();
    let answered = 0;
    let interrupted = 0;
    let killed: Promise<void> | undefined;
    const requests = Array.from({ length: REQUESTS }, (_, i) => i);
    const client = async () => {
      for (let i = requests.shift(); i !== undefined; i = requests.shift()) {
        const otp = i % 3 === 0;
        const to = `+91${otp ? 8 : 7}${String(i).padStart(9, "0")}`;
        const body = otp
          ? { to }
          : { to, sender: "DAKIYA", template_id: SMS_TEMPLATE_ID, variables: { ref: `R${i}` } };
        let status: number;
        let answer: { id?: string; message_id?: string };
        const sentBeforeKill = killed === undefined;
        try {
          const response = await fetch(`${url}${otp ? "/v2/otp/send" : "/v2/sms/send"}`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(10_000),
          });
          status = response.status;
          answer = (await response.json()) as typeof answer;
        } catch (error) {
          // No answer: the server was killed while the request was in flight, or before it.
          if (killed === undefined) throw error;
          if (sentBeforeKill) interrupted++;
          continue;
        }
        expect(status, JSON.stringify(answer)).toBe(otp ? 200 : 202);
        sent.set(to, (otp ? answer.message_id : answer.id) as string);
        answered++;
        if (answered === KILL_AFTER_ANSWERED) killed = server?.kill();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    await killed;
    // The kill cut sends off in flight; otherwise this test proved nothing.
    expect(interrupted).toBeGreaterThan(0);

    const db = (ctx as AppContext).db;
    const messages = await db
      .selectFrom("messages")
      .select(["id", "recipient", "cost"])
      .where("account_id", "=", accountId)
      .execute();
    const ledger = await db
      .selectFrom("ledger_entries")
      .select(["amount", "reference"])
      .where("account_id", "=", accountId)
      .where("environment", "=", "sandbox")
      .execute();
    const balance = await getBalance(db, accountId, "sandbox");

    const storedIds = new Set(messages.map((message) => message.id));
    expect([...sent.values()].filter((id) => !storedIds.has(id))).toEqual([]);
    expect(new Set(messages.map((message) => message.recipient)).size).toBe(messages.length);
    const charges = ledger.filter((entry) => Number(entry.amount) < 0);
    expect(charges.map((entry) => entry.reference).sort()).toEqual([...storedIds].sort());
    expect(charges.every((entry) => Number(entry.amount) === -PRICE)).toBe(true);
    const ledgerSum = ledger.reduce((sum, entry) => sum + Number(entry.amount), 0);
    expect(balance).toBe(ledgerSum);
    expect(balance).toBe(CREDITS - messages.length * PRICE);
  });
});
