// Every form an SMS send's write takes (src/db/write-form.ts, src/sms/queue.ts) answers and writes
// what the transaction form does: one table of cases, each run through every form the database
// has, and a batch, each in an account of its own, compared with the transaction form's run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { WriteForm } from "../../src/db/write-form.js";
import type { ApiError } from "../../src/errors.js";
import { queueSends, type Refusals } from "../../src/sms/queue.js";
import { prepareSms } from "../../src/sms/send.js";
import { openTestContext, TestClock, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { registerDlt, SMS_TEMPLATE_CONTENT, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { createAccountWithKey } from "../helpers/fixtures.js";

/** One SMS segment at the default price, ₹0.2500, in 1/10,000 INR. */
const PRICE = 2_500;
/** ₹0.01 in 1/10,000 INR. */
const PAISA = 100;
const RECIPIENT_CAP = 5;

interface WriteCase {
  name: string;
  credits: number;
  /**
   * Sends, by recipient (a letter, the same number in every run), step after step; the sends of
   * a step go together (Promise.all, or one batch). The answers each step must get, sorted:
   * `<letter> 202` or `<letter> <status> <code>`.
   */
  steps: Array<{ to: string[]; answers: string[] }>;
}

const CASES: WriteCase[] = [
  { name: "a plain send", credits: 10 * PRICE, steps: [{ to: ["A"], answers: ["A 202"] }] },
  {
    name: "the hourly recipient cap reached exactly: the next new number refused, a counted one passes",
    credits: 20 * PRICE,
    steps: [
      { to: ["A", "B", "C", "D", "E"], answers: ["A 202", "B 202", "C 202", "D 202", "E 202"] },
      { to: ["F", "A"], answers: ["A 202", "F 429 rate_limited"] },
      { to: ["F"], answers: ["F 429 rate_limited"] },
      { to: ["B"], answers: ["B 202"] },
    ],
  },
  {
    name: "a balance short by one paisa for exactly one send among several",
    credits: 3 * PRICE - PAISA,
    steps: [{ to: ["A", "A", "A"], answers: ["A 202", "A 202", "A 402 insufficient_balance"] }],
  },
  {
    name: "a balance short by one paisa for a lone send to a new number",
    credits: PRICE - PAISA,
    steps: [{ to: ["A"], answers: ["A 402 insufficient_balance"] }],
  },
  {
    name: "a balance that runs out at a new number, then at a counted one",
    credits: 2 * PRICE,
    steps: [
      { to: ["A", "B"], answers: ["A 202", "B 202"] },
      { to: ["C"], answers: ["C 402 insufficient_balance"] },
      { to: ["A"], answers: ["A 402 insufficient_balance"] },
    ],
  },
  {
    name: "two sends to the same number together",
    credits: 10 * PRICE,
    steps: [{ to: ["A", "A"], answers: ["A 202", "A 202"] }],
  },
  {
    name: "several concurrent sends",
    credits: 20 * PRICE,
    steps: [
      {
        to: ["A", "B", "C", "A", "D", "B", "E"],
        answers: ["A 202", "A 202", "B 202", "B 202", "C 202", "D 202", "E 202"],
      },
    ],
  },
];

/** The forms to compare on `dialect`, the reference first; `batch` is the transaction form over a step's sends. */
function formsOn(dialect: string): Array<WriteForm | "batch"> {
  return ["transaction", dialect === "postgres" ? "one_flight" : "burst", "batch"];
}

function numberOf(letter: string): string {
  return `+91980000000${letter.charCodeAt(0) - 64}`;
}

describe.each(DIALECTS)("the forms of an SMS send's write on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, {
      clock: new TestClock(),
      env: { ...UNLIMITED_REQUESTS, SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: String(RECIPIENT_CAP) },
    });
  });

  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  /** A run of `writeCase` through `form`, in a new account: each step's answers, and the rows written. */
  async function run(writeCase: WriteCase, form: WriteForm | "batch") {
    const { accountId, keyId } = await createAccountWithKey(ctx, "sandbox", writeCase.credits);
    const [template] = await registerDlt(ctx, accountId, {
      templates: [{ templateId: SMS_TEMPLATE_ID, content: SMS_TEMPLATE_CONTENT }],
    });
    const principal = { accountId, keyId, environment: "sandbox" as const };
    const scope = { accountId, environment: "sandbox" as const };
    const answers: string[][] = [];
    const refusals: string[][] = [];
    for (const step of writeCase.steps) {
      const sends = step.to.map((letter) =>
        prepareSms(
          ctx,
          principal,
          {
            to: numberOf(letter),
            sender: "DAKIYA",
            template_id: SMS_TEMPLATE_ID,
            variables: { ref: letter },
            reference: letter,
          },
          { senderKnown: true, template },
          form === "batch",
        ),
      );
      const outcomes: Refusals =
        form === "batch"
          ? await queueSends(ctx, { scope, sends, batch: true })
          : await Promise.all(
              sends.map(
                async (sms) => (await queueSends(ctx, { scope, sends: [sms], batch: false }, form))[0],
              ),
            );
      answers.push(step.to.map((letter, i) => answerOf(letter, outcomes[i])).sort());
      refusals.push(outcomes.flatMap((refusal) => (refusal ? [refusalOf(refusal)] : [])).sort());
    }
    return { answers, refusals, rows: await written(accountId) };
  }

  /** What an account's sends left, ids aside. */
  async function written(accountId: string) {
    const [balance, entries, messages, counter, hours] = await Promise.all([
      ctx.db
        .selectFrom("balances")
        .select("balance")
        .where("account_id", "=", accountId)
        .where("environment", "=", "sandbox")
        .executeTakeFirstOrThrow(),
      ctx.db
        .selectFrom("ledger_entries")
        .select(["amount", "balance_after", "reason", "reference"])
        .where("account_id", "=", accountId)
        .execute(),
      ctx.db
        .selectFrom("messages")
        .select([
          "id",
          "recipient",
          "reference",
          "text",
          "cost",
          "status",
          "segments",
          "sender",
          "template_id",
          "channel",
        ])
        .where("account_id", "=", accountId)
        .execute(),
      ctx.db
        .selectFrom("rate_limit_counters")
        .select(["window_start", "count", "expires_at"])
        .where("key", "=", `sms-recipients:${accountId}:sandbox`)
        .execute(),
      ctx.db
        .selectFrom("sms_recipient_hours")
        .select(["window_start", "recipient"])
        .where("account_id", "=", accountId)
        .execute(),
    ]);
    const recipientOf = new Map(messages.map((message) => [message.id, message.recipient]));
    const sorted = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort();
    return {
      balance: Number(balance.balance),
      entries: sorted(
        entries.map((entry) => ({
          amount: Number(entry.amount),
          reason: entry.reason,
          // Each charge's message, by its recipient.
          for: entry.reference === null ? null : (recipientOf.get(entry.reference) ?? "another message"),
        })),
      ),
      // Apart from the entries: which of several sends together is charged first is not promised.
      balancesAfter: entries.map((entry) => Number(entry.balance_after)).sort((a, b) => a - b),
      messages: sorted(messages.map(({ id: _, ...message }) => ({ ...message, cost: Number(message.cost) }))),
      counter: counter.map((row) => ({ ...row, count: Number(row.count) })),
      hours: sorted(hours),
    };
  }

  it.each(CASES)("$name", async (writeCase) => {
    const [reference, ...others] = formsOn(dialect);
    const expected = await run(writeCase, reference as WriteForm);
    expect(expected.answers, "the transaction form's answers").toEqual(
      writeCase.steps.map((step) => step.answers),
    );
    for (const form of others) {
      expect(await run(writeCase, form), `the ${form} form`).toEqual(expected);
    }
  });
});

/** A send's answer: `<letter> 202`, or `<letter> <status> <code>`. */
function answerOf(letter: string, refusal: ApiError | undefined): string {
  return refusal ? `${letter} ${refusal.status} ${refusal.code}` : `${letter} 202`;
}

/** What a refused send's error says besides its code: param, message, Retry-After. */
function refusalOf(refusal: ApiError): string {
  return JSON.stringify([refusal.code, refusal.param, refusal.message, refusal.retryAfter]);
}
