import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { Dialect } from "../../src/db/schema.js";
import type { WriteForm } from "../../src/db/write-form.js";
import { ApiError } from "../../src/errors.js";
import type { KeyPrincipal } from "../../src/keys/authenticate.js";
import type { Clock } from "../../src/lib/clock.js";
import { priceOf } from "../../src/messages/pricing.js";
import { type SendWrite, sendOtp, sendOtpAs } from "../../src/otp/send.js";
import { getSendSettings, type OtpSettings } from "../../src/otp/settings.js";
import type { OtpSendRequest } from "../../src/otp/types.js";
import { type VerifyWrite, verifyOtp, verifyOtpAs } from "../../src/otp/verify.js";
import { openTestContext, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createSendingAccount } from "../helpers/dlt-fixtures.js";
import { HUNDRED_RUPEES } from "../helpers/otp.js";

/*
 * Every form an OTP send or verification's write takes (src/db/write-form.ts) against the
 * ordinary transaction, the reference: one table of send cases and one of verification cases,
 * each run through every form the database has, in a fresh account at the same instant. The
 * answers (ids aside) and every row written must be those of the transaction form taking the
 * same requests one at a time (for requests made together, in some order).
 */

const START = Date.parse("2026-11-22T10:00:00.000Z");
const NUMBER_LIMIT = 3;
const ACCOUNT_LIMIT = 4;
const CODE = "482913";
const [A, B, C, D, E, F] = ["01", "02", "03", "04", "05", "06"].map((n) => `+9198765432${n}`) as [
  string,
  string,
  string,
  string,
  string,
  string,
];

/** A clock each run starts at `START`, moved only by a case's setup. */
class RunClock implements Clock {
  private current = START;
  now(): Date {
    return new Date(this.current);
  }
  reset(): void {
    this.current = START;
  }
  advance(seconds: number): void {
    this.current += seconds * 1000;
  }
}

/** One run of a case: a fresh account, and its setup's sends and verifications in the default form. */
interface Run {
  ctx: AppContext;
  clock: RunClock;
  principal: KeyPrincipal;
  send(request: OtpSendRequest): Promise<unknown>;
  verify(to: string, code: string): Promise<unknown>;
}

interface SendCase {
  name: string;
  /** The answers the case is about, sorted: `new`, `resend`, or a refusal's code. */
  expected: string[];
  /** The account's credits, from the price of one SMS; ₹100 if not given. */
  credits?: (smsPrice: number) => number;
  settings?: Partial<OtpSettings>;
  setup?: (run: Run) => Promise<void>;
  /** Made together in each form; one at a time in the reference. */
  sends: OtpSendRequest[];
  /** Sends to different numbers whose refusals may fall on any of them: numbers are compared as a multiset. */
  anyNumbers?: boolean;
}

const SEND_CASES: SendCase[] = [
  { name: "a first send", expected: ["new"], sends: [{ to: A }] },
  {
    name: "a resend after the cooldown",
    expected: ["resend"],
    setup: async (run) => {
      await run.send({ to: A });
      run.clock.advance(30);
    },
    sends: [{ to: A }],
  },
  {
    name: "a resend inside the cooldown (resend_cooldown)",
    expected: ["resend_cooldown"],
    setup: async (run) => {
      await run.send({ to: A });
      run.clock.advance(10);
    },
    sends: [{ to: A }],
  },
  {
    name: "a caller's new code replacing the pending OTP",
    expected: ["new"],
    setup: async (run) => {
      await run.send({ to: A });
      run.clock.advance(30);
    },
    sends: [{ to: A, code: CODE }],
  },
  {
    name: "a send past the per-number hourly limit",
    expected: ["rate_limited"],
    setup: async (run) => {
      for (const code of ["111111", "222222", "333333"].slice(0, NUMBER_LIMIT)) {
        await run.send({ to: A, code });
        await run.verify(A, code);
      }
    },
    sends: [{ to: A }],
  },
  {
    name: "a send past the per-account hourly limit",
    expected: ["rate_limited"],
    setup: async (run) => {
      for (const to of [B, C, D, E].slice(0, ACCOUNT_LIMIT)) await run.send({ to });
    },
    sends: [{ to: A }],
  },
  {
    name: "a balance short of the price",
    expected: ["insufficient_balance"],
    credits: (price) => price - 1,
    sends: [{ to: A }],
  },
  {
    name: "a send to a test number",
    expected: ["new"],
    settings: { test_numbers: { [A]: "123456" } },
    sends: [{ to: A }],
  },
  {
    name: "two sends to one number together",
    expected: ["new", "resend_cooldown"],
    sends: [{ to: A }, { to: A }],
  },
  {
    name: "sends to different numbers together, past the account's limit",
    expected: ["new", "new", "new", "new", "rate_limited", "rate_limited"],
    sends: [A, B, C, D, E, F].map((to) => ({ to })),
    anyNumbers: true,
  },
  {
    name: "sends to different numbers together, past the balance",
    expected: ["insufficient_balance", "insufficient_balance", "new", "new", "new"],
    credits: (price) => 3 * price,
    sends: [A, B, C, D, E].map((to) => ({ to })),
    anyNumbers: true,
  },
  {
    name: "sends together to new numbers, a pending one and one twice",
    expected: ["new", "new", "resend_cooldown", "resend_cooldown"],
    setup: async (run) => {
      await run.send({ to: A });
    },
    sends: [{ to: B }, { to: A }, { to: C }, { to: C }],
  },
];

