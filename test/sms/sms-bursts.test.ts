// Single sends that arrive together (on SQLite, queued in one transaction: the burst form of src/sms/queue.ts)
// are each counted, charged, queued or refused as they would be one at a time.
import fc from "fast-check";
import type { LightMyRequestResponse } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { queueSends } from "../../src/sms/queue.js";
import { prepareSms } from "../../src/sms/send.js";
import { UNLIMITED_REQUESTS } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import {
  createSendingAccount,
  registerDlt,
  SMS_TEMPLATE_CONTENT,
  SMS_TEMPLATE_ID,
} from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/** One SMS segment at the default price, ₹0.2500, in 1/10,000 INR. */
const SMS_PRICE = 2_500;
const RECIPIENT_CAP = 6;

function number(n: number): string {
  return `+9198${String(n).padStart(8, "0")}`;
}

describe.each(DIALECTS)("single sends arriving together on %s", (dialect) => {
  const instances = useTestInstances(dialect, {
    env: { ...UNLIMITED_REQUESTS, SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: String(RECIPIENT_CAP) },
  });
  let ctx: AppContext;
  let app: App;
  let nextNumber = 1;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  /** Numbers no other test has sent to. */
  function freshNumbers(count: number): string[] {
    const numbers = Array.from({ length: count }, (_, i) => number(nextNumber + i));
    nextNumber += count;
    return numbers;
  }

  function send(secret: string, to: string, reference: string): Promise<LightMyRequestResponse> {
    return app.inject({
      method: "POST",
      url: "/v2/sms/send",
      headers: bearer(secret),
      payload: {
        to,
        sender: "DAKIYA",
        template_id: SMS_TEMPLATE_ID,
        variables: { ref: reference },
        reference,
      },
    });
  }

  /** What an account's sends left: its balance, its charges, its messages and its counted numbers. */
  async function written(accountId: string) {
    const [balance, charges, messages, counted] = await Promise.all([
      ctx.db
        .selectFrom("balances")
        .select("balance")
        .where("account_id", "=", accountId)
        .where("environment", "=", "sandbox")
        .executeTakeFirstOrThrow(),
      ctx.db
        .selectFrom("ledger_entries")
        .select(["amount", "balance_after", "reference"])
        .where("account_id", "=", accountId)
        .where("reason", "=", "sms_charge")
        .execute(),
      ctx.db
        .selectFrom("messages")
        .select(["id", "recipient", "reference"])
        .where("account_id", "=", accountId)
        .execute(),
      ctx.db
        .selectFrom("sms_recipient_hours")
        .select("recipient")
        .where("account_id", "=", accountId)
        .execute(),
    ]);
    return {
      balance: Number(balance.balance),
      charges: charges.map((row) => ({
        ...row,
        amount: Number(row.amount),
        balance_after: Number(row.balance_after),
      })),
      messages,
      counted: counted.map((row) => row.recipient).sort(),
    };
  }

  it("queues the sends of one turn together, each refused or queued as it would be alone, in order", async () => {
    const accountWith = async (credits: number) => {
      const { accountId, keyId } = await createAccountWithKey(ctx, "sandbox", credits);
      const [template] = await registerDlt(ctx, accountId, {
        templates: [{ templateId: SMS_TEMPLATE_ID, content: SMS_TEMPLATE_CONTENT }],
      });
      const principal = { accountId, keyId, environment: "sandbox" as const };
      return {
        accountId,
        prepare: (to: string, ref: string) =>
          prepareSms(
            ctx,
            principal,
            { to, sender: "DAKIYA", template_id: SMS_TEMPLATE_ID, variables: { ref }, reference: ref },
            { senderKnown: true, template },
            false,
          ),
      };
    };
    const rich = await accountWith(10 * SMS_PRICE);
    const poor = await accountWith(2 * SMS_PRICE);
    const [a, b] = freshNumbers(2) as [string, string];
    const sends = [
      { account: rich, sms: rich.prepare(a, "r1") },
      { account: poor, sms: poor.prepare(a, "p1") },
      { account: poor, sms: poor.prepare(b, "p2") },
      { account: poor, sms: poor.prepare(b, "p3") },
      { account: rich, sms: rich.prepare(b, "r2") },
    ];
    // Queued in one turn of the event loop: one burst, in this order.
    const outcomes = await Promise.all(
      sends.map(async ({ account, sms }) => {
        const write = {
          scope: { accountId: account.accountId, environment: "sandbox" as const },
          sends: [sms],
        };
        const [refusal] = await queueSends(ctx, { ...write, batch: false }, "burst");
        return refusal;
      }),
    );
    expect(outcomes.map((refusal) => refusal?.code ?? "queued")).toEqual([
      "queued",
      "queued",
      "queued",
      "insufficient_balance",
      "queued",
    ]);
    const poorState = await written(poor.accountId);
    expect(poorState.messages.map((m) => m.reference).sort()).toEqual(["p1", "p2"]);
    expect(poorState.balance).toBe(0);
    expect((await written(rich.accountId)).messages.map((m) => m.reference).sort()).toEqual(["r1", "r2"]);
  });

  it("answers each send with its own message, and charges exactly those the balance covers", async () => {
    const { accountId, secret } = await createSendingAccount(ctx, 30 * SMS_PRICE);
    // Five numbers, ten sends each, so the hourly cap on new numbers stays out of the way.
    const five = freshNumbers(5);
    const numbers = Array.from({ length: 50 }, (_, i) => five[i % 5] as string);
    const answers = await Promise.all(numbers.map((to, i) => send(secret, to, `ref-${i}`)));

    const accepted = answers.flatMap((answer, i) => (answer.statusCode === 202 ? [i] : []));
    expect(accepted).toHaveLength(30);
    for (const [i, answer] of answers.entries()) {
      if (answer.statusCode === 202) {
        expect(answer.json()).toMatchObject({ to: numbers[i], reference: `ref-${i}`, status: "queued" });
      } else {
        expect(answer.statusCode, answer.body).toBe(402);
        expect(answer.json().error.code).toBe("insufficient_balance");
      }
    }

    const state = await written(accountId);
    expect(state.balance).toBe(0);
    const ids = accepted.map((i) => answers[i]?.json().id).sort();
    expect(state.messages.map((m) => m.id).sort()).toEqual(ids);
    for (const message of state.messages) {
      const i = Number(message.reference?.slice(4));
      expect(message.recipient).toBe(numbers[i]);
    }
    // One charge a message, and the ledger's running balance steps down one price at a time.
    expect(state.charges.map((c) => c.reference).sort()).toEqual(ids);
    expect(state.charges.every((c) => c.amount === -SMS_PRICE)).toBe(true);
    expect(state.charges.map((c) => c.balance_after).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 30 }, (_, k) => k * SMS_PRICE),
    );
    // Each number counted once against the hourly cap, however many sends went to it.
    expect(state.counted).toEqual([...new Set(accepted.map((i) => numbers[i]))].sort());
  });

  it("holds the hourly cap on new numbers, and lets numbers already counted through", async () => {
    const { accountId, secret } = await createSendingAccount(ctx, 100 * SMS_PRICE);
    const [known, twice, ...others] = freshNumbers(9) as [string, string, ...string[]];
    expect((await send(secret, known, "first")).statusCode).toBe(202);

    const requests = [
      ...others.map((to, i) => ({ to, reference: `new-${i}` })),
      { to: twice, reference: "twice-a" },
      ...[1, 2, 3, 4].map((i) => ({ to: known, reference: `known-${i}` })),
      { to: twice, reference: "twice-b" },
    ];
    const answers = await Promise.all(requests.map(({ to, reference }) => send(secret, to, reference)));

    for (const [i, answer] of answers.entries()) {
      const { to } = requests[i] as { to: string };
      if (to === known) expect(answer.statusCode, answer.body).toBe(202);
      if (answer.statusCode === 429) {
        expect(answer.json().error.code).toBe("rate_limited");
        expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
      } else {
        expect(answer.statusCode, answer.body).toBe(202);
      }
    }
    const sentTo = new Set(requests.filter((_, i) => answers[i]?.statusCode === 202).map((r) => r.to));
    // Both sends to one number share its fate: counted once, both go or neither does.
    const twiceAnswers = answers.filter((_, i) => requests[i]?.to === twice).map((a) => a.statusCode);
    expect(new Set(twiceAnswers).size).toBe(1);

    const state = await written(accountId);
    expect(state.counted).toEqual([...sentTo].sort());
    expect(state.counted).toHaveLength(RECIPIENT_CAP);
    expect(state.messages).toHaveLength(1 + answers.filter((a) => a.statusCode === 202).length);
    expect(state.balance).toBe((100 - state.messages.length) * SMS_PRICE);
  });

  it("keeps the sends of several accounts apart when they arrive together", async () => {
    const rich = await createSendingAccount(ctx, 100 * SMS_PRICE);
    const poor = await createSendingAccount(ctx, SMS_PRICE);
    const broke = await createSendingAccount(ctx, SMS_PRICE - 1);
    const accounts = [rich, poor, broke];
    const requests = freshNumbers(5).flatMap((to, i) =>
      accounts.map((account, a) => ({ account, to, reference: `a${a}-${i}` })),
    );
    const answers = await Promise.all(requests.map((r) => send(r.account.secret, r.to, r.reference)));
    const statuses = (account: (typeof accounts)[number]) =>
      answers.filter((_, i) => requests[i]?.account === account).map((a) => a.statusCode);

    expect(statuses(rich)).toEqual([202, 202, 202, 202, 202]);
    expect(statuses(poor).filter((s) => s === 202)).toHaveLength(1);
    expect(statuses(poor).filter((s) => s === 402)).toHaveLength(4);
    expect(statuses(broke)).toEqual([402, 402, 402, 402, 402]);

    expect((await written(rich.accountId)).messages.map((m) => m.reference).sort()).toEqual([
      "a0-0",
      "a0-1",
      "a0-2",
      "a0-3",
      "a0-4",
    ]);
    const poorState = await written(poor.accountId);
    expect(poorState.balance).toBe(0);
    expect(poorState.messages).toHaveLength(1);
    expect(poorState.counted).toEqual([poorState.messages[0]?.recipient]);
    const brokeState = await written(broke.accountId);
    expect(brokeState).toMatchObject({ balance: SMS_PRICE - 1, charges: [], messages: [], counted: [] });
  });

  it("never overcharges, overcounts or loses a send, whatever arrives together", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 30 }),
        async (credits, picks) => {
          const accounts = await Promise.all(credits.map((n) => createSendingAccount(ctx, n * SMS_PRICE)));
          const numbers = freshNumbers(10);
          const requests = picks.map(([a, n], i) => ({
            account: accounts[a % accounts.length] as (typeof accounts)[number],
            to: numbers[n] as string,
            reference: `p-${i}`,
          }));
          const answers = await Promise.all(requests.map((r) => send(r.account.secret, r.to, r.reference)));
          for (const [a, account] of accounts.entries()) {
            const mine = requests.flatMap((r, i) =>
              r.account === account ? [{ ...r, answer: answers[i] }] : [],
            );
            const accepted = mine.filter((r) => r.answer?.statusCode === 202);
            const refused = mine.filter((r) => r.answer?.statusCode !== 202);
            const state = await written(account.accountId);
            // Nothing is lost: every accepted send is queued and charged once, and nothing else is.
            expect(state.messages.map((m) => m.reference).sort()).toEqual(
              accepted.map((r) => r.reference).sort(),
            );
            expect(state.charges).toHaveLength(accepted.length);
            expect(state.balance).toBe(((credits[a] as number) - accepted.length) * SMS_PRICE);
            // The numbers counted are exactly those sent to, never more than the cap.
            expect(state.counted).toEqual([...new Set(accepted.map((r) => r.to))].sort());
            expect(state.counted.length).toBeLessThanOrEqual(RECIPIENT_CAP);
            for (const { answer, to } of refused) {
              const code = answer?.json().error.code;
              // A refusal is owed: the balance ran out, or the cap was full without this number.
              if (code === "insufficient_balance") expect(state.balance).toBeLessThan(SMS_PRICE);
              else {
                expect(code).toBe("rate_limited");
                expect(state.counted).toHaveLength(RECIPIENT_CAP);
                expect(state.counted).not.toContain(to);
              }
            }
          }
        },
      ),
      { numRuns: dialect === "postgres" ? 8 : 20 },
    );
  });
});
