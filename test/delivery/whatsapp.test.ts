import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { OutboundMessage } from "../../src/delivery/carrier.js";
import {
  createWhatsAppCarrier,
  retryAfter,
  WHATSAPP_CARRIER,
  type WhatsAppOtp,
} from "../../src/delivery/carriers/whatsapp.js";
import {
  DEFAULT_WHATSAPP_API_URL,
  parseWhatsAppConfig,
  type WhatsAppConfig,
} from "../../src/delivery/carriers/whatsapp-config.js";
import { markSubmitted } from "../../src/delivery/status.js";
import { ConfigError } from "../../src/errors.js";
import type { App } from "../../src/http/types.js";
import { newId } from "../../src/lib/ids.js";
import { createLogger } from "../../src/lib/logger.js";
import { whatsappWebhookRoutes } from "../../src/receipts/whatsapp-webhook.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { bearer, createAccountWithKey, createTestAccount } from "../helpers/fixtures.js";

const TOKEN = "EAAtest-token-0123456789abcdefSECRET";
const PHONE_NUMBER_ID = "106540352242922";
const APP_SECRET = "app-secret-for-signatures";
const VERIFY_TOKEN = "verify-me-please";
const CODE = "482913";
const TO = "+919876543210";
const log = createLogger("silent");

interface SeenRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage["headers"];
  body: string;
}

