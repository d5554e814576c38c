import { createHmac } from "node:crypto";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { OutboundMessage } from "../../src/delivery/carrier.js";
import { createVoiceCarrier, spokenText, twiml, VOICE_CARRIER } from "../../src/delivery/carriers/voice.js";
import { parseVoiceConfig, type VoiceConfig } from "../../src/delivery/carriers/voice-config.js";
import { ConfigError } from "../../src/errors.js";
import type { App } from "../../src/http/types.js";
import { isoNow } from "../../src/lib/clock.js";
import { newId } from "../../src/lib/ids.js";
import { createLogger } from "../../src/lib/logger.js";
import { twilioSignature, voiceWebhookRoutes } from "../../src/receipts/voice-webhook.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { callForm, type FakeTwilio, json, startFakeTwilio } from "../helpers/fake-twilio.js";
import { createTestAccount } from "../helpers/fixtures.js";

const ACCOUNT_SID = "AC0123456789abcdef0123456789abcdef";
const AUTH_TOKEN = "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0";
const FROM = "+918046001234";
const TO = "+919876543210";
const CODE = "482913";
const PUBLIC_URL = "https://dakiya.example.in";
const CALLBACK_URL = `${PUBLIC_URL}/webhooks/voice/status`;
const SENTENCE = "Your verification code is 4, 8, 2, 9, 1, 3.";

function voiceMessage(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id: "msg_test",
    accountId: "acct_test",
    environment: "live",
    channel: "voice",
    to: TO,
    sender: null,
    templateId: null,
    entityId: null,
    text: "Your verification code is *, *, *, *, *, *. Your verification code is *, *, *, *, *, *.",
    encoding: "gsm7",
    segments: 1,
    priority: "otp",
    category: "otp",
    expiresAt: null,
    otp: { code: CODE, expirySeconds: 600, whatsappTemplate: null, whatsappLanguage: "en" },
    ...overrides,
  };
}

describe("spoken text and TwiML", () => {
  it("reads the code digit by digit, twice", () => {
    expect(spokenText(CODE)).toBe(`${SENTENCE} ${SENTENCE}`);
  });

  it("says it in Indian English with a pause between the readings", () => {
    expect(twiml(CODE)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response>' +
        `<Say language="en-IN">${SENTENCE}</Say><Pause length="1"/><Say language="en-IN">${SENTENCE}</Say>` +
        "</Response>",
    );
  });

  it("escapes XML", () => {
    const xml = twiml(`1<&>"'`);
    expect(xml).toContain("Your verification code is 1, &lt;, &amp;, &gt;, &quot;, &apos;.");
    expect(xml).not.toMatch(/<Say language="en-IN">[^<]*<(?!\/Say>)/);
  });
});

describe("voice configuration", () => {
  const base = { VOICE_ACCOUNT_SID: ACCOUNT_SID, VOICE_AUTH_TOKEN: AUTH_TOKEN, VOICE_FROM: FROM };

  it("is off unless the account, token and caller id are set", () => {
    expect(parseVoiceConfig({})).toBeUndefined();
    expect(parseVoiceConfig({ VOICE_API_URL: "https://api.twilio.com", PUBLIC_URL })).toBeUndefined();
    expect(() => parseVoiceConfig({ VOICE_ACCOUNT_SID: ACCOUNT_SID, VOICE_FROM: FROM })).toThrow(ConfigError);
  });

  it("defaults to Twilio, without status callbacks when PUBLIC_URL is unset", () => {
    expect(parseVoiceConfig(base)).toEqual({
      apiUrl: "https://api.twilio.com",
      accountSid: ACCOUNT_SID,
      authToken: AUTH_TOKEN,
      from: FROM,
      statusCallbackUrl: undefined,
    });
  });

  it("builds the status callback URL from PUBLIC_URL", () => {
    const config = parseVoiceConfig({
      ...base,
      PUBLIC_URL: `${PUBLIC_URL}/`,
      VOICE_API_URL: "http://127.0.0.1:9/",
    });
    expect(config?.statusCallbackUrl).toBe(CALLBACK_URL);
    expect(config?.apiUrl).toBe("http://127.0.0.1:9");
    expect(parseVoiceConfig({ ...base, PUBLIC_URL: "https://example.in/dakiya" })?.statusCallbackUrl).toBe(
      "https://example.in/dakiya/webhooks/voice/status",
    );
  });

  it("refuses malformed URLs and a caller id that is not E.164", () => {
    expect(() => parseVoiceConfig({ ...base, VOICE_API_URL: "api.twilio.com" })).toThrow(ConfigError);
    expect(() => parseVoiceConfig({ ...base, VOICE_API_URL: "ftp://api.twilio.com" })).toThrow(ConfigError);
    expect(() => parseVoiceConfig({ ...base, PUBLIC_URL: "dakiya.example.in" })).toThrow(ConfigError);
    expect(() => parseVoiceConfig({ ...base, PUBLIC_URL: `${PUBLIC_URL}/?x=1` })).toThrow(ConfigError);
    expect(() => parseVoiceConfig({ ...base, VOICE_FROM: "918046001234" })).toThrow(ConfigError);
    expect(() => parseVoiceConfig({ ...base, VOICE_FROM: "+91 80460 01234" })).toThrow(ConfigError);
    expect(() => parseVoiceConfig({ ...base, VOICE_ACCOUNT_SID: "AC/../x" })).toThrow(ConfigError);
  });
});

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { log: createLogger("trace", stream), lines };
}

