import SqliteDatabase from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { useOtpHarness, wrong } from "../helpers/otp.js";

/*
 * The statements a verification runs on SQLite (docs/performance.md, "Verifications with
 * nothing to write"): the number's pending OTP is read once, before the transaction, which
 * counts the attempt on it without reading it again; the latest OTP is read only when none is
 * pending.
 */

type Method = "all" | "get" | "run";

/** The text of every SQLite statement run while `work` runs (nothing else runs meanwhile). */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const scratch = new SqliteDatabase(":memory:");
  const prototype = Object.getPrototypeOf(scratch.prepare("select 1")) as Record<
    Method,
    (...args: unknown[]) => unknown
  >;
  scratch.close();
  const originals = { all: prototype.all, get: prototype.get, run: prototype.run };
  const seen: string[] = [];
  for (const method of ["all", "get", "run"] as const) {
    prototype[method] = function (this: { source: string }, ...args: unknown[]) {
      seen.push(this.source.replace(/\s+/g, " "));
      return originals[method].apply(this, args);
    };
  }
  try {
    await work();
  } finally {
    Object.assign(prototype, originals);
  }
  return seen;
}

const readsPending = (text: string) => /^select \* from "otps" .*"status" = 'pending'/.test(text);
const readsLatest = (text: string) => /^select "status", "attempts", "max_attempts" from "otps"/.test(text);
const countsAttempt = (text: string) => /^update "otps" set "attempts" = attempts \+ 1/.test(text);

/** Expects `statements` to hold this many reads of the pending OTP and of the latest, and counted attempts. */
function expectRan(statements: string[], ran: { pending: number; latest: number; attempts: number }) {
  const counted = {
    pending: statements.filter(readsPending).length,
    latest: statements.filter(readsLatest).length,
    attempts: statements.filter(countsAttempt).length,
  };
  expect(counted, statements.join("\n")).toEqual(ran);
}

describe("statements of a verification on SQLite", () => {
  const harness = useOtpHarness("sqlite");
  let secret = "";

  beforeAll(async () => {
    secret = (await harness.account({ otpSettings: { resend_cooldown_seconds: 0 } })).secret;
  });

  it("a wrong code reads the pending OTP once and counts the attempt on it, without the latest", async () => {
    const { to, code } = await harness.sentOtp(secret);
    const statements = await statementsOf(async () => {
      expect(await harness.verifyOk(secret, to, wrong(code))).toEqual({
        verified: false,
        reason: "incorrect_code",
        attempts_remaining: 4,
      });
    });
    expectRan(statements, { pending: 1, latest: 0, attempts: 1 });
  });

  it("a right code too, and the OTP is approved", async () => {
    const { otp, to, code } = await harness.sentOtp(secret);
    const statements = await statementsOf(async () => {
      expect((await harness.verifyOk(secret, to, code)).reason).toBe("approved");
    });
    expectRan(statements, { pending: 1, latest: 0, attempts: 1 });
    expect(await harness.otpDetails(secret, otp.id)).toMatchObject({ status: "approved" });
  });

  it("an expired OTP still pending: its attempt is tried once, and it is ended as expired", async () => {
    const { otp, to, code } = await harness.sentOtp(secret);
    harness.clock.advance(600);
    const statements = await statementsOf(async () => {
      expect((await harness.verifyOk(secret, to, code)).reason).toBe("expired");
    });
    expectRan(statements, { pending: 2, latest: 0, attempts: 1 });
    expect(await harness.otpDetails(secret, otp.id)).toMatchObject({ status: "expired" });
  });

  it("an OTP no longer pending: the pending read finds none, the latest answers", async () => {
    const { to, code } = await harness.sentOtp(secret);
    expect((await harness.verifyOk(secret, to, code)).reason).toBe("approved");
    const statements = await statementsOf(async () => {
      expect((await harness.verifyOk(secret, to, code)).reason).toBe("already_verified");
    });
    expectRan(statements, { pending: 1, latest: 1, attempts: 0 });
  });
});
