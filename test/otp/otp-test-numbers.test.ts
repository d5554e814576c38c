import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { CARRIER_REJECTED, DND_BLOCKED, INVALID_NUMBER, nextNumber, useOtpHarness } from "../helpers/otp.js";

/* Fixed-code test numbers, and the sandbox's test numbers. */

describe.each(DIALECTS)("OTP test numbers on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const { clock, account, send, sendOk, verifyOk, otpDetails, getSms, inboxOf, ledgerOf, stateOf } = harness;
  let ctx: AppContext;
  beforeAll(() => {
    ({ ctx } = harness);
  });

  describe("test numbers with a fixed code", () => {
    const REVIEWER = "+919000000001";

    it("deliver nothing, charge nothing, and verify only the fixed code", async () => {
      const { accountId, secret } = await account({
        otpSettings: { test_numbers: { [REVIEWER]: "123456" } },
      });
      const before = await stateOf(accountId);
      const otp = await sendOk(secret, { to: REVIEWER });
      expect(otp).toMatchObject({ message_id: null, sends: 1, attempts_remaining: 5, status: "pending" });
      await drainQueue(ctx);
      expect(await inboxOf(secret, REVIEWER)).toEqual([]);
      const after = await stateOf(accountId);
      expect({ ...after, otps: [] }).toEqual({ ...before, otps: [] });
      expect((await otpDetails(secret, otp.id)).deliveries).toEqual([]);

      expect(await verifyOk(secret, REVIEWER, "654321")).toEqual({
        verified: false,
        reason: "incorrect_code",
        attempts_remaining: 4,
      });
      expect((await verifyOk(secret, REVIEWER, "123456")).reason).toBe("approved");

      // A caller's code does not override the fixed one; the attempt limit still holds.
      clock.advance(1);
      const next = await sendOk(secret, { to: REVIEWER, code: "999999", channel: "voice" });
      expect(next.id).not.toBe(otp.id);
      for (let i = 0; i < 5; i++)
        expect((await verifyOk(secret, REVIEWER, "999999")).reason).toBe("incorrect_code");
      expect((await verifyOk(secret, REVIEWER, "123456")).reason).toBe("max_attempts_reached");
      expect({ ...(await stateOf(accountId)), otps: [] }).toEqual({ ...before, otps: [] });
    });

    it("work for a live key, even without a live carrier", async () => {
      const { accountId, secret } = await account({
        environment: "live",
        otpSettings: { test_numbers: { [REVIEWER]: "0000" } },
      });
      const otp = await sendOk(secret, { to: REVIEWER, channel: "whatsapp" });
      expect(otp).toMatchObject({ environment: "live", message_id: null });
      expect(await ledgerOf(accountId, "live")).toEqual([]);
      expect((await verifyOk(secret, REVIEWER, "0000")).reason).toBe("approved");
      // Any other number is still refused.
      expect((await send(secret, { to: nextNumber() })).statusCode).toBe(422);
    });
  });

  describe("sandbox test numbers", () => {
    it("+919999999933: the delivery fails carrier_rejected and is refunded", async () => {
      const { accountId, secret } = await account();
      const otp = await sendOk(secret, { to: CARRIER_REJECTED });
      await drainQueue(ctx);
      const message = (await getSms(secret, otp.message_id as string)).json();
      expect(message).toMatchObject({ status: "failed", error_code: "carrier_rejected" });
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -2500, reason: "sms_charge", reference: otp.message_id },
        { amount: 2500, reason: "sms_refund", reference: otp.message_id },
      ]);
      expect(await inboxOf(secret, CARRIER_REJECTED)).toEqual([]);
      expect((await otpDetails(secret, otp.id)).deliveries[0]?.status).toBe("failed");
    });

    it("+919999999911 and +919999999922: undelivered on every channel, still charged", async () => {
      const { accountId, secret } = await account();
      const sms = await sendOk(secret, { to: INVALID_NUMBER });
      const whatsapp = await sendOk(secret, { to: DND_BLOCKED, channel: "whatsapp" });
      await drainQueue(ctx);
      clock.advance(30);
      const voice = await sendOk(secret, { to: INVALID_NUMBER, channel: "voice" });
      expect(voice).toMatchObject({ id: sms.id, sends: 2 });
      await drainQueue(ctx);
      expect((await getSms(secret, sms.message_id as string)).json()).toMatchObject({
        status: "undelivered",
        error_code: "invalid_number",
      });
      expect((await getSms(secret, whatsapp.message_id as string)).json()).toMatchObject({
        status: "undelivered",
        error_code: "dnd_blocked",
      });
      expect((await getSms(secret, voice.message_id as string)).json()).toMatchObject({
        status: "undelivered",
        error_code: "invalid_number",
      });
      expect((await ledgerOf(accountId)).map((e) => e.reason)).toEqual([
        "sms_charge",
        "whatsapp_charge",
        "voice_charge",
      ]);
      expect((await otpDetails(secret, sms.id)).deliveries.map((d) => d.status)).toEqual([
        "undelivered",
        "undelivered",
      ]);
    });
  });
});