type Responder = (request: SeenRequest, response: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 standing in for graph.facebook.com. */
class FakeGraph {
  readonly seen: SeenRequest[] = [];
  respond: Responder = (_request, response) => json(response, 200, okBody("wamid.default"));
  private server: Server;

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const seen = {
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        };
        this.seen.push(seen);
        this.respond(seen, response);
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v21.0/`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

function okBody(wamid: string) {
  return {
    messaging_product: "whatsapp",
    contacts: [{ input: "919876543210", wa_id: "919876543210" }],
    messages: [{ id: wamid, message_status: "accepted" }],
  };
}

function configFor(graph: FakeGraph, extra: Record<string, string> = {}): WhatsAppConfig {
  const config = parseWhatsAppConfig({
    WHATSAPP_API_URL: graph.baseUrl,
    WHATSAPP_TOKEN: TOKEN,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
    ...extra,
  });
  if (!config) throw new Error("expected a WhatsApp config");
  return config;
}

function otpMessage(
  id = newId("msg"),
  otp: Partial<WhatsAppOtp> = {},
): OutboundMessage & { otp: WhatsAppOtp } {
  return {
    id,
    accountId: "acct_test",
    environment: "live",
    channel: "whatsapp",
    to: TO,
    sender: null,
    templateId: null,
    entityId: null,
    text: "Your verification code is [hidden].",
    encoding: "gsm7",
    segments: 1,
    priority: "otp",
    category: "otp",
    expiresAt: null,
    otp: {
      code: CODE,
      expirySeconds: 600,
      whatsappTemplate: "dakiya_otp",
      whatsappLanguage: "en_US",
      ...otp,
    },
  };
}

describe("WhatsApp configuration", () => {
  it("is off unless the token and the phone number id are set", () => {
    expect(parseWhatsAppConfig({})).toBeUndefined();
    expect(parseWhatsAppConfig({ WHATSAPP_TOKEN: "", WHATSAPP_PHONE_NUMBER_ID: "" })).toBeUndefined();
    expect(() => parseWhatsAppConfig({ WHATSAPP_TOKEN: TOKEN })).toThrow(ConfigError);
    expect(() => parseWhatsAppConfig({ WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID })).toThrow(ConfigError);
  });

  it("defaults the API URL and leaves the webhook secrets unset", () => {
    expect(parseWhatsAppConfig({ WHATSAPP_TOKEN: TOKEN, WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID })).toEqual(
      {
        apiUrl: DEFAULT_WHATSAPP_API_URL,
        token: TOKEN,
        phoneNumberId: PHONE_NUMBER_ID,
        appSecret: undefined,
        verifyToken: undefined,
      },
    );
  });

  it("strips a trailing slash and refuses anything but an http(s) URL", () => {
    const base = { WHATSAPP_TOKEN: TOKEN, WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID };
    expect(parseWhatsAppConfig({ ...base, WHATSAPP_API_URL: "http://10.0.0.5:8080/v22.0//" })?.apiUrl).toBe(
      "http://10.0.0.5:8080/v22.0",
    );
    expect(() => parseWhatsAppConfig({ ...base, WHATSAPP_API_URL: "graph.facebook.com" })).toThrow(
      ConfigError,
    );
    expect(() => parseWhatsAppConfig({ ...base, WHATSAPP_API_URL: "ftp://graph.facebook.com" })).toThrow(
      ConfigError,
    );
    expect(() => parseWhatsAppConfig({ ...base, WHATSAPP_PHONE_NUMBER_ID: "12/../34" })).toThrow(ConfigError);
  });
});

describe("WhatsApp carrier against a local Cloud API", () => {
  let graph: FakeGraph;

  beforeEach(async () => {
    graph = new FakeGraph();
    await graph.start();
  });

  afterEach(async () => {
    await graph.stop();
  });

  it("sends the authentication template request Meta documents and returns the wamid", async () => {
    graph.respond = (_request, response) => json(response, 200, okBody("wamid.HBgMOTE5ODc2NTQzMjEw"));
    const carrier = createWhatsAppCarrier(configFor(graph), { log });
    expect(carrier.name).toBe(WHATSAPP_CARRIER);

    const result = await carrier.send(otpMessage());

    expect(result).toEqual({ outcome: "accepted", carrierMessageIds: ["wamid.HBgMOTE5ODc2NTQzMjEw"] });
    expect(graph.seen).toHaveLength(1);
    const request = graph.seen[0];
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(`/v21.0/${PHONE_NUMBER_ID}/messages`);
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request?.body ?? "")).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "919876543210",
      type: "template",
      template: {
        name: "dakiya_otp",
        language: { code: "en_US" },
        components: [
          { type: "body", parameters: [{ type: "text", text: CODE }] },
          { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: CODE }] },
        ],
      },
    });
  });

  it("refuses a message that is not an OTP with a WhatsApp template, without calling Meta", async () => {
    const carrier = createWhatsAppCarrier(configFor(graph), { log });
    const plain: OutboundMessage = { ...otpMessage() };
    delete (plain as { otp?: unknown }).otp;

    expect(await carrier.send(plain)).toMatchObject({
      outcome: "permanent",
      errorCode: "whatsapp_template_missing",
    });
    expect(await carrier.send(otpMessage(undefined, { whatsappTemplate: null }))).toMatchObject({
      outcome: "permanent",
      errorCode: "whatsapp_template_missing",
    });
    expect(graph.seen).toHaveLength(0);
  });

  it("retries a 500, and a 429 after its Retry-After", async () => {
    const carrier = createWhatsAppCarrier(configFor(graph), { log });

    graph.respond = (_request, response) =>
      json(response, 500, {
        error: { message: "An unknown error occurred", code: 1, type: "OAuthException" },
      });
    expect(await carrier.send(otpMessage())).toMatchObject({
      outcome: "retryable",
      errorCode: "whatsapp_500",
    });

    graph.respond = (_request, response) =>
      json(response, 429, { error: { message: "Too many calls", code: 130429 } }, { "retry-after": "17" });
    expect(await carrier.send(otpMessage())).toMatchObject({
      outcome: "retryable",
      errorCode: "whatsapp_429",
      retryAfterSeconds: 17,
    });
  });

  it("retries Meta's throttling codes even when they come back as 400", async () => {
    const carrier = createWhatsAppCarrier(configFor(graph), { log });
    graph.respond = (_request, response) =>
      json(response, 400, {
        error: {
          message: "(#131056) (Business Account, Consumer Account) pair rate limit hit",
          code: 131056,
        },
      });
    expect(await carrier.send(otpMessage())).toMatchObject({
      outcome: "retryable",
      errorCode: "whatsapp_131056",
      retryAfterSeconds: 6,
    });
  });

  it("fails permanently on a 400 with the Graph error code, never echoing the token or the code", async () => {
    const carrier = createWhatsAppCarrier(configFor(graph), { log });
    graph.respond = (_request, response) =>
      json(response, 400, {
        error: {
          message: `(#132001) Template name does not exist in the translation (token ${TOKEN})`,
          type: "OAuthException",
          code: 132001,
          error_data: {
            messaging_product: "whatsapp",
            details: `template name (dakiya_otp) does not exist in en_US; parameter ${CODE}`,
          },
          fbtrace_id: "AE9jPfwk6-lgxrhmyNUuovy",
        },
      });

    const result = await carrier.send(otpMessage());

    expect(result).toMatchObject({ outcome: "permanent", errorCode: "whatsapp_132001" });
    if (result.outcome !== "permanent") throw new Error("expected a permanent failure");
    expect(result.errorMessage).toContain("Template name does not exist");
    expect(result.errorMessage).not.toContain(TOKEN);
    expect(result.errorMessage).not.toContain(CODE);
  });

  it("falls back to the HTTP status when a 4xx has no Graph error body", async () => {
    const carrier = createWhatsAppCarrier(configFor(graph), { log });
    graph.respond = (_request, response) => {
      response.writeHead(404, { "content-type": "text/html" });
      response.end("<html>not here</html>");
    };
    expect(await carrier.send(otpMessage())).toMatchObject({
      outcome: "permanent",
      errorCode: "whatsapp_404",
    });
  });

  it("retries when the Cloud API never answers, or cannot be reached", async () => {
    graph.respond = () => {}; // holds the request open forever
    const slow = createWhatsAppCarrier(configFor(graph), { log, timeoutMs: 200 });
    const started = Date.now();
    const result = await slow.send(otpMessage());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ outcome: "retryable", errorCode: "whatsapp_unreachable" });
    if (result.outcome !== "retryable") throw new Error("expected a retryable failure");
    expect(result.errorMessage).not.toContain(TOKEN);
    expect(result.errorMessage).not.toContain(CODE);

    const closed = createWhatsAppCarrier(
      { ...configFor(graph), apiUrl: "http://127.0.0.1:1/v21.0" },
      { log, timeoutMs: 2_000 },
    );
    expect(await closed.send(otpMessage())).toMatchObject({
      outcome: "retryable",
      errorCode: "whatsapp_unreachable",
    });
  });

  it("never logs the token or the code", async () => {
    const lines: string[] = [];
    const captured = createLogger("trace", { write: (line: string) => void lines.push(line) });
    const carrier = createWhatsAppCarrier(configFor(graph), { log: captured, timeoutMs: 200 });
    graph.respond = (_request, response) =>
      json(response, 400, { error: { message: `bad parameter ${CODE} with ${TOKEN}`, code: 100 } });
    await carrier.send(otpMessage());
    graph.respond = () => {};
    await carrier.send(otpMessage());

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain(CODE);
    }
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(retryAfter(null, now)).toBeUndefined();
    expect(retryAfter("30", now)).toBe(30);
    expect(retryAfter("Sun, 22 Nov 2026 10:01:00 GMT", now)).toBe(60);
    expect(retryAfter("soon", now)).toBeUndefined();
    expect(retryAfter("999999", now)).toBe(3600);
  });
});

