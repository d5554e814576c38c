import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { OTP_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { nextNumber, useOtpHarness, wrong } from "../helpers/otp.js";

/*
 * Round trips to PostgreSQL per send (README "Running on PostgreSQL"). A round trip is a wait
 * for the database: statements sent while others are still out (a one-flight transaction, reads
 * issued together) share one; a statement sent when none is out starts the next.
 */

const LIVE = process.env.TEST_DATABASE_URL !== undefined;

/** The round trips, and the statements, of every pg client while `work` runs (nothing else runs meanwhile). */
async function roundTrips(work: () => Promise<unknown>): Promise<{ count: number; statements: string[] }> {
  const statements: string[] = [];
  let count = 0;
  let inFlight = 0;
  const query = pg.Client.prototype.query;
  // biome-ignore lint/suspicious/noExplicitAny: pg's query has many overloads; this only watches it
  pg.Client.prototype.query = function (this: pg.Client, ...args: any[]) {
    const text = typeof args[0] === "string" ? args[0] : (args[0]?.text ?? "");
    // A lease of request tokens (src/keys/rate-lease.ts) is taken once per many requests, not per send.
    const lease = String(text).includes("api_key_rate_buckets");
    if (inFlight === 0 && !lease) count += 1;
    statements.push(`${count}: ${String(text).replace(/\s+/g, " ").slice(0, 100)}`);
    inFlight += 1;
    const answer = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    const answered = () => {
      inFlight -= 1;
    };
    answer.then(answered, answered);
    return answer;
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return { count, statements };
}

describe.skipIf(!LIVE)("round trips per send on PostgreSQL", () => {
  const harness = useOtpHarness("postgres");
  let secret = "";

  beforeAll(async () => {
    secret = (await harness.account({ otpSettings: { resend_cooldown_seconds: 0 } })).secret;
    // The first requests of a key write its last use and lease request tokens for this process
    // (src/keys/rate-lease.ts); later ones within a minute do neither.
    for (let i = 0; i < 3; i++) await harness.send(secret, { to: nextNumber() });
  });

  it("an OTP send takes at most 3 round trips", async () => {
    const to = nextNumber();
    const { count, statements } = await roundTrips(async () => {
      const response = await harness.send(secret, { to });
      expect(response.statusCode, response.body).toBe(200);
    });
    expect(count, statements.join("\n")).toBeLessThanOrEqual(3);
  });

  it("verifying an OTP that is no longer pending takes 2 round trips: the key, then its reads", async () => {
    const { to, code } = await harness.sentOtp(secret);
    expect((await harness.verifyOk(secret, to, code)).reason).toBe("approved");
    const { count, statements } = await roundTrips(async () => {
      expect((await harness.verifyOk(secret, to, code)).reason).toBe("already_verified");
    });
    expect(count, statements.join("\n")).toBe(2);
  });

  it("a wrong code for a pending OTP takes 3 round trips: the key, its reads, the counted attempt", async () => {
    const { to, code } = await harness.sentOtp(secret);
    const { count, statements } = await roundTrips(async () => {
      expect(await harness.verifyOk(secret, to, wrong(code))).toEqual({
        verified: false,
        reason: "incorrect_code",
        attempts_remaining: 4,
      });
    });
    expect(count, statements.join("\n")).toBe(3);
  });

  it("a right code takes 5 round trips: the key, its reads, the attempt, the deliveries, the approval", async () => {
    const { otp, to, code } = await harness.sentOtp(secret);
    const { count, statements } = await roundTrips(async () => {
      expect(await harness.verifyOk(secret, to, code)).toEqual({
        verified: true,
        reason: "approved",
        attempts_remaining: 4,
      });
    });
    expect(count, statements.join("\n")).toBe(5);
    expect(await harness.otpDetails(secret, otp.id)).toMatchObject({
      status: "approved",
      attempts_remaining: 4,
    });
  });

  it("an SMS send takes at most 3 round trips", async () => {
    const { count, statements } = await roundTrips(async () => {
      const response = await harness.app.inject({
        method: "POST",
        url: "/v2/sms/send",
        payload: JSON.stringify({
          to: nextNumber(),
          sender: "DAKIYA",
          template_id: OTP_TEMPLATE_ID,
          variables: { otp: "1234" },
        }),
        headers: { "content-type": "application/json", ...bearer(secret) },
      });
      expect(response.statusCode, response.body).toBe(202);
    });
    expect(count, statements.join("\n")).toBeLessThanOrEqual(3);
  });
});