interface VerifyCase {
  name: string;
  setup: (run: Run) => Promise<void>;
  /** Made together in each form; one at a time, in every order, in the reference. */
  verifications: Array<{ to: string; code: string }>;
  /**
   * The one-flight form counts a right code's attempt, then approves it in a later round trip:
   * a wrong code counted in between is answered `incorrect_code` with the count after the right
   * one's, while the approval answers the count before it. The rows and the reasons are those of
   * a serial order; the attempts remaining in the answers may not be.
   */
  oneFlightCountsInterleave?: true;
}

const wrongCode = "000000";
const sentWithCode = async (run: Run) => {
  await run.send({ to: A, code: CODE });
};

const VERIFY_CASES: VerifyCase[] = [
  { name: "the right code", setup: sentWithCode, verifications: [{ to: A, code: CODE }] },
  { name: "a wrong code", setup: sentWithCode, verifications: [{ to: A, code: wrongCode }] },
  {
    name: "the attempt that locks the OTP",
    setup: async (run) => {
      await sentWithCode(run);
      for (let attempt = 1; attempt < 5; attempt++) await run.verify(A, wrongCode);
    },
    verifications: [{ to: A, code: wrongCode }],
  },
  {
    name: "an expired OTP",
    setup: async (run) => {
      await sentWithCode(run);
      run.clock.advance(601);
    },
    verifications: [{ to: A, code: CODE }],
  },
  { name: "no OTP sent", setup: async () => {}, verifications: [{ to: A, code: CODE }] },
  {
    name: "an OTP already verified",
    setup: async (run) => {
      await sentWithCode(run);
      await run.verify(A, CODE);
    },
    verifications: [{ to: A, code: CODE }],
  },
  {
    name: "a right and a wrong code together",
    setup: sentWithCode,
    verifications: [
      { to: A, code: wrongCode },
      { to: A, code: CODE },
    ],
    oneFlightCountsInterleave: true,
  },
];

/** The forms of a write on each database; the transaction, the reference, first. */
const FORMS: Record<Dialect, WriteForm[]> = {
  sqlite: ["transaction", "burst"],
  postgres: ["transaction", "one_flight"],
};

/** What a run left: its answers and the rows it wrote, ids replaced by their kind, each sorted. */
interface Outcome {
  answers: string[];
  rows: Record<string, string[]>;
}