describe("WhatsApp status webhook", () => {
  let database: TestDatabase;
  let graph: FakeGraph;
  let ctx: AppContext;
  let app: App;
  let config: WhatsAppConfig;

  beforeAll(async () => {
    graph = new FakeGraph();
    await graph.start();
    config = configFor(graph);
  });

  afterAll(async () => {
    await graph.stop();
  });

  beforeEach(async () => {
    database = await createTestDatabase("sqlite");
    ctx = await openTestContext(database.url);
    app = await buildApp(ctx);
    whatsappWebhookRoutes(app, ctx, config);
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
    await ctx.close();
    await database.drop();
  });

  /** A live WhatsApp message, queued and claimed by a worker, the way the worker finds it. */
  async function queuedMessage(): Promise<string> {
    const accountId = await createTestAccount(ctx);
    const id = newId("msg");
    const now = ctx.clock.now().toISOString();
    await ctx.db
      .insertInto("messages")
      .values({
        id,
        account_id: accountId,
        environment: "live",
        channel: "whatsapp",
        recipient: TO,
        priority: 0,
        text: "Your verification code is [hidden].",
        encoding: "gsm7",
        segments: 1,
        cost: 1500,
        status: "queued",
        attempts: 0,
        lease_owner: "wkr_test",
        lease_until: new Date(Date.parse(now) + 60_000).toISOString(),
        created_at: now,
        updated_at: now,
      })
      .execute();
    return id;
  }

  /** Sends through the real carrier to the local Cloud API and records the acceptance like the worker. */
  async function submittedMessage(wamid: string): Promise<string> {
    const id = await queuedMessage();
    graph.respond = (_request, response) => json(response, 200, okBody(wamid));
    const result = await createWhatsAppCarrier(config, { log }).send(otpMessage(id));
    if (result.outcome !== "accepted") throw new Error(`send failed: ${JSON.stringify(result)}`);
    expect(
      await markSubmitted(
        ctx,
        { messageId: id, owner: "wkr_test" },
        WHATSAPP_CARRIER,
        result.carrierMessageIds,
      ),
    ).toBe(true);
    return id;
  }

  function statusPayload(statuses: unknown[], phoneNumberId = PHONE_NUMBER_ID) {
    return {
      object: "whatsapp_business_account",
      entry: [
        {
          id: "102290129340398",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550783881", phone_number_id: phoneNumberId },
                statuses,
              },
            },
          ],
        },
      ],
    };
  }

  function postSigned(payload: unknown, signature?: string) {
    const body = JSON.stringify(payload);
    const sig = signature ?? `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`;
    return app.inject({
      method: "POST",
      url: "/webhooks/whatsapp",
      headers: { "content-type": "application/json", "x-hub-signature-256": sig },
      payload: body,
    });
  }

  async function messageRow(id: string) {
    return ctx.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  }

  it("marks a message delivered on a signed delivered status (sent is ignored)", async () => {
    const id = await submittedMessage("wamid.delivered1");

    const sent = await postSigned(
      statusPayload([
        { id: "wamid.delivered1", status: "sent", timestamp: "1750857384", recipient_id: "919876543210" },
      ]),
    );
    expect(sent.statusCode).toBe(200);
    expect((await messageRow(id)).status).toBe("submitted");

    const response = await postSigned(
      statusPayload([
        {
          id: "wamid.delivered1",
          status: "delivered",
          timestamp: "1750857385",
          recipient_id: "919876543210",
        },
      ]),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: true });
    expect(response.headers["x-request-id"]).toBeTruthy();
    const row = await messageRow(id);
    expect(row.status).toBe("delivered");
    expect(row.delivered_at).not.toBeNull();

    // A later read changes nothing.
    expect((await postSigned(statusPayload([{ id: "wamid.delivered1", status: "read" }]))).statusCode).toBe(
      200,
    );
    expect((await messageRow(id)).status).toBe("delivered");
  });

  it("treats read as delivered", async () => {
    const id = await submittedMessage("wamid.read1");
    expect((await postSigned(statusPayload([{ id: "wamid.read1", status: "read" }]))).statusCode).toBe(200);
    expect((await messageRow(id)).status).toBe("delivered");
  });

  it("marks a message undelivered on a failed status, with Meta's error code and title", async () => {
    const id = await submittedMessage("wamid.failed1");
    const response = await postSigned(
      statusPayload([
        {
          id: "wamid.failed1",
          status: "failed",
          timestamp: "1750857386",
          recipient_id: "919876543210",
          errors: [
            {
              code: 131026,
              title: "Message undeliverable",
              message: "Message undeliverable",
              error_data: { details: "Message Undeliverable." },
            },
          ],
        },
      ]),
    );
    expect(response.statusCode).toBe(200);
    const row = await messageRow(id);
    expect(row).toMatchObject({
      status: "undelivered",
      error_code: "whatsapp_131026",
      error_message: "Message undeliverable",
    });
    const part = await ctx.db
      .selectFrom("carrier_messages")
      .selectAll()
      .where("message_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(part).toMatchObject({ carrier: "whatsapp", status: "undelivered", error_code: "whatsapp_131026" });
  });

  it("refuses a missing or wrong signature with 401 and changes nothing", async () => {
    const id = await submittedMessage("wamid.forged1");
    const payload = statusPayload([{ id: "wamid.forged1", status: "delivered" }]);

    const forged = await postSigned(
      payload,
      `sha256=${createHmac("sha256", "not-the-secret").update(JSON.stringify(payload)).digest("hex")}`,
    );
    expect(forged.statusCode).toBe(401);
    expect(forged.json().error).toMatchObject({ code: "invalid_request", request_id: expect.any(String) });

    const missing = await app.inject({
      method: "POST",
      url: "/webhooks/whatsapp",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify(payload),
    });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe("invalid_request");

    // The signature covers the exact bytes: the same JSON re-serialised differently does not pass.
    const body = JSON.stringify(payload);
    const reformatted = await app.inject({
      method: "POST",
      url: "/webhooks/whatsapp",
      headers: {
        "content-type": "application/json",
        "x-hub-signature-256": `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`,
      },
      payload: JSON.stringify(payload, null, 2),
    });
    expect(reformatted.statusCode).toBe(401);

    expect((await messageRow(id)).status).toBe("submitted");
  });

  it("applies a status that overtakes the record of its send once the send is recorded", async () => {
    const id = await queuedMessage();
    const early = await postSigned(statusPayload([{ id: "wamid.early1", status: "delivered" }]));
    expect(early.statusCode).toBe(200);
    expect(
      await markSubmitted(ctx, { messageId: id, owner: "wkr_test" }, WHATSAPP_CARRIER, ["wamid.early1"]),
    ).toBe(true);
    await waitFor(async () => (await messageRow(id)).status === "delivered", 5_000);
  });

  it("ignores statuses of another phone number and answers 200", async () => {
    const id = await submittedMessage("wamid.other1");
    const response = await postSigned(statusPayload([{ id: "wamid.other1", status: "delivered" }], "999999"));
    expect(response.statusCode).toBe(200);
    expect((await messageRow(id)).status).toBe("submitted");
  });

  it("answers a signed body that is not JSON with 400", async () => {
    const body = "not json";
    const response = await app.inject({
      method: "POST",
      url: "/webhooks/whatsapp",
      headers: {
        "content-type": "application/json",
        "x-hub-signature-256": `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`,
      },
      payload: body,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe("invalid_request");
  });

  it("keeps the app's own JSON parser everywhere else", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox");
    const response = await app.inject({
      method: "POST",
      url: "/v2/sms/send",
      headers: { "content-type": "application/json", ...bearer(secret) },
      payload: "{not json",
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: "invalid_request",
      message: "The body is not valid JSON.",
    });
  });

  it("answers the subscription handshake with the challenge for the right verify token only", async () => {
    const right = await app.inject({
      method: "GET",
      url: `/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    });
    expect(right.statusCode).toBe(200);
    expect(right.headers["content-type"]).toMatch(/^text\/plain/);
    expect(right.body).toBe("1158201444");

    const wrong = await app.inject({
      method: "GET",
      url: "/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1158201444",
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe("invalid_request");
    expect(wrong.body).not.toContain("1158201444");

    const wrongMode = await app.inject({
      method: "GET",
      url: `/webhooks/whatsapp?hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`,
    });
    expect(wrongMode.statusCode).toBe(403);
  });
});

describe("WhatsApp webhook without its secrets", () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let app: App;

  beforeEach(async () => {
    database = await createTestDatabase("sqlite");
    ctx = await openTestContext(database.url);
    app = await buildApp(ctx);
    whatsappWebhookRoutes(app, ctx, {
      apiUrl: DEFAULT_WHATSAPP_API_URL,
      token: TOKEN,
      phoneNumberId: PHONE_NUMBER_ID,
      appSecret: undefined,
      verifyToken: undefined,
    });
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
    await ctx.close();
    await database.drop();
  });

  it("is not found", async () => {
    const handshake = await app.inject({
      method: "GET",
      url: "/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1",
    });
    expect(handshake.statusCode).toBe(404);
    expect(handshake.json().error.code).toBe("not_found");

    const status = await app.inject({
      method: "POST",
      url: "/webhooks/whatsapp",
      headers: { "content-type": "application/json", "x-hub-signature-256": "sha256=00" },
      payload: "{}",
    });
    expect(status.statusCode).toBe(404);
    expect(status.json().error.code).toBe("not_found");
  });
});
