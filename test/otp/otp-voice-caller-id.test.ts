import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateAccount } from "../../src/accounts/update.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { sendDueFallbacks } from "../../src/otp/fallback.js";
import { getOtpSettings, updateOtpSettings } from "../../src/otp/settings.js";
import { UNLIMITED_REQUESTS } from "../helpers/context.js";
import { dashboardRequest, type SignedIn, signIn } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { callForm, type FakeTwilio, startFakeTwilio } from "../helpers/fake-twilio.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";
import type { TestInstance } from "../helpers/instances.js";
import { NO_RECEIPT, nextNumber, useOtpHarness } from "../helpers/otp.js";

/* Voice caller ID: the number voice OTPs call from, and the 1600-series rule of BFSI accounts. */

const OPERATOR_FROM = "+918046001234";
const BANK_CALLER_ID = "+911601234567";
const REGULATOR_CALLER_ID = "+911600765432";

describe.each(DIALECTS)("voice caller ID on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const { account, send, sendOk, stateOf, otpDetails, clock } = harness;
  let ctx: AppContext;
  let app: App;
  let twilio: FakeTwilio;
  /** A server whose live voice goes to the loopback Twilio, calling from `OPERATOR_FROM` by default. */
  let liveVoice: TestInstance;

  function voiceEnv(from: string): NodeJS.ProcessEnv {
    return {
      ...UNLIMITED_REQUESTS,
      VOICE_API_URL: twilio.url,
      VOICE_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
      VOICE_AUTH_TOKEN: "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0",
      VOICE_FROM: from,
    };
  }

  beforeAll(async () => {
    ({ ctx, app } = harness);
    twilio = await startFakeTwilio();
    liveVoice = await harness.openOther({ env: voiceEnv(OPERATOR_FROM) });
  });

  afterAll(async () => {
    await twilio?.close();
  });

  async function signedIn(accountId: string): Promise<SignedIn> {
    const { email } = await ctx.db
      .selectFrom("accounts")
      .select("email")
      .where("id", "=", accountId)
      .executeTakeFirstOrThrow();
    return signIn(app, email, TEST_PASSWORD);
  }

  function patchSettings(session: SignedIn, body: object) {
    return dashboardRequest(app, session, "PATCH", "/dashboard/api/otp-settings?environment=live", body);
  }

  /** Calls placed on the loopback Twilio to `to`, as their `From`. */
  function callsTo(to: string): string[] {
    return twilio.requests.map(callForm).flatMap((form) => (form.To === to ? [form.From ?? ""] : []));
  }

  describe("saving the setting", () => {
    it("a BFSI account: a number outside the 1600 series → 422 invalid_caller_id, nothing changed; a 1600-series one is saved", async () => {
      const { accountId } = await account({ environment: "live" });
      await updateAccount(ctx, accountId, { bfsi: true }, CLI_ORIGIN);
      const session = await signedIn(accountId);
      const before = await getOtpSettings(ctx.db, accountId, "live");

      for (const callerId of [
        OPERATOR_FROM,
        "+91160123456",
        "+9116012345678",
        "+911602234567",
        "+14155550100",
      ]) {
        const refused = await patchSettings(session, { expiry_seconds: 300, voice_caller_id: callerId });
        expect(refused.statusCode, callerId).toBe(422);
        expect(refused.json().error).toMatchObject({ code: "invalid_caller_id", param: "voice_caller_id" });
        expect(refused.json().error.message).toContain("1600-series");
      }
      expect(await getOtpSettings(ctx.db, accountId, "live")).toEqual(before);

      const malformed = await patchSettings(session, { voice_caller_id: "1601234567" });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().error).toMatchObject({ code: "invalid_request", param: "voice_caller_id" });

      for (const callerId of [BANK_CALLER_ID, REGULATOR_CALLER_ID]) {
        const saved = await patchSettings(session, { voice_caller_id: callerId });
        expect(saved.statusCode, saved.body).toBe(200);
        expect(saved.json()).toMatchObject({ voice_caller_id: callerId, bfsi: true });
      }
      const shown = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/otp-settings?environment=live",
      );
      expect(shown.json()).toMatchObject({
        voice_caller_id: REGULATOR_CALLER_ID,
        bfsi: true,
        default_voice_caller_id: null,
      });
      // Cleared, the operator's default applies again; the sandbox has settings of its own.
      expect((await patchSettings(session, { voice_caller_id: "" })).json().voice_caller_id).toBeNull();
      expect((await getOtpSettings(ctx.db, accountId, "sandbox")).voice_caller_id).toBeNull();
    });

    it("any other account may call from any E.164 number; one marked BFSI later must move to the 1600 series to save", async () => {
      const { accountId } = await account({ environment: "live" });
      const session = await signedIn(accountId);
      const saved = await patchSettings(session, { voice_caller_id: OPERATOR_FROM });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json()).toMatchObject({ voice_caller_id: OPERATOR_FROM, bfsi: false });

      await updateAccount(ctx, accountId, { bfsi: true }, CLI_ORIGIN);
      const refused = await patchSettings(session, { expiry_seconds: 300 });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().error.code).toBe("invalid_caller_id");
      expect((await getOtpSettings(ctx.db, accountId, "live")).expiry_seconds).toBe(600);
      const moved = await patchSettings(session, { expiry_seconds: 300, voice_caller_id: BANK_CALLER_ID });
      expect(moved.statusCode, moved.body).toBe(200);
    });
  });

  describe("voice OTPs on a live loopback provider", () => {
    it("call from the account's caller ID when it set one, else from VOICE_FROM", async () => {
      const bank = await account({ environment: "live" });
      await updateAccount(liveVoice.ctx, bank.accountId, { bfsi: true }, CLI_ORIGIN);
      await updateOtpSettings(
        liveVoice.ctx,
        bank.accountId,
        "live",
        { voice_caller_id: BANK_CALLER_ID },
        CLI_ORIGIN,
      );
      const shop = await account({ environment: "live" });

      const bankTo = nextNumber();
      const shopTo = nextNumber();
      await sendOk(bank.secret, { to: bankTo, channel: "voice" }, liveVoice.app);
      await sendOk(shop.secret, { to: shopTo, channel: "voice" }, liveVoice.app);
      await drainQueue(liveVoice.ctx);

      expect(callsTo(bankTo)).toEqual([BANK_CALLER_ID]);
      expect(callsTo(shopTo)).toEqual([OPERATOR_FROM]);
    });

    it("a BFSI account without a 1600-series caller ID → 422 channel_not_configured, saying why; nothing sent or charged", async () => {
      const { accountId, secret } = await account({ environment: "live" });
      // Set while the account was not BFSI: saved, but no longer one it may call from.
      await updateOtpSettings(
        liveVoice.ctx,
        accountId,
        "live",
        { voice_caller_id: "+918041234567" },
        CLI_ORIGIN,
      );
      await updateAccount(liveVoice.ctx, accountId, { bfsi: true }, CLI_ORIGIN);
      const before = await stateOf(accountId);
      const to = nextNumber();

      const ownRefused = await send(secret, { to, channel: "voice" }, { target: liveVoice.app });
      expect(ownRefused.statusCode, ownRefused.body).toBe(422);
      expect(ownRefused.json().error).toMatchObject({ code: "channel_not_configured", param: "channel" });
      expect(ownRefused.json().error.message).toMatch(/1600-series.*\+918041234567, is not one/);

      // None set: the operator's VOICE_FROM is not 1600-series either.
      await updateOtpSettings(liveVoice.ctx, accountId, "live", { voice_caller_id: null }, CLI_ORIGIN);
      const refused = await send(secret, { to, channel: "voice" }, { target: liveVoice.app });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json().error.code).toBe("channel_not_configured");
      expect(refused.json().error.message).toContain(`the server's default, ${OPERATOR_FROM}, is not one`);
      await drainQueue(liveVoice.ctx);
      expect(callsTo(to)).toEqual([]);
      expect(await stateOf(accountId)).toEqual(before);
    });

    it("a BFSI account with none set calls from VOICE_FROM when that is 1600-series", async () => {
      const bankServer = await harness.openOther({ env: voiceEnv(REGULATOR_CALLER_ID) });
      const { accountId, secret } = await account({ environment: "live" });
      await updateAccount(bankServer.ctx, accountId, { bfsi: true }, CLI_ORIGIN);
      const to = nextNumber();
      await sendOk(secret, { to, channel: "voice" }, bankServer.app);
      await drainQueue(bankServer.ctx);
      expect(callsTo(to)).toEqual([REGULATOR_CALLER_ID]);
    });
  });

  describe("in the sandbox", () => {
    it("holds BFSI accounts to the same rule, with the sandbox's own setting", async () => {
      const { accountId, secret } = await account();
      await updateAccount(ctx, accountId, { bfsi: true }, CLI_ORIGIN);
      const before = await stateOf(accountId);
      for (const body of [{ channel: "voice" }, { channel: "sms", fallback: "voice" }]) {
        const refused = await send(secret, { to: nextNumber(), ...body });
        expect(refused.statusCode, refused.body).toBe(422);
        expect(refused.json().error.code).toBe("channel_not_configured");
        expect(refused.json().error.message).toContain("the server has no default");
      }
      expect(await stateOf(accountId)).toEqual(before);

      await updateOtpSettings(ctx, accountId, "sandbox", { voice_caller_id: BANK_CALLER_ID }, CLI_ORIGIN);
      await sendOk(secret, { to: nextNumber(), channel: "voice" });
    });

    it("sends no voice fallback once the account is BFSI without a 1600-series caller ID", async () => {
      const sent = [];
      for (const bfsi of [true, false]) {
        const { accountId, secret } = await account();
        await updateOtpSettings(ctx, accountId, "sandbox", { voice_caller_id: OPERATOR_FROM }, CLI_ORIGIN);
        const otp = await sendOk(secret, { to: NO_RECEIPT, channel: "sms", fallback: "voice" });
        await updateAccount(ctx, accountId, { bfsi }, CLI_ORIGIN);
        sent.push({ bfsi, otp, secret });
      }
      clock.advance(7);
      expect(await sendDueFallbacks(ctx)).toBe(1);
      for (const { bfsi, otp, secret } of sent) {
        const channels = (await otpDetails(secret, otp.id)).deliveries.map((d) => d.channel);
        expect(channels).toEqual(bfsi ? ["sms"] : ["sms", "voice"]);
      }
    });
  });
});
