import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.js";
import { sendOtp } from "../../src/otp/send.js";
import { verifyOtp } from "../../src/otp/verify.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { codeIn, nextNumber, type OtpResponse, useOtpHarness, wrong } from "../helpers/otp.js";

/*
 * OTP sends that arrive together (on SQLite, new OTPs are written in one transaction:
 * src/otp/send.ts; on PostgreSQL, each in one round trip) are each stored, charged,
 * counted, refused or sent again as they would be one at a time.
 */

const SMS_PRICE = 2_500;

describe.each(DIALECTS)("OTP sends arriving together on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const { account, send, inboxOf, verify, ledgerOf, sentOtp } = harness;

  /** The account's OTP sends counted against its hourly limit. */
  async function accountSendsCounted(accountId: string): Promise<number> {
    const rows = await harness.ctx.db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("key", "=", `otp-sends:${accountId}:sandbox`)
      .execute();
    return rows.reduce((sum, row) => sum + Number(row.count), 0);
  }

  it("stores, charges, announces and delivers each new OTP, and each verifies with its own code", async () => {
    const { accountId, secret } = await account();
    const numbers = Array.from({ length: 20 }, () => nextNumber());
    const answers = await Promise.all(numbers.map((to) => send(secret, { to })));
    const otps = answers.map((answer) => {
      expect(answer.statusCode, answer.body).toBe(200);
      return answer.json<OtpResponse>();
    });
    expect(otps.map((otp) => otp.to)).toEqual(numbers);
    expect(new Set(otps.map((otp) => otp.id)).size).toBe(20);

    const ledger = await ledgerOf(accountId);
    expect(ledger.map((entry) => entry.reference).sort()).toEqual(otps.map((otp) => otp.message_id).sort());
    expect(ledger.every((entry) => entry.amount === -SMS_PRICE)).toBe(true);
    expect(await accountSendsCounted(accountId)).toBe(20);
    const events = await harness.ctx.db
      .selectFrom("events")
      .select(["type", "data"])
      .where("account_id", "=", accountId)
      .execute();
    const sentEvents = events
      .filter((event) => event.type === "otp.sent")
      .map((event) => JSON.parse(event.data));
    expect(sentEvents.map((data) => data.id).sort()).toEqual(otps.map((otp) => otp.id).sort());
    for (const data of sentEvents) {
      const otp = otps.find((o) => o.id === data.id) as OtpResponse;
      expect(data).toMatchObject({ to: otp.to, status: "pending", sends: 1 });
      expect(data.deliveries).toEqual([
        expect.objectContaining({ message_id: otp.message_id, fallback: false }),
      ]);
    }

    await drainQueue(harness.ctx);
    for (const otp of otps) {
      const [delivered] = await inboxOf(secret, otp.to);
      expect(delivered?.message_id).toBe(otp.message_id);
      const verified = await verify(secret, otp.to, codeIn(delivered as NonNullable<typeof delivered>));
      expect(verified.json()).toMatchObject({ verified: true, reason: "approved" });
    }
  });

  it("sends what the balance covers and refuses the rest as one at a time would, leaving no trace of them", async () => {
    const poor = await account({ credits: 7 * SMS_PRICE });
    const rich = await account();
    const requests = Array.from({ length: 12 }, (_, i) => ({
      owner: i % 2 === 0 ? poor : rich,
      to: nextNumber(),
    }));
    requests.push(...Array.from({ length: 6 }, () => ({ owner: poor, to: nextNumber() })));
    const answers = await Promise.all(requests.map(({ owner, to }) => send(owner.secret, { to })));
    const of = (owner: typeof poor) => answers.filter((_, i) => requests[i]?.owner === owner);

    expect(of(rich).map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    const poorAnswers = of(poor);
    expect(poorAnswers.filter((a) => a.statusCode === 200)).toHaveLength(7);
    for (const refused of poorAnswers.filter((a) => a.statusCode !== 200)) {
      expect(refused.statusCode, refused.body).toBe(402);
      expect(refused.json().error.code).toBe("insufficient_balance");
    }
    const otps = await harness.ctx.db
      .selectFrom("otps")
      .select("recipient")
      .where("account_id", "=", poor.accountId)
      .execute();
    expect(otps).toHaveLength(7);
    expect(await ledgerOf(poor.accountId)).toHaveLength(7);
    // Refused sends are not counted against the hourly limit.
    expect(await accountSendsCounted(poor.accountId)).toBe(7);
    expect(await accountSendsCounted(rich.accountId)).toBe(6);
  });

  it("leaves a burst the balance cannot cover to go one at a time, taking back what it counted", async () => {
    const { accountId, keyId, secret } = await account({ credits: 4 * SMS_PRICE });
    // The first send reads the OTP settings into the cache: the sends after it reach the burst
    // in the same turn of the event loop.
    expect((await send(secret, { to: nextNumber() })).statusCode).toBe(200);
    const principal = { accountId, keyId, environment: "sandbox" as const };
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        sendOtp(harness.ctx, principal, { to: nextNumber() }).then(
          () => "sent",
          (error: unknown) => (error instanceof ApiError ? error.code : "error"),
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(["insufficient_balance", "insufficient_balance", "sent", "sent", "sent"]);
    expect(await ledgerOf(accountId)).toHaveLength(4);
    expect(await accountSendsCounted(accountId)).toBe(4);
    const numbersCounted = await harness.ctx.db
      .selectFrom("rate_limit_counters")
      .select(["key", "count"])
      .where("key", "like", `otp-sends:${accountId}:sandbox:%`)
      .execute();
    expect(numbersCounted.filter((row) => Number(row.count) > 0)).toHaveLength(4);
  });

  // On PostgreSQL the same verifications run at once, in no order (otp-verify.test.ts covers them).
  it.skipIf(dialect !== "sqlite")(
    "checks verifications that arrive together in order, each as it would be alone",
    async () => {
      const { accountId, keyId, secret } = await account();
      const [a, b, c] = [await sentOtp(secret), await sentOtp(secret), await sentOtp(secret)];
      const principal = { accountId, keyId, environment: "sandbox" as const };
      // Verified in one turn of the event loop: on SQLite, in one transaction, in this order.
      const attempts = [
        { to: a.to, code: wrong(a.code) },
        { to: b.to, code: b.code },
        { to: a.to, code: a.code },
        { to: b.to, code: b.code },
        { to: c.to, code: wrong(c.code) },
      ];
      const results = await Promise.all(
        attempts.map((attempt) => verifyOtp(harness.ctx, principal, attempt)),
      );
      const maxAttempts = a.otp.attempts_remaining;
      expect(results).toEqual([
        { verified: false, reason: "incorrect_code", attempts_remaining: maxAttempts - 1 },
        { verified: true, reason: "approved", attempts_remaining: maxAttempts - 1 },
        { verified: true, reason: "approved", attempts_remaining: maxAttempts - 2 },
        { verified: false, reason: "already_verified", attempts_remaining: maxAttempts - 1 },
        { verified: false, reason: "incorrect_code", attempts_remaining: maxAttempts - 1 },
      ]);
      const otps = await harness.ctx.db
        .selectFrom("otps")
        .select(["recipient", "status", "attempts"])
        .where("account_id", "=", accountId)
        .execute();
      const byNumber = new Map(otps.map((otp) => [otp.recipient, otp]));
      expect(byNumber.get(a.to)).toMatchObject({ status: "approved", attempts: 2 });
      expect(byNumber.get(b.to)).toMatchObject({ status: "approved", attempts: 1 });
      expect(byNumber.get(c.to)).toMatchObject({ status: "pending", attempts: 1 });
    },
  );

  it("takes a number with an OTP pending, or asked for twice at once, as one at a time would", async () => {
    const { accountId, secret } = await account();
    const pendingNumber = nextNumber();
    expect((await send(secret, { to: pendingNumber })).statusCode).toBe(200);
    const twice = nextNumber();
    const fresh = nextNumber();
    const requests = [{ to: twice }, { to: pendingNumber }, { to: fresh }, { to: twice }];
    const answers = await Promise.all(requests.map((body) => send(secret, body)));
    const codes = answers.map((answer) => (answer.statusCode === 200 ? "sent" : answer.json().error.code));

    // Within the resend cooldown, the pending OTP is not sent again.
    expect(codes[1]).toBe("resend_cooldown");
    expect(codes[2]).toBe("sent");
    // One of the two sends to the same number makes its OTP; the other finds it pending.
    expect([codes[0], codes[3]].sort()).toEqual(["resend_cooldown", "sent"]);

    const otps = await harness.ctx.db
      .selectFrom("otps")
      .select(["recipient", "status", "sends"])
      .where("account_id", "=", accountId)
      .execute();
    expect(otps.map((otp) => otp.recipient).sort()).toEqual([pendingNumber, twice, fresh].sort());
    expect(otps.every((otp) => otp.status === "pending" && Number(otp.sends) === 1)).toBe(true);
    expect(await ledgerOf(accountId)).toHaveLength(3);
    expect(await accountSendsCounted(accountId)).toBe(3);
  });
});
