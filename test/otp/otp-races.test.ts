import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { systemClock } from "../../src/lib/clock.js";
import { openTestContext, TEST_SECRET } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createSendingAccount } from "../helpers/dlt-fixtures.js";
import { nextNumber, type OtpResponse, type VerifyResponse } from "../helpers/otp.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

/*
 * Sends and verifications of one number racing each other on real server processes: two on one
 * PostgreSQL database, one on SQLite. With the resend cooldown at 0 every send is accepted, as it
 * would be one after the other: without a code as a resend of the pending OTP, with one as a new
 * OTP that replaces it. A verification with the right code of the OTP pending when it is checked
 * approves it; none answers `expired` for an OTP ten minutes from its expiry.
 */

/** How long each test keeps starting rounds. */
const ROUNDS_FOR_MS = 6_000;
const MAX_ROUNDS = 40;
/** ₹100,000 in 1/10,000 INR: every send of every round is paid for. */
const CREDITS = 1_000_000_000;
const MAX_ATTEMPTS = 5;
/** Two servers compiling their sources at once on a busy machine may take a while to listen. */
const SERVER_START_MS = 90_000;

interface Answer<T> {
  status: number;
  body: T & { error?: { code: string } };
}

describe.each(DIALECTS)("OTP sends and verifications racing on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  const servers: ServerProcess[] = [];
  let secret: string;
  let accountId: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: systemClock });
    ({ accountId, secret } = await createSendingAccount(ctx, CREDITS, {
      otpSettings: {
        resend_cooldown_seconds: 0,
        max_attempts: MAX_ATTEMPTS,
        expiry_seconds: 600,
      },
    }));
    const env = {
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      RATE_LIMIT_PER_MINUTE: "1000000",
      RATE_LIMIT_BURST: "1000000",
      OTP_MAX_SENDS_PER_OTP: "100",
      OTP_MAX_SENDS_PER_NUMBER_PER_HOUR: "10000",
      OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "10000000",
    };
    // SQLite is one process's database: a second process would only queue for its write lock.
    const started = await Promise.allSettled(
      Array.from({ length: dialect === "postgres" ? 2 : 1 }, () =>
        startServerProcess(env, ["--no-worker"], SERVER_START_MS),
      ),
    );
    for (const server of started) if (server.status === "fulfilled") servers.push(server.value);
    for (const server of started) if (server.status === "rejected") throw server.reason;
  }, SERVER_START_MS + 30_000);

  afterAll(async () => {
    for (const server of servers) await server.kill();
    await ctx?.close();
    await database?.drop();
  });

  /** The server of the `i`th request of a round: they alternate. */
  const serverFor = (i: number) => servers[i % servers.length] as ServerProcess;

  async function post<T>(i: number, path: string, body: Record<string, unknown>): Promise<Answer<T>> {
    const response = await fetch(`${serverFor(i).url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.status, body: (await response.json()) as Answer<T>["body"] };
  }

  const send = (i: number, body: Record<string, unknown>) => post<OtpResponse>(i, "/v2/otp/send", body);
  const verify = (i: number, to: string, code: string) =>
    post<VerifyResponse>(i, "/v2/otp/verify", { to, code });

  async function otpsOf(to: string) {
    const rows = await ctx.db
      .selectFrom("otps")
      .select(["id", "status", "attempts", "max_attempts", "sends"])
      .where("account_id", "=", accountId)
      .where("recipient", "=", to)
      .orderBy("created_at")
      .execute();
    return rows.map((row) => ({
      ...row,
      attempts: Number(row.attempts),
      max_attempts: Number(row.max_attempts),
      sends: Number(row.sends),
    }));
  }

  /** Runs `round` again and again for ROUNDS_FOR_MS (at least twice, at most MAX_ROUNDS times). */
  async function rounds(round: (index: number) => Promise<void>): Promise<void> {
    const end = Date.now() + ROUNDS_FOR_MS;
    for (let index = 0; index < MAX_ROUNDS && (index < 2 || Date.now() < end); index++) await round(index);
  }

  it("verifications with the right code racing sends of new OTPs (same code): every one approves or finds the OTP approved", {
    timeout: 60_000,
  }, async () => {
    const numbersPerRound = 6;
    const reasons = new Map<string, number>();
    await rounds(async (round) => {
      const numbers = Array.from({ length: numbersPerRound }, (_, n) => ({
        to: nextNumber(),
        code: String(100_000 + round * 100 + n),
      }));
      // Each number has an OTP pending when the race starts, which the racing sends replace.
      for (const first of await Promise.all(numbers.map(({ to, code }, n) => send(n, { to, code })))) {
        expect(first.status, JSON.stringify(first.body)).toBe(200);
      }
      await Promise.all(
        numbers.flatMap(({ to, code }, n) =>
          Array.from({ length: 3 }, (_, i) => [
            send(n + i, { to, code }).then((answer) => {
              expect(answer.status, JSON.stringify(answer.body)).toBe(200);
            }),
            verify(n + i + 1, to, code).then((answer) => {
              expect(answer.status, JSON.stringify(answer.body)).toBe(200);
              const { reason } = answer.body;
              reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
              expect(["approved", "already_verified"], `verify of ${to}: ${reason}`).toContain(reason);
            }),
          ]).flat(),
        ),
      );
      for (const { to, code } of numbers) {
        const otps = await otpsOf(to);
        for (const otp of otps) expect(otp.attempts).toBeLessThanOrEqual(otp.max_attempts);
        // A right code counted on an OTP approves it unless a send replaced it first.
        const pending = otps.filter((otp) => otp.status === "pending");
        expect(
          pending.filter((otp) => otp.attempts > 0),
          JSON.stringify(otps),
        ).toEqual([]);
        expect(pending.length).toBeLessThanOrEqual(1);
        // The right code, once the race is over: the pending OTP is approved, or the latest was.
        const last = await verify(0, to, code);
        expect(last.body.reason, `${to}: ${JSON.stringify(otps)}`).toBe(
          pending.length === 1 ? "approved" : "already_verified",
        );
        const after = await otpsOf(to);
        expect(after.filter((otp) => otp.status === "pending")).toEqual([]);
        expect(after.some((otp) => otp.status === "approved")).toBe(true);
      }
    });
    expect(reasons.get("approved") ?? 0).toBeGreaterThan(0);
  });

  it("verifications with the first OTP's code racing sends of new codes: approved, or incorrect for a replaced OTP", {
    timeout: 60_000,
  }, async () => {
    await rounds(async (round) => {
      const numbers = Array.from({ length: 6 }, () => nextNumber());
      const first = (n: number) => String(300_000 + round * 100 + n);
      for (const sent of await Promise.all(numbers.map((to, n) => send(n, { to, code: first(n) })))) {
        expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      }
      const verdicts = await Promise.all(
        numbers.map((to, n) =>
          Promise.all(
            Array.from({ length: 3 }, (_, i) => [
              send(n + i, { to, code: String(400_000 + round * 100 + n * 10 + i) }).then((answer) => {
                expect(answer.status, JSON.stringify(answer.body)).toBe(200);
                return undefined;
              }),
              verify(n + i + 1, to, first(n)).then((answer) => answer.body.reason),
            ]).flat(),
          ),
        ),
      );
      for (const [n, ofNumber] of verdicts.entries()) {
        const reasons = ofNumber.filter((reason) => reason !== undefined);
        // The first OTP is approved once at most; every other check is of the same code
        // against an OTP already approved or against a new code.
        expect(reasons.filter((reason) => reason === "approved").length).toBeLessThanOrEqual(1);
        for (const reason of reasons) {
          expect(["approved", "already_verified", "incorrect_code"], `${numbers[n]}: ${reason}`).toContain(
            reason,
          );
        }
        for (const otp of await otpsOf(numbers[n] as string)) {
          expect(otp.attempts).toBeLessThanOrEqual(otp.max_attempts);
        }
      }
    });
  });

  it("sends without a code racing to one number, cooldown 0: one new OTP, the others resends of it", {
    timeout: 60_000,
  }, async () => {
    await rounds(async () => {
      const numbers = Array.from({ length: 4 }, () => nextNumber());
      const answers = await Promise.all(
        numbers.map((to, n) => Promise.all(Array.from({ length: 4 }, (_, i) => send(n + i, { to })))),
      );
      for (const [n, ofNumber] of answers.entries()) {
        for (const answer of ofNumber) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(new Set(ofNumber.map((answer) => answer.body.id)).size).toBe(1);
        expect(ofNumber.map((answer) => answer.body.sends).sort()).toEqual([1, 2, 3, 4]);
        const otps = await otpsOf(numbers[n] as string);
        expect(otps.map((otp) => [otp.status, otp.sends])).toEqual([["pending", 4]]);
      }
    });
  });

  it("sends with a code racing to one number, cooldown 0: each a new OTP replacing the one before", {
    timeout: 60_000,
  }, async () => {
    await rounds(async (round) => {
      const numbers = Array.from({ length: 4 }, () => nextNumber());
      const answers = await Promise.all(
        numbers.map((to, n) =>
          Promise.all(
            Array.from({ length: 4 }, (_, i) => send(n + i, { to, code: String(200_000 + round * 10 + i) })),
          ),
        ),
      );
      for (const [n, ofNumber] of answers.entries()) {
        for (const answer of ofNumber) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(new Set(ofNumber.map((answer) => answer.body.id)).size).toBe(4);
        const otps = await otpsOf(numbers[n] as string);
        expect(otps.map((otp) => otp.status).sort()).toEqual([
          "cancelled",
          "cancelled",
          "cancelled",
          "pending",
        ]);
      }
    });
  });
});
