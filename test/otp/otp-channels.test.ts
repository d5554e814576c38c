import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { addSender, removeSender } from "../../src/dlt/senders.js";
import type { App } from "../../src/http/types.js";
import { sendDueFallbacks } from "../../src/otp/fallback.js";
import { getOtpSettings, updateOtpSettings } from "../../src/otp/settings.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { OTP_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { type Body, NO_RECEIPT, nextNumber, recordingCarrier, useOtpHarness } from "../helpers/otp.js";

/* Channels and charging: prices, channel setup (channel_not_configured, a removed sender), refused requests, balance. */

describe.each(DIALECTS)("OTP channels on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const {
    clock,
    openOther,
    account,
    send,
    sendOk,
    verifyOk,
    getOtp,
    getSms,
    inboxOf,
    sentOtp,
    ledgerOf,
    stateOf,
  } = harness;
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = harness);
  });

  describe("channels and charging", () => {
    it("debits each channel's price with a ledger entry for its message, and delivers each channel's text", async () => {
      const { accountId, secret } = await account();
      const sms = await sentOtp(secret, { channel: "sms" });
      const whatsapp = await sentOtp(secret, { channel: "whatsapp" });
      const voice = await sentOtp(secret, { channel: "voice", length: 6 });
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -2500, reason: "sms_charge", reference: sms.otp.message_id },
        { amount: -5000, reason: "voice_charge", reference: voice.otp.message_id },
        { amount: -3500, reason: "whatsapp_charge", reference: whatsapp.otp.message_id },
      ]);
      const balance = await app.inject({ method: "GET", url: "/v2/balance", headers: bearer(secret) });
      expect(balance.json().balance).toBe("98.9000");

      const [whatsappItem] = await inboxOf(secret, whatsapp.to);
      expect(whatsappItem).toMatchObject({ channel: "whatsapp", message_id: whatsapp.otp.message_id });
      expect(whatsappItem?.text).toContain(whatsapp.code);
      expect(whatsappItem?.text).toContain("expires in 10 minutes");

      const [voiceItem] = await inboxOf(secret, voice.to);
      const digits = [...voice.code].join(", ");
      expect(voiceItem).toMatchObject({
        channel: "voice",
        message_id: voice.otp.message_id,
        text: `Your verification code is ${digits}. Your verification code is ${digits}.`,
      });
      for (const { otp, code, to } of [whatsapp, voice]) {
        const message = (await getSms(secret, otp.message_id as string)).json();
        expect(message).toMatchObject({
          channel: otp.channel,
          cost: otp.channel === "voice" ? "0.5000" : "0.3500",
        });
        expect((await verifyOk(secret, to, code)).reason).toBe("approved");
      }
    });

    it("prices with the operator's price list", async () => {
      const priced = await openOther({
        env: { PRICE_WHATSAPP_MESSAGE: "0.1200", PRICE_VOICE_CALL: "1.0000" },
      });
      const { accountId, secret } = await account();
      const whatsapp = await sendOk(secret, { to: nextNumber(), channel: "whatsapp" }, priced.app);
      const voice = await sendOk(secret, { to: nextNumber(), channel: "voice" }, priced.app);
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -10000, reason: "voice_charge", reference: voice.message_id },
        { amount: -1200, reason: "whatsapp_charge", reference: whatsapp.message_id },
      ]);
    });

    it("a live key without a live carrier for the channel → 422 channel_not_configured, nothing charged", async () => {
      const { accountId, secret } = await account({ environment: "live" });
      const before = await stateOf(accountId);
      for (const body of [
        { channel: "sms" },
        { channel: "whatsapp" },
        { channel: "voice" },
        {},
        { channel: "voice", fallback: "sms" },
      ]) {
        const response = await send(secret, { to: nextNumber(), ...body });
        expect(response.statusCode, response.body).toBe(422);
        expect(response.json().error).toMatchObject({ code: "channel_not_configured", param: "channel" });
      }
      expect(await stateOf(accountId)).toEqual(before);
      expect(before.otps).toEqual([]);
    });

    it("a live WhatsApp carrier without the account's WhatsApp template → 422 channel_not_configured", async () => {
      const { carrier, sent } = recordingCarrier("test-whatsapp");
      const live = await openOther({ liveCarriers: { whatsapp: carrier } });
      const { accountId, secret } = await account({ environment: "live" });
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: nextNumber(), channel: "whatsapp" }, { target: live.app });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json().error.code).toBe("channel_not_configured");
      expect(await stateOf(accountId)).toEqual(before);

      await updateOtpSettings(live.ctx, accountId, "live", { whatsapp_template: "dakiya_otp" }, CLI_ORIGIN);
      const to = nextNumber();
      const otp = await sendOk(secret, { to, channel: "whatsapp" }, live.app);
      await drainQueue(live.ctx);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ id: otp.message_id, channel: "whatsapp", to, environment: "live" });
      expect(sent[0]?.otp).toMatchObject({ whatsappTemplate: "dakiya_otp", expirySeconds: 600 });
      expect((await verifyOk(secret, to, sent[0]?.otp?.code as string, live.app)).reason).toBe("approved");
      expect(await ledgerOf(accountId, "live")).toEqual([
        { amount: -3500, reason: "whatsapp_charge", reference: otp.message_id },
      ]);
    });

    it("SMS without the OTP settings → 422 channel_not_configured; WhatsApp and voice need none in sandbox", async () => {
      const { accountId, secret } = await account({ otpSettings: null });
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: nextNumber() });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json().error).toMatchObject({ code: "channel_not_configured", param: "channel" });
      const asFallback = await send(secret, { to: nextNumber(), channel: "voice", fallback: "sms" });
      expect(asFallback.statusCode).toBe(422);
      expect(asFallback.json().error.code).toBe("channel_not_configured");
      expect(await stateOf(accountId)).toEqual(before);
      expect((await send(secret, { to: nextNumber(), channel: "whatsapp" })).statusCode).toBe(200);
      expect((await send(secret, { to: nextNumber(), channel: "voice" })).statusCode).toBe(200);
    });

    it("refuses bad requests before anything is sent or charged", async () => {
      const { accountId, secret } = await account();
      const before = await stateOf(accountId);
      const cases: Array<[Body, number, string, string]> = [
        [{ to: "+14155552671" }, 422, "unsupported_destination", "to"],
        [{ to: "+447911123456", channel: "voice" }, 422, "unsupported_destination", "to"],
        [{ to: "+915876543210" }, 400, "invalid_request", "to"],
        [{ to: "919876543210" }, 400, "invalid_request", "to"],
        [{}, 400, "invalid_request", "to"],
        [
          { to: "+919876543210", channel: "whatsapp", fallback: "whatsapp" },
          400,
          "invalid_request",
          "fallback",
        ],
        [{ to: "+919876543210", fallback: "sms" }, 400, "invalid_request", "fallback"],
        [{ to: "+919876543210", channel: "email" }, 400, "invalid_request", "channel"],
        [{ to: "+919876543210", code: "123" }, 400, "invalid_request", "code"],
        [{ to: "+919876543210", code: "12345678901" }, 400, "invalid_request", "code"],
        [{ to: "+919876543210", code: "12a456" }, 400, "invalid_request", "code"],
        [{ to: "+919876543210", length: 3 }, 400, "invalid_request", "length"],
        [{ to: "+919876543210", length: 11 }, 400, "invalid_request", "length"],
        [{ to: "+919876543210", priority: "high" }, 400, "invalid_request", "priority"],
      ];
      for (const [body, status, code, param] of cases) {
        const response = await send(secret, body);
        expect(response.statusCode, JSON.stringify(body)).toBe(status);
        expect(response.json().error, JSON.stringify(body)).toMatchObject({ code, param });
      }
      expect(await stateOf(accountId)).toEqual(before);
    });

    it("refuses with 402 when the balance cannot pay, and creates no OTP", async () => {
      const { accountId, secret } = await account({ credits: 3_499 });
      const to = nextNumber();
      const before = await stateOf(accountId);
      const refused = await send(secret, { to, channel: "whatsapp" });
      expect(refused.statusCode, refused.body).toBe(402);
      expect(refused.json().error.code).toBe("insufficient_balance");
      expect(await stateOf(accountId)).toEqual(before);
      expect((await verifyOk(secret, to, "123456")).reason).toBe("not_found");
      // SMS is cheaper, and fits.
      expect((await send(secret, { to })).statusCode).toBe(200);
    });
  });

  describe("a removed sender", () => {
    it("stops SMS OTPs under it: 422 channel_not_configured, nothing charged, no SMS fallback", async () => {
      const { accountId, secret } = await account();
      await updateOtpSettings(
        ctx,
        accountId,
        "live",
        {
          sms_template_id: OTP_TEMPLATE_ID,
          sms_sender: "DAKIYA",
        },
        CLI_ORIGIN,
      );
      const pending = await sentOtp(secret);
      const withFallback = await sendOk(secret, { to: NO_RECEIPT, channel: "whatsapp", fallback: "sms" });
      await drainQueue(ctx);

      const removed = await removeSender(ctx, accountId, "DAKIYA", CLI_ORIGIN);
      clock.advance(30);
      const before = await stateOf(accountId);
      for (const body of [
        { to: nextNumber() },
        { to: pending.to },
        { to: nextNumber(), channel: "voice", fallback: "sms" },
      ]) {
        const refused = await send(secret, body);
        expect(refused.statusCode, refused.body).toBe(422);
        expect(refused.json().error).toMatchObject({ code: "channel_not_configured", param: "channel" });
      }
      // The fallback that fell due after the removal is not sent under the removed header.
      expect(await sendDueFallbacks(ctx)).toBe(0);
      expect(await stateOf(accountId)).toEqual(before);
      expect((await getOtp(secret, withFallback.id)).json().deliveries).toHaveLength(1);
      // Both environments' settings lost it, in the removal's transaction.
      expect(removed).toMatchObject({ otp_settings_cleared: ["live", "sandbox"] });
      expect(await getOtpSettings(ctx.db, accountId, "sandbox")).toMatchObject({
        sms_template_id: OTP_TEMPLATE_ID,
        sms_sender: null,
      });

      // Other channels are untouched, and the pending code still verifies.
      expect((await send(secret, { to: pending.to, channel: "voice" })).statusCode).toBe(200);
      expect((await verifyOk(secret, pending.to, pending.code)).reason).toBe("approved");

      // Registering the header again does not put it back in the settings: that is chosen again.
      await addSender(ctx, accountId, "DAKIYA", CLI_ORIGIN);
      expect((await send(secret, { to: nextNumber() })).statusCode).toBe(422);
      await updateOtpSettings(ctx, accountId, "sandbox", { sms_sender: "DAKIYA" }, CLI_ORIGIN);
      expect((await send(secret, { to: nextNumber() })).statusCode).toBe(200);
    });

    it("settings that still name a sender no longer registered read as having none", async () => {
      // As settings saved before removing a sender cleared them: the sender row is gone, the setting is not.
      const { accountId, secret } = await account();
      await ctx.db.deleteFrom("senders").where("account_id", "=", accountId).execute();
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: nextNumber() });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json().error.code).toBe("channel_not_configured");
      expect(await stateOf(accountId)).toEqual(before);
      expect((await getOtpSettings(ctx.db, accountId, "sandbox")).sms_sender).toBeNull();
    });
  });
});
