import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { isoIn, nextNumber, useOtpHarness, wrong } from "../helpers/otp.js";

/* Resends and replacements: cooldown, same code on any channel, a caller's new code, concurrent sends. */

describe.each(DIALECTS)("OTP resend on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const {
    clock,
    openOther,
    account,
    send,
    sendOk,
    verifyOk,
    otpDetails,
    inboxOf,
    deliveredCode,
    sentOtp,
    ledgerOf,
    stateOf,
  } = harness;
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = harness);
  });

  describe("resend", () => {
    it("refuses a resend inside the cooldown with 429 resend_cooldown, sending and charging nothing", async () => {
      const { accountId, secret } = await account();
      const { otp, to } = await sentOtp(secret);
      clock.advance(10);
      const before = await stateOf(accountId);
      for (const channel of ["sms", "whatsapp", "voice"]) {
        const response = await send(secret, { to, channel });
        expect(response.statusCode, response.body).toBe(429);
        expect(response.headers["retry-after"]).toBe("20");
        expect(response.json().error.code).toBe("resend_cooldown");
      }
      clock.advance(19);
      const last = await send(secret, { to });
      expect(last.statusCode).toBe(429);
      expect(last.headers["retry-after"]).toBe("1");
      expect(await stateOf(accountId)).toEqual(before);
      await drainQueue(ctx);
      expect(await inboxOf(secret, to)).toHaveLength(1);
      expect((await otpDetails(secret, otp.id)).sends).toBe(1);
    });

    it("says retry_after in the body of a 429", async () => {
      const { secret } = await account();
      const { to } = await sentOtp(secret);
      clock.advance(10);
      const response = await send(secret, { to });
      expect(response.statusCode).toBe(429);
      expect(response.json().error).toMatchObject({ code: "resend_cooldown", retry_after: 20 });
    });

    it("after the cooldown resends the same code, on any channel, keeping expiry and attempts used", async () => {
      const { accountId, secret } = await account();
      const first = await sentOtp(secret);
      expect((await verifyOk(secret, first.to, wrong(first.code))).attempts_remaining).toBe(4);
      clock.advance(30);

      const again = await sendOk(secret, { to: first.to, channel: "voice" });
      expect(again).toEqual({
        id: first.otp.id,
        status: "pending",
        environment: "sandbox",
        to: first.to,
        channel: "voice",
        expires_at: first.otp.expires_at,
        resend_available_at: isoIn(clock, 30),
        attempts_remaining: 4,
        sends: 2,
        message_id: expect.stringMatching(/^msg_/),
      });
      expect(again.message_id).not.toBe(first.otp.message_id);
      const spoken = await deliveredCode(secret, first.to, again.message_id);
      expect(spoken).toBe(first.code);

      clock.advance(30);
      const third = await sendOk(secret, { to: first.to, channel: "whatsapp" });
      expect(third).toMatchObject({ id: first.otp.id, sends: 3, expires_at: first.otp.expires_at });
      expect(await deliveredCode(secret, first.to, third.message_id)).toBe(first.code);

      const details = await otpDetails(secret, first.otp.id);
      expect(details.sends).toBe(3);
      expect(details.deliveries.map((d) => [d.message_id, d.channel, d.fallback])).toEqual([
        [first.otp.message_id, "sms", false],
        [again.message_id, "voice", false],
        [third.message_id, "whatsapp", false],
      ]);
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -2500, reason: "sms_charge", reference: first.otp.message_id },
        { amount: -5000, reason: "voice_charge", reference: again.message_id },
        { amount: -3500, reason: "whatsapp_charge", reference: third.message_id },
      ]);
      // The resent code is still the one code, and its expiry did not move.
      clock.advance(600 - 60);
      expect((await verifyOk(secret, first.to, first.code)).reason).toBe("expired");
    });

    it("a caller's code replaces the pending OTP, which is cancelled", async () => {
      const { secret } = await account();
      const first = await sentOtp(secret);
      clock.advance(30);
      const replaced = await sendOk(secret, { to: first.to, code: "20261122" });
      expect(replaced.id).not.toBe(first.otp.id);
      expect(replaced).toMatchObject({ sends: 1, attempts_remaining: 5, expires_at: isoIn(clock, 600) });
      expect(await deliveredCode(secret, first.to, replaced.message_id)).toBe("20261122");
      expect((await otpDetails(secret, first.otp.id)).status).toBe("cancelled");
      if (first.code !== "20261122") {
        expect((await verifyOk(secret, first.to, first.code)).reason).toBe("incorrect_code");
      }
      expect((await verifyOk(secret, first.to, "20261122")).reason).toBe("approved");
    });

    it("checks the pending OTP even when it was created in the same instant as the one before it", async () => {
      const { secret } = await account();
      for (let round = 0; round < 20; round++) {
        const to = nextNumber();
        await sendOk(secret, { to, code: "11111111" });
        expect((await verifyOk(secret, to, "11111111")).reason).toBe("approved");
        await sendOk(secret, { to, code: "22222222" });
        expect((await verifyOk(secret, to, "22222222")).reason, `round ${round}`).toBe("approved");
      }
    });

    it("refuses a caller's new code inside the cooldown, like any resend", async () => {
      const { secret } = await account();
      const to = nextNumber();
      await sendOk(secret, { to, code: "11111111" });
      const early = await send(secret, { to, code: "22222222" });
      expect(early.statusCode).toBe(429);
      expect(early.json().error.code).toBe("resend_cooldown");
      expect((await verifyOk(secret, to, "11111111")).reason).toBe("approved");
    });

    it("after expiry, lock or approval a send starts a new OTP with a new code", async () => {
      const { secret } = await account();
      const ends: Record<string, (to: string, code: string) => Promise<void>> = {
        expired: async () => clock.advance(600),
        locked: async (to, code) => {
          for (let i = 0; i < 5; i++) await verifyOk(secret, to, wrong(code));
        },
        approved: async (to, code) => {
          expect((await verifyOk(secret, to, code)).reason).toBe("approved");
        },
      };
      for (const [status, end] of Object.entries(ends)) {
        const first = await sentOtp(secret);
        await end(first.to, first.code);
        clock.advance(30);
        const next = await sentOtp(secret, { to: first.to });
        expect(next.otp.id, status).not.toBe(first.otp.id);
        expect(next.otp).toMatchObject({ sends: 1, attempts_remaining: 5, expires_at: isoIn(clock, 600) });
        expect((await otpDetails(secret, first.otp.id)).status).toBe(status);
        if (next.code !== first.code) {
          expect((await verifyOk(secret, first.to, first.code)).reason, status).toBe("incorrect_code");
        }
        expect((await verifyOk(secret, first.to, next.code)).reason, status).toBe("approved");
      }
    });

    it("concurrent first sends to one number create one OTP and one charge", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { accountId, secret } = await account();
      const to = nextNumber();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => send(secret, { to }, { target: targets[i % targets.length] })),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
      for (const refused of results.filter((r) => r.statusCode !== 200)) {
        expect(refused.statusCode, refused.body).toBe(429);
        expect(refused.json().error.code).toBe("resend_cooldown");
      }
      const state = await stateOf(accountId);
      expect(state.otps).toHaveLength(1);
      expect(state.messages).toHaveLength(1);
      expect(await ledgerOf(accountId)).toHaveLength(1);
    });

    it("concurrent resends after the cooldown deliver and charge once", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { accountId, secret } = await account();
      const first = await sentOtp(secret);
      clock.advance(30);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          send(secret, { to: first.to }, { target: targets[i % targets.length] }),
        ),
      );
      const sent = results.filter((r) => r.statusCode === 200);
      expect(sent.map((r) => r.json().sends)).toEqual([2]);
      for (const refused of results.filter((r) => r.statusCode !== 200)) {
        expect(refused.json().error.code).toBe("resend_cooldown");
      }
      const details = await otpDetails(secret, first.otp.id);
      expect(details.sends).toBe(2);
      expect(details.deliveries).toHaveLength(2);
      expect(await ledgerOf(accountId)).toHaveLength(2);
    });
  });
});