describe("voice carrier against a loopback Twilio", () => {
  let twilio: FakeTwilio;

  beforeEach(async () => {
    twilio = await startFakeTwilio();
  });

  afterEach(async () => {
    await twilio.close();
  });

  function config(overrides: Partial<VoiceConfig> = {}): VoiceConfig {
    return {
      apiUrl: twilio.url,
      accountSid: ACCOUNT_SID,
      authToken: AUTH_TOKEN,
      from: FROM,
      statusCallbackUrl: CALLBACK_URL,
      ...overrides,
    };
  }

  it("places the call with the code spoken twice and returns the call sid", async () => {
    const { log, lines } = capturingLogger();
    const carrier = createVoiceCarrier(config(), { log });
    expect(carrier.name).toBe(VOICE_CARRIER);

    const result = await carrier.send(voiceMessage());

    expect(result).toEqual({
      outcome: "accepted",
      carrierMessageIds: ["CA00000000000000000000000000000001"],
    });
    expect(twilio.requests).toHaveLength(1);
    const [request] = twilio.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Calls.json`);
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString("base64")}`,
    );
    expect(request?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(request?.body);
    expect(form.get("To")).toBe(TO);
    expect(form.get("From")).toBe(FROM);
    expect(form.get("StatusCallback")).toBe(CALLBACK_URL);
    expect(form.get("StatusCallbackEvent")).toBe("completed");
    const xml = form.get("Twiml") ?? "";
    expect(xml).toBe(twiml(CODE));
    const says = [...xml.matchAll(/<Say language="en-IN">([^<]*)<\/Say>/g)].map((match) => match[1]);
    expect(says).toEqual([SENTENCE, SENTENCE]);
    expect(xml).toContain('<Pause length="1"/>');
    expect(lines.join("")).not.toContain(AUTH_TOKEN);
    expect(lines.join("")).not.toContain(CODE);
  });

  it("asks for no status callback when no public URL is configured", async () => {
    const carrier = createVoiceCarrier(config({ statusCallbackUrl: undefined }), {
      log: createLogger("silent"),
    });
    expect((await carrier.send(voiceMessage())).outcome).toBe("accepted");
    const form = new URLSearchParams(twilio.requests[0]?.body);
    expect(form.has("StatusCallback")).toBe(false);
    expect(form.has("StatusCallbackEvent")).toBe(false);
  });

  it("calls from the account's caller ID when the message carries one, else from VOICE_FROM", async () => {
    const carrier = createVoiceCarrier(config(), { log: createLogger("silent") });
    const otp = { code: CODE, expirySeconds: 600, whatsappTemplate: null, whatsappLanguage: "en" };
    expect(
      (await carrier.send(voiceMessage({ otp: { ...otp, voiceCallerId: "+911601234567" } }))).outcome,
    ).toBe("accepted");
    expect((await carrier.send(voiceMessage({ otp }))).outcome).toBe("accepted");
    expect(twilio.requests.map((request) => callForm(request).From)).toEqual(["+911601234567", FROM]);
  });

  it("refuses a message without an OTP code, without calling", async () => {
    const carrier = createVoiceCarrier(config(), { log: createLogger("silent") });
    const { otp: _otp, ...withoutOtp } = voiceMessage();
    expect(await carrier.send(withoutOtp)).toMatchObject({
      outcome: "permanent",
      errorCode: "voice_code_missing",
    });
    expect(twilio.requests).toHaveLength(0);
  });

  it("retries when Twilio is failing or throttling", async () => {
    const carrier = createVoiceCarrier(config(), { log: createLogger("silent") });
    twilio.respond = (_request, response) =>
      json(response, 503, { code: 20500, message: "Service Unavailable", status: 503 });
    expect(await carrier.send(voiceMessage())).toMatchObject({
      outcome: "retryable",
      errorCode: "voice_503",
    });

    twilio.respond = (_request, response) =>
      json(response, 429, { code: 20429, message: "Too Many Requests", status: 429 }, { "retry-after": "7" });
    expect(await carrier.send(voiceMessage())).toEqual({
      outcome: "retryable",
      errorCode: "voice_429",
      errorMessage: "Too Many Requests",
      retryAfterSeconds: 7,
    });
  });

  it("retries when Twilio does not answer in time", async () => {
    const carrier = createVoiceCarrier(config(), { log: createLogger("silent"), timeoutMs: 100 });
    twilio.respond = () => {};
    const started = Date.now();
    expect(await carrier.send(voiceMessage())).toMatchObject({
      outcome: "retryable",
      errorCode: "voice_unreachable",
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("retries when nothing listens at the API address", async () => {
    const url = twilio.url;
    await twilio.close();
    const carrier = createVoiceCarrier(config({ apiUrl: url }), { log: createLogger("silent") });
    expect(await carrier.send(voiceMessage())).toMatchObject({
      outcome: "retryable",
      errorCode: "voice_unreachable",
    });
    twilio = await startFakeTwilio();
  });

  it("fails for good on a 4xx, with Twilio's error code and no secret in the message", async () => {
    const { log, lines } = capturingLogger();
    const carrier = createVoiceCarrier(config(), { log });
    twilio.respond = (_request, response) =>
      json(response, 400, {
        code: 21211,
        message: `The 'To' number is not a valid phone number (Twiml said ${CODE}, auth ${AUTH_TOKEN}).`,
        more_info: "https://www.twilio.com/docs/errors/21211",
        status: 400,
      });
    const result = await carrier.send(voiceMessage());
    expect(result).toMatchObject({ outcome: "permanent", errorCode: "voice_21211" });
    expect(JSON.stringify(result)).not.toContain(CODE);
    expect(JSON.stringify(result)).not.toContain(AUTH_TOKEN);
    expect(lines.join("")).not.toContain(CODE);
    expect(lines.join("")).not.toContain(AUTH_TOKEN);

    twilio.respond = (_request, response) => {
      response.writeHead(404, { "content-type": "text/html" });
      response.end("<html>Not Found</html>");
    };
    expect(await carrier.send(voiceMessage())).toMatchObject({
      outcome: "permanent",
      errorCode: "voice_404",
    });
  });
});

describe("Twilio request signatures", () => {
  it("match Twilio's published example", () => {
    const params: Array<[string, string]> = [
      ["CallSid", "CA1234567890ABCDE"],
      ["Caller", "+14158675309"],
      ["Digits", "1234"],
      ["From", "+14158675309"],
      ["To", "+18005551212"],
    ];
    expect(twilioSignature("12345", "https://mycompany.com/myapp.php?foo=1&bar=2", params.reverse())).toBe(
      "RSOYDt4T1cUTdK1PDd93/VVr8B8=",
    );
  });
});

describe("voice status callbacks", () => {
  let database: TestDatabase;
  let ctx: AppContext | undefined;
  let app: App | undefined;
  const voiceConfig: VoiceConfig = {
    apiUrl: "https://api.twilio.com",
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    from: FROM,
    statusCallbackUrl: CALLBACK_URL,
  };

  beforeEach(async () => {
    database = await createTestDatabase("sqlite");
    ctx = await openTestContext(database.url);
    app = await buildApp(ctx);
    voiceWebhookRoutes(app, ctx, voiceConfig, { receiptRetries: 0 });
    await app.ready();
  });

  afterEach(async () => {
    await app?.close();
    await ctx?.close();
    await database.drop();
    [app, ctx] = [undefined, undefined];
  });

  /** A submitted voice message with its call, as markSubmitted leaves it. */
  async function submittedCall(callSid: string): Promise<string> {
    const current = ctx as AppContext;
    const accountId = await createTestAccount(current);
    const id = newId("msg");
    const now = isoNow(current.clock);
    await current.db
      .insertInto("messages")
      .values({
        id,
        account_id: accountId,
        environment: "live",
        channel: "voice",
        recipient: TO,
        priority: 0,
        sender: null,
        template_id: null,
        entity_id: null,
        reference: null,
        text: "Your verification code is *, *, *, *, *, *.",
        encoding: "gsm7",
        segments: 1,
        cost: 5_000,
        status: "submitted",
        error_code: null,
        error_message: null,
        carrier: VOICE_CARRIER,
        attempts: 1,
        next_attempt_at: null,
        lease_until: null,
        lease_owner: null,
        created_at: now,
        submitted_at: now,
        delivered_at: null,
        undelivered_at: null,
        failed_at: null,
        updated_at: now,
      })
      .execute();
    await current.db
      .insertInto("carrier_messages")
      .values({
        carrier: VOICE_CARRIER,
        carrier_message_id: callSid,
        message_id: id,
        part: 1,
        status: "submitted",
        error_code: null,
        updated_at: now,
      })
      .execute();
    return id;
  }

  async function messageRow(id: string) {
    const current = ctx as AppContext;
    return current.db
      .selectFrom("messages")
      .select(["status", "error_code", "delivered_at", "undelivered_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
  }

  /** The parameters of a Twilio status callback for the end of a call. */
  function callbackParams(callSid: string, callStatus: string): Record<string, string> {
    return {
      AccountSid: ACCOUNT_SID,
      ApiVersion: "2010-04-01",
      CallSid: callSid,
      CallStatus: callStatus,
      CallDuration: "14",
      Called: TO,
      Caller: FROM,
      Direction: "outbound-api",
      From: FROM,
      SequenceNumber: "0",
      Timestamp: "Sun, 22 Nov 2026 10:00:14 +0000",
      To: TO,
      CallbackSource: "call-progress-events",
    };
  }

  /** Signed exactly as Twilio signs: URL + each name and value, sorted by name; HMAC-SHA1; base64. */
  function sign(url: string, params: Record<string, string>, token = AUTH_TOKEN): string {
    const data = Object.keys(params)
      .sort()
      .reduce((acc, name) => acc + name + params[name], url);
    return createHmac("sha1", token).update(data, "utf8").digest("base64");
  }

  function post(params: Record<string, string>, signature: string | undefined) {
    return (app as App).inject({
      method: "POST",
      url: "/webhooks/voice/status",
      headers: {
        "content-type": "application/x-www-form-urlencoded; charset=utf-8",
        ...(signature === undefined ? {} : { "x-twilio-signature": signature }),
      },
      payload: new URLSearchParams(params).toString(),
    });
  }

  it("marks the message delivered when the call completed", async () => {
    const id = await submittedCall("CA11111111111111111111111111111111");
    const params = callbackParams("CA11111111111111111111111111111111", "completed");

    const response = await post(params, sign(CALLBACK_URL, params));

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: true });
    const row = await messageRow(id);
    expect(row.status).toBe("delivered");
    expect(row.delivered_at).not.toBeNull();
  });

  it.each([
    ["busy", "voice_busy"],
    ["failed", "voice_failed"],
    ["no-answer", "voice_no_answer"],
    ["canceled", "voice_canceled"],
  ])("marks the message undelivered when the call ended %s", async (callStatus, errorCode) => {
    const id = await submittedCall("CA22222222222222222222222222222222");
    const params = callbackParams("CA22222222222222222222222222222222", callStatus);

    const response = await post(params, sign(CALLBACK_URL, params));

    expect(response.statusCode).toBe(200);
    const row = await messageRow(id);
    expect(row.status).toBe("undelivered");
    expect(row.error_code).toBe(errorCode);
  });

  it("ignores progress reports", async () => {
    const id = await submittedCall("CA33333333333333333333333333333333");
    for (const callStatus of ["queued", "ringing", "in-progress"]) {
      const params = callbackParams("CA33333333333333333333333333333333", callStatus);
      const response = await post(params, sign(CALLBACK_URL, params));
      expect(response.statusCode).toBe(200);
    }
    expect((await messageRow(id)).status).toBe("submitted");
  });

  it("answers 200 for a call it does not know", async () => {
    const params = callbackParams("CA44444444444444444444444444444444", "completed");
    const response = await post(params, sign(CALLBACK_URL, params));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: true });
  });

  it("refuses a missing or wrong signature and changes nothing", async () => {
    const id = await submittedCall("CA55555555555555555555555555555555");
    const params = callbackParams("CA55555555555555555555555555555555", "completed");
    const forged = { ...params, CallStatus: "no-answer" };

    const attempts = [
      await post(params, undefined),
      await post(params, sign(CALLBACK_URL, params, "not-the-token")),
      await post(params, sign("http://dakiya.example.in/webhooks/voice/status", params)),
      await post(forged, sign(CALLBACK_URL, params)),
      await post(params, ""),
    ];

    for (const response of attempts) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({
        error: { code: "invalid_request", request_id: expect.any(String) },
      });
    }
    const row = await messageRow(id);
    expect(row.status).toBe("submitted");
    expect(row.error_code).toBeNull();
  });
});