describe.each(DIALECTS)("the OTP write forms on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  const clock = new RunClock();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, {
      clock,
      env: {
        ...UNLIMITED_REQUESTS,
        OTP_MAX_SENDS_PER_NUMBER_PER_HOUR: String(NUMBER_LIMIT),
        OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: String(ACCOUNT_LIMIT),
      },
    });
  });

  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  async function newRun(options: Pick<SendCase, "credits" | "settings"> = {}): Promise<Run> {
    clock.reset();
    const credits = options.credits?.(priceOf(ctx.prices, "sms", 1)) ?? HUNDRED_RUPEES;
    const { accountId, keyId } = await createSendingAccount(ctx, credits, { otpSettings: options.settings });
    // Read into the cache, so that sends made together reach their burst in one turn.
    await getSendSettings(ctx, accountId, "sandbox");
    const principal: KeyPrincipal = { accountId, keyId, environment: "sandbox" };
    return {
      ctx,
      clock,
      principal,
      send: (request) => sendOtp(ctx, principal, request),
      verify: (to, code) => verifyOtp(ctx, principal, { to, code }),
    };
  }

  /** Runs `requests` in `form`: together, or one at a time in the order given. */
  async function answersOf<R>(
    requests: R[],
    together: boolean,
    call: (request: R) => Promise<unknown>,
  ): Promise<unknown[]> {
    const settle = (request: R) => call(request).catch((error: unknown) => errorOf(error));
    if (together) return Promise.all(requests.map(settle));
    const answers: unknown[] = [];
    for (const request of requests) answers.push(await settle(request));
    return answers;
  }

  async function sendOutcome(
    sendCase: SendCase,
    form: WriteForm,
    together: boolean,
  ): Promise<{ kinds: string[]; compared: Outcome }> {
    const run = await newRun(sendCase);
    await sendCase.setup?.(run);
    const write = { form } as SendWrite;
    const answers = await answersOf(sendCase.sends, together, (request) =>
      sendOtpAs(ctx, run.principal, request, write),
    );
    const kinds = answers.map((answer) =>
      "error" in (answer as object)
        ? (answer as { error: string }).error
        : (answer as { sends: number }).sends === 1
          ? "new"
          : "resend",
    );
    return {
      kinds: kinds.sort(),
      compared: await outcomeOf(run.principal.accountId, answers, sendCase.anyNumbers === true),
    };
  }

  async function verifyOutcome(
    verifyCase: VerifyCase,
    form: WriteForm,
    verifications: VerifyCase["verifications"],
    together: boolean,
  ): Promise<Outcome> {
    const run = await newRun();
    await verifyCase.setup(run);
    const write = { form } as VerifyWrite;
    const answers = await answersOf(verifications, together, (request) =>
      verifyOtpAs(ctx, run.principal, request, write),
    );
    return outcomeOf(run.principal.accountId, answers, false);
  }

  /** Every row the account's sends and verifications wrote, and the answers, comparable across runs. */
  async function outcomeOf(accountId: string, answers: unknown[], anyNumbers: boolean): Promise<Outcome> {
    const db = ctx.db;
    const otps = await db.selectFrom("otps").selectAll().where("account_id", "=", accountId).execute();
    const tables: Record<string, unknown[]> = {
      otps: otps.map(({ code_hash, code_sealed, ...otp }) => ({
        ...otp,
        code_hash: code_hash.length > 0,
        code_sealed: code_sealed !== null,
      })),
      messages: (
        await db.selectFrom("messages").selectAll().where("account_id", "=", accountId).execute()
      ).map(({ sealed, ...message }) => ({ ...message, sealed: sealed !== null })),
      otp_deliveries: await db
        .selectFrom("otp_deliveries")
        .selectAll()
        .where("otp_id", "in", otps.map((otp) => otp.id).concat(""))
        .execute(),
      ledger_entries: await db
        .selectFrom("ledger_entries")
        .selectAll()
        .where("account_id", "=", accountId)
        .execute(),
      balances: await db.selectFrom("balances").selectAll().where("account_id", "=", accountId).execute(),
      // A count taken back leaves a row of 0, as if none had been counted.
      rate_limit_counters: (
        await db
          .selectFrom("rate_limit_counters")
          .selectAll()
          .where("key", "like", `%${accountId}%`)
          .execute()
      ).filter((row) => Number(row.count) > 0),
      events: (await db.selectFrom("events").selectAll().where("account_id", "=", accountId).execute()).map(
        // The feed's order within a transaction: one per send, or one for a burst's.
        ({ txid: _txid, seq: _seq, ...event }) => event,
      ),
    };
    const comparable = (value: unknown) => {
      let text = JSON.stringify(value)
        .replaceAll(accountId, "<account>")
        .replace(/\b(otp|msg|led|evt)_[0-9A-Za-z]+/g, "<$1>");
      if (anyNumbers) text = text.replace(/\+91\d{10}/g, "<number>");
      return text;
    };
    const rows: Record<string, string[]> = {};
    for (const [table, tableRows] of Object.entries(tables)) rows[table] = tableRows.map(comparable).sort();
    return { answers: answers.map(comparable).sort(), rows };
  }

  describe.each(SEND_CASES)("sending: $name", (sendCase) => {
    it.each(FORMS[dialect])("answers and writes as the transaction in the %s form", async (form) => {
      const reference = await sendOutcome(sendCase, "transaction", false);
      expect(reference.kinds).toEqual(sendCase.expected);
      const outcome = await sendOutcome(sendCase, form, true);
      expect(outcome.kinds).toEqual(sendCase.expected);
      expect(outcome.compared).toEqual(reference.compared);
    });
  });

  describe.each(VERIFY_CASES)("verifying $name", (verifyCase) => {
    it.each(FORMS[dialect])("answers and writes as the transaction in the %s form", async (form) => {
      const references: Outcome[] = [];
      for (const order of orders(verifyCase.verifications)) {
        references.push(await verifyOutcome(verifyCase, "transaction", order, false));
      }
      const outcome = await verifyOutcome(verifyCase, form, verifyCase.verifications, true);
      if (form === "one_flight" && verifyCase.oneFlightCountsInterleave) {
        const reasonsOnly = ({ answers, rows }: Outcome) => ({
          answers: answers.map((answer) => (JSON.parse(answer) as { reason: string }).reason).sort(),
          rows,
        });
        expect(references.map(reasonsOnly)).toContainEqual(reasonsOnly(outcome));
      } else expect(references).toContainEqual(outcome);
    });
  });
});

/** A refusal as the client sees it. */
function errorOf(error: unknown): object {
  if (!(error instanceof ApiError)) throw error;
  return { error: error.code, message: error.message, param: error.param, retryAfter: error.retryAfter };
}

/** Every order of `items`. */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    orders([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}
