import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { sendDueFallbacks } from "../../src/otp/fallback.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { NO_RECEIPT, nextNumber, useOtpHarness } from "../helpers/otp.js";

/* Fallback to a second channel when the first does not report delivery. */

describe.each(DIALECTS)("OTP fallback on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const { clock, account, sendOk, verifyOk, otpDetails, getSms, inboxOf, deliveredCode, ledgerOf } = harness;
  let ctx: AppContext;
  beforeAll(() => {
    ({ ctx } = harness);
  });

  describe("fallback", () => {
    it("sends the same code once on the fallback channel when the first never reports delivery", async () => {
      const { accountId, secret } = await account();
      const otp = await sendOk(secret, { to: NO_RECEIPT, channel: "whatsapp", fallback: "sms" });
      expect(otp.channel).toBe("whatsapp");
      const code = await deliveredCode(secret, NO_RECEIPT, otp.message_id);
      expect((await getSms(secret, otp.message_id as string)).json().status).toBe("submitted");

      clock.advance(6);
      expect(await sendDueFallbacks(ctx)).toBe(0);
      clock.advance(1);
      expect(await sendDueFallbacks(ctx)).toBe(1);
      expect(await sendDueFallbacks(ctx)).toBe(0);
      clock.advance(60);
      expect(await sendDueFallbacks(ctx)).toBe(0);

      const details = await otpDetails(secret, otp.id);
      expect(details.channel).toBe("whatsapp");
      expect(details.deliveries.map((d) => [d.channel, d.fallback])).toEqual([
        ["whatsapp", false],
        ["sms", true],
      ]);
      const fallbackId = details.deliveries[1]?.message_id as string;
      expect(await deliveredCode(secret, NO_RECEIPT, fallbackId)).toBe(code);
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -3500, reason: "whatsapp_charge", reference: otp.message_id },
        { amount: -2500, reason: "sms_charge", reference: fallbackId },
      ]);
      expect((await verifyOk(secret, NO_RECEIPT, code)).reason).toBe("approved");
    });

    it("sends no fallback when the first channel was delivered", async () => {
      const { accountId, secret } = await account();
      const to = nextNumber();
      const otp = await sendOk(secret, { to, channel: "voice", fallback: "whatsapp" });
      await drainQueue(ctx);
      expect((await getSms(secret, otp.message_id as string)).json().status).toBe("delivered");
      clock.advance(7);
      expect(await sendDueFallbacks(ctx)).toBe(0);
      await drainQueue(ctx);
      expect((await otpDetails(secret, otp.id)).deliveries).toHaveLength(1);
      expect(await inboxOf(secret, to)).toHaveLength(1);
      expect(await ledgerOf(accountId)).toHaveLength(1);
    });

    it("sends no fallback for an approved OTP", async () => {
      const { accountId, secret } = await account({ otpSettings: { fallback_after_seconds: 20 } });
      const otp = await sendOk(secret, { to: NO_RECEIPT, channel: "sms", fallback: "voice" });
      const code = await deliveredCode(secret, NO_RECEIPT, otp.message_id);
      expect((await verifyOk(secret, NO_RECEIPT, code)).reason).toBe("approved");
      clock.advance(20);
      expect(await sendDueFallbacks(ctx)).toBe(0);
      expect((await otpDetails(secret, otp.id)).deliveries).toHaveLength(1);
      expect(await ledgerOf(accountId)).toHaveLength(1);
    });
  });
});
