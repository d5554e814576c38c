import { describe, expect, it } from "vitest";
import { getBalance } from "../../src/accounts/ledger.js";
import { loadUntilKilled, useServedAccount } from "../helpers/crash-load.js";
import { DIALECTS } from "../helpers/database.js";
import { SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";

/**
 * Sends without an Idempotency-Key, many at once from one account (on PostgreSQL they share
 * flights, src/db/postgres/flight-lanes.ts; on SQLite, SMS sends share transactions,
 * the burst form of src/sms/queue.ts), and the server killed with SIGKILL among them. A request
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
  const served = useServedAccount(dialect, CREDITS);

  it("every send answered as sent is stored and charged once, and nothing is half written", {
    timeout: 60_000,
  }, async () => {
    const server = await served.startServer();
    const { url } = server;
    const { accountId, secret } = served;
    const sent = new Map<string, string>();
    const { interrupted } = await loadUntilKilled({
      server,
      requests: Array.from({ length: REQUESTS }, (_, i) => {
        const otp = i % 3 === 0;
        const to = `+91${otp ? 8 : 7}${String(i).padStart(9, "0")}`;
        const body = otp
          ? { to }
          : { to, sender: "DAKIYA", template_id: SMS_TEMPLATE_ID, variables: { ref: `R${i}` } };
        return { otp, to, body };
      }),
      concurrency: CONCURRENCY,
      killAfterAnswered: KILL_AFTER_ANSWERED,
      send: async ({ otp, body }) => {
        const response = await fetch(`${url}${otp ? "/v2/otp/send" : "/v2/sms/send"}`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        return {
          status: response.status,
          body: (await response.json()) as { id?: string; message_id?: string },
        };
      },
      answered: ({ otp, to }, answer) => {
        expect(answer.status, JSON.stringify(answer.body)).toBe(otp ? 200 : 202);
        sent.set(to, (otp ? answer.body.message_id : answer.body.id) as string);
      },
    });
    // The kill cut sends off in flight; otherwise this test proved nothing.
    expect(interrupted).toBeGreaterThan(0);

    const db = served.ctx.db;
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
