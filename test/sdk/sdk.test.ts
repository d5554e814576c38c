import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  Dakiya,
  DakiyaConnectionError,
  DakiyaError,
  type DakiyaOptions,
  InsufficientBalanceError,
  InvalidRequestError,
  type Message,
  type MessagePriority,
  type MessageStatus,
  NotFoundError,
  RateLimitError,
  ServerError,
  type SmsSendParams,
  UnprocessableEntityError,
  verifyWebhook,
  WebhookVerificationError,
} from "../../sdk/src/index.js";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { setKeyRateLimit } from "../../src/keys/keys.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { type RunningDispatcher, startWebhookDispatcher } from "../../src/webhooks/dispatcher.js";
import { openTestContext, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { drainQueue, waitFor } from "../helpers/delivery.js";
import { OTP_TEMPLATE_CONTENT, OTP_TEMPLATE_ID, registerDlt } from "../helpers/dlt-fixtures.js";
import { createAccountWithKey } from "../helpers/fixtures.js";
import {
  type FlakyProxy,
  type ProxiedRequest,
  type ProxyAction,
  startFlakyProxy,
} from "../helpers/flaky-proxy.js";
import { codeIn, HUNDRED_RUPEES, nextNumber, wrong } from "../helpers/otp.js";
import { nth, startReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

/* The SDK (sdk/) driven against a real server listening on loopback: every method, the
 * iterators over several pages, its typed errors, its retries through a misbehaving proxy in
 * front of the real server, and verifyWebhook on deliveries the server really made. */

const ORDER_TEMPLATE = "1107161234567890300";
const ORDER_CONTENT = "Your order {#ref#} has shipped.";
/** Receivers check signatures' timestamps against real time, so the server runs on it too. */
const realClock = { now: () => new Date() };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** What the SDK sent, seen through the `fetch` option. */
interface Sent {
  method: string;
  url: string;
  idempotencyKey: string | null;
}

function recordingFetch(): { fetch: (request: Request) => Promise<Response>; sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    fetch: (request) => {
      sent.push({
        method: request.method,
        url: request.url,
        idempotencyKey: request.headers.get("idempotency-key"),
      });
      return fetch(request);
    },
  };
}

/** The JSON body of a GET of the API with `key`, checked to be a 200. */
async function restAt(baseUrl: string, key: string, path: string): Promise<unknown> {
  const answer = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(answer.status, path).toBe(200);
  return answer.json();
}

/** The error a call rejects with; fails the test if it resolves. */
async function failure(call: Promise<unknown>): Promise<DakiyaError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof DakiyaError) return error;
    throw error;
  }
  throw new Error("the call succeeded");
}

describe.each(DIALECTS)("the TypeScript SDK against a server on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let app: App;
  let baseUrl: string;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, {
      clock: realClock,
      env: { ...UNLIMITED_REQUESTS, WEBHOOK_ALLOW_PRIVATE: "true" },
    });
    ctx.outboundWebhooks.retrySchedule = [0.2, 0.2];
    app = await buildApp(ctx);
    await app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  const rest = (key: string, path: string) => restAt(baseUrl, key, path);

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await database?.drop();
  });

  /**
   * A sandbox account with credits (unless `credits` is 0), the order and OTP templates, OTP
   * settings, and an SDK client on its key.
   */
  async function account(options: { credits?: number; client?: Partial<DakiyaOptions> } = {}) {
    const created = await createAccountWithKey(ctx, "sandbox", options.credits ?? HUNDRED_RUPEES);
    await registerDlt(ctx, created.accountId, {
      senders: ["DAKIYA"],
      templates: [
        { templateId: ORDER_TEMPLATE, content: ORDER_CONTENT },
        { templateId: OTP_TEMPLATE_ID, content: OTP_TEMPLATE_CONTENT },
      ],
    });
    await updateOtpSettings(
      ctx,
      created.accountId,
      "sandbox",
      {
        sms_template_id: OTP_TEMPLATE_ID,
        sms_sender: "DAKIYA",
      },
      CLI_ORIGIN,
    );
    const recorder = recordingFetch();
    const dakiya = new Dakiya({ apiKey: created.secret, baseUrl, fetch: recorder.fetch, ...options.client });
    return { ...created, dakiya, sent: recorder.sent };
  }

  const order = (to: string, ref = "A-1", reference?: string) => ({
    to,
    sender: "DAKIYA",
    template_id: ORDER_TEMPLATE,
    variables: { ref },
    ...(reference === undefined ? {} : { reference }),
  });

  async function proxy(plan: (index: number, request: ProxiedRequest) => ProxyAction): Promise<FlakyProxy> {
    const started = await startFlakyProxy(baseUrl, plan);
    closers.push(started.close);
    return started;
  }

  async function receiver(): Promise<WebhookReceiver> {
    const started = await startReceiver();
    closers.push(started.close);
    return started;
  }

  function dispatcher(): RunningDispatcher {
    const started = startWebhookDispatcher(ctx, { owner: `sdk_${dialect}`, pollIntervalMs: 10 });
    closers.push(() => started.stop());
    return started;
  }

  describe("methods", () => {
    it("balance, sms.send with an automatic Idempotency-Key, and sms.get", async () => {
      const { dakiya, sent } = await account();
      expect(await dakiya.balance()).toEqual({
        environment: "sandbox",
        balance: "100.0000",
        currency: "INR",
      });

      const to = nextNumber();
      const message = await dakiya.sms.send(order(to, "B-7", "order-77"));
      expect(message).toMatchObject({
        status: "queued",
        environment: "sandbox",
        to,
        sender: "DAKIYA",
        template_id: ORDER_TEMPLATE,
        reference: "order-77",
        text: "Your order B-7 has shipped.",
        encoding: "gsm7",
        segments: 1,
        cost: "0.2500",
        currency: "INR",
      });
      expect(message.id).toMatch(/^msg_/);
      expect((await dakiya.sms.get(message.id)).id).toBe(message.id);
      expect((await dakiya.balance()).balance).toBe("99.7500");

      const send = sent.find((request) => request.url.endsWith("/v2/sms/send"));
      expect(send?.idempotencyKey).toMatch(UUID);
      expect(sent.filter((request) => request.method === "GET").every((r) => r.idempotencyKey === null)).toBe(
        true,
      );
    });

    it("takes the caller's own Idempotency-Key, and a repeat with it sends nothing twice", async () => {
      const { dakiya, sent } = await account();
      const body = order(nextNumber(), "C-1", "own-key");
      const first = await dakiya.sms.send(body, { idempotencyKey: "order-c1-sms" });
      const again = await dakiya.sms.send(body, { idempotencyKey: "order-c1-sms" });
      expect(again).toEqual(first);
      expect(sent.map((request) => request.idempotencyKey)).toEqual(["order-c1-sms", "order-c1-sms"]);
      expect(await dakiya.sms.list({ reference: "own-key" }).toArray()).toHaveLength(1);
    });

    it("sms.batch answers each item's message or error, in order", async () => {
      const { dakiya } = await account();
      const result = await dakiya.sms.batch({
        messages: [
          order(nextNumber(), "D-1"),
          { ...order(nextNumber()), template_id: "1107169999999999999" },
          order(nextNumber(), "D-3"),
        ],
      });
      expect(result.accepted).toBe(2);
      expect(result.rejected).toBe(1);
      expect(result.data[0]).toMatchObject({ status: "queued", text: "Your order D-1 has shipped." });
      expect(result.data[1]).toMatchObject({ error: { code: "unknown_template", param: "template_id" } });
      expect(result.data[2]).toMatchObject({ status: "queued" });
    });

    it("sms.cancel cancels a scheduled message, refunded, and a second cancel is a ConflictError", async () => {
      const { dakiya, sent } = await account();
      const sendAt = new Date(Date.now() + 3_600_000).toISOString();
      const scheduled: SmsSendParams = {
        ...order(nextNumber(), "J-1"),
        validity_seconds: 600,
        send_at: sendAt,
      };
      const message: Message = await dakiya.sms.send(scheduled);
      expect(message).toMatchObject({ status: "scheduled", priority: "transactional", send_at: sendAt });
      expect((await dakiya.balance()).balance).toBe("99.7500");

      const cancelled = await dakiya.sms.cancel(message.id);
      expect(cancelled).toMatchObject({ id: message.id, status: "cancelled" });
      expect(cancelled.cancelled_at).not.toBeNull();
      expect((await dakiya.balance()).balance).toBe("100.0000");
      const cancel = sent.find((request) => request.url.endsWith(`/v2/sms/${message.id}/cancel`));
      expect(cancel).toMatchObject({ method: "POST" });
      expect(cancel?.idempotencyKey).toMatch(UUID);

      sent.length = 0;
      const refused = await failure(dakiya.sms.cancel(message.id));
      expect(refused).toBeInstanceOf(ConflictError);
      expect(refused).toMatchObject({ status: 409, code: "not_cancellable" });
      // Not retried: it would be refused the same way.
      expect(sent).toHaveLength(1);
      const lanes: MessagePriority[] = ["otp", "transactional", "bulk"];
      const statuses: MessageStatus[] = ["scheduled", "cancelled"];
      expect(lanes).toContain(cancelled.priority);
      expect(statuses).toContain(cancelled.status);
    });

    it("sms.list walks every page, newest first, following the cursor", async () => {
      const { dakiya, sent } = await account();
      const to = nextNumber();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await dakiya.sms.send(order(to, `E-${i}`))).id);
      await dakiya.sms.send(order(nextNumber(), "other number"));

      sent.length = 0;
      const pages: string[][] = [];
      for await (const page of dakiya.sms.list({ to, limit: 2 }).pages()) {
        pages.push(page.data.map((message) => message.id));
      }
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(sent).toHaveLength(3);
      expect(new URL(itemAt(sent, 1).url).searchParams.get("starting_after")).toBe(pages[0]?.[1]);

      const listed: string[] = [];
      for await (const message of dakiya.sms.list({ to, limit: 2 })) listed.push(message.id);
      expect(listed).toEqual(pages.flat());
      expect([...listed].sort()).toEqual([...ids].sort());

      // Starting after a given message, and with the default page size (one request).
      const rest = await dakiya.sms.list({ to, starting_after: listed[1] }).toArray();
      expect(rest.map((message) => message.id)).toEqual(listed.slice(2));
      expect(await dakiya.sms.list({ to }).toArray(2)).toHaveLength(2);
    });

    it("otp.send, the code from the sandbox inbox, otp.verify and otp.get", async () => {
      const { dakiya } = await account();
      const to = nextNumber();
      const otp = await dakiya.otp.send({ to, channel: "sms" });
      expect(otp).toMatchObject({ status: "pending", environment: "sandbox", to, channel: "sms", sends: 1 });

      await drainQueue(ctx);
      const inbox = await dakiya.sandbox.messages({ to });
      expect(inbox.data).toHaveLength(1);
      const code = codeIn(itemAt(inbox.data, 0));

      expect(await dakiya.otp.verify({ to, code: wrong(code) })).toEqual({
        verified: false,
        reason: "incorrect_code",
        attempts_remaining: 4,
      });
      expect(await dakiya.otp.verify({ to, code })).toMatchObject({ verified: true, reason: "approved" });
      const details = await dakiya.otp.get(otp.id);
      expect(details).toMatchObject({ id: otp.id, status: "approved" });
      expect(details.deliveries).toHaveLength(1);
    });

    it("reports.messages and reports.otp answer what their REST routes answer; a bad date is an InvalidRequestError", async () => {
      const { dakiya, secret } = await account();
      for (let i = 0; i < 2; i++) await dakiya.sms.send(order(nextNumber(), `R-${i}`));
      const to = nextNumber();
      await dakiya.otp.send({ to, channel: "sms" });
      await drainQueue(ctx);
      const code = codeIn(itemAt((await dakiya.sandbox.messages({ to })).data, 0));
      await dakiya.otp.verify({ to, code });

      const byStatus = await dakiya.reports.messages({ group_by: "status" });
      expect(byStatus).toEqual(await rest(secret, "/v2/reports/messages?group_by=status"));
      expect(byStatus.data).toEqual([
        expect.objectContaining({ key: "delivered", messages: 3, delivered: 3 }),
      ]);
      const byDay = await dakiya.reports.messages();
      expect(byDay.data).toHaveLength(30);
      const otp = await dakiya.reports.otp({ from: byDay.from, to: byDay.to });
      expect(otp).toEqual(await rest(secret, `/v2/reports/otp?from=${byDay.from}&to=${byDay.to}`));
      expect(otp.data[0]).toMatchObject({ channel: "sms", sent: 1, verified: 1, conversion_rate: 1 });
      await expect(dakiya.reports.otp({ from: "2026-02-30" })).rejects.toMatchObject({
        constructor: InvalidRequestError,
        param: "from",
      });
    });

    it("campaigns.create, get, list and cancel answer what their REST routes answer", async () => {
      const { dakiya, secret } = await account();
      const recipients = [nextNumber(), nextNumber(), "98765"].map((to, i) => ({
        to,
        variables: { ref: `C-${i}` },
      }));
      const created = await dakiya.campaigns.create({
        name: "Shipping notes",
        template_id: ORDER_TEMPLATE,
        sender: "DAKIYA",
        send_at: new Date(Date.now() + 3_600_000).toISOString(),
        recipients,
      });
      expect(created).toMatchObject({ status: "scheduled", accepted: 2, rejected: 1, cost: "0.5000" });
      expect(created.errors).toEqual([
        expect.objectContaining({
          index: 2,
          to: "98765",
          error: expect.objectContaining({ code: "invalid_request" }),
        }),
      ]);
      expect(await dakiya.campaigns.get(created.id)).toEqual(
        await rest(secret, `/v2/campaigns/${created.id}`),
      );
      expect((await dakiya.campaigns.list().toArray()).map((campaign) => campaign.id)).toEqual([created.id]);
      const cancelled = await dakiya.campaigns.cancel(created.id);
      expect(cancelled).toMatchObject({ status: "cancelled", refunded: "0.5000" });
      const again = await failure(dakiya.campaigns.cancel(created.id));
      expect(again).toBeInstanceOf(ConflictError);
      expect(again.code).toBe("not_cancellable");
    });

    it("events.list walks the events after a cursor across pages, oldest first", async () => {
      const { dakiya, sent } = await account();
      const numbers = [nextNumber(), nextNumber(), nextNumber(), nextNumber(), nextNumber()];
      for (const to of numbers) await dakiya.otp.send({ to });

      sent.length = 0;
      const events = await dakiya.events.list({ type: "otp.sent", limit: 2 }).toArray();
      expect(events.map((event) => (event.data as { to: string }).to)).toEqual(numbers);
      expect(events.every((event) => event.type === "otp.sent" && event.environment === "sandbox")).toBe(
        true,
      );
      expect(sent).toHaveLength(3);

      const after = await dakiya.events.list({ type: "otp.sent", after: events[2]?.id, limit: 2 }).toArray();
      expect(after.map((event) => event.id)).toEqual(events.slice(3).map((event) => event.id));
    });

    it("every list answers what its REST route answers: { data }, and has_more where the route pages", async () => {
      const { dakiya, secret } = await account();
      const to = nextNumber();
      for (let i = 0; i < 3; i++) await dakiya.sms.send(order(to, `L-${i}`));
      await dakiya.otp.send({ to: nextNumber() });
      await drainQueue(ctx);

      const inbox = await dakiya.sandbox.messages({ to, limit: 2 });
      expect(inbox).toEqual(await rest(secret, `/v2/sandbox/messages?to=${encodeURIComponent(to)}&limit=2`));
      expect(Object.keys(inbox)).toEqual(["data"]);
      expect(inbox.data).toHaveLength(2);

      // Awaited, a paging list is its first page; iterated, it is every item.
      const firstPage = await dakiya.sms.list({ to, limit: 2 });
      expect(firstPage).toEqual(await rest(secret, `/v2/sms?to=${encodeURIComponent(to)}&limit=2`));
      expect(firstPage).toMatchObject({ has_more: true });
      expect(firstPage.data).toHaveLength(2);
      const events = await dakiya.events.list({ limit: 2 });
      expect(events).toEqual(await rest(secret, "/v2/events?limit=2"));
      expect(events.data).toHaveLength(2);

      const list = dakiya.sms.list({ to, limit: 2 });
      const [awaited, again] = [await list, await list];
      expect(again).toBe(awaited);
      expect((await list.toArray()).map((message) => message.id)).toHaveLength(3);
      await expect(dakiya.sms.list({ limit: 0 })).rejects.toBeInstanceOf(InvalidRequestError);
    });

    it("webhooks: create, list, get, update, test, attempts, rotate-secret, replay and remove", async () => {
      const { dakiya, secret } = await account();
      const hooks = await receiver();
      dispatcher();

      const created = await dakiya.webhooks.create({
        url: hooks.url,
        events: ["otp.sent"],
        description: "sdk test",
      });
      expect(created).toMatchObject({ url: hooks.url, events: ["otp.sent"], status: "enabled" });
      expect(created.secret).toMatch(/^whsec_/);
      const listed = await dakiya.webhooks.list();
      expect(listed).toEqual(await rest(secret, "/v2/webhooks"));
      expect(listed.data.map((endpoint) => endpoint.id)).toEqual([created.id]);
      expect(listed.data[0]?.secret).toBeUndefined();
      expect((await dakiya.webhooks.get(created.id)).secret).toBe(created.secret);
      const updated = await dakiya.webhooks.update(created.id, { description: null, events: ["*"] });
      expect(updated).toMatchObject({ description: null, events: ["*"] });

      // A test event, delivered for real and verified with the endpoint's secret.
      const testEvent = await dakiya.webhooks.test(created.id);
      expect(testEvent.type).toBe("webhook.test");
      await waitFor(async () => hooks.received.length >= 1, 10_000);
      const delivery = nth(hooks.received, 0);
      const verified = await verifyWebhook(delivery.body, delivery.headers, created.secret as string);
      expect(verified).toMatchObject({
        id: testEvent.id,
        type: "webhook.test",
        data: { webhook_id: created.id },
      });
      await waitFor(async () => (await dakiya.webhooks.attempts(created.id)).data.length >= 1, 10_000);
      const attempts = await dakiya.webhooks.attempts(created.id, { limit: 5 });
      expect(attempts).toMatchObject({
        data: [{ event_id: testEvent.id, event_type: "webhook.test", attempt: 1, status_code: 200 }],
      });
      expect(attempts).toEqual(await rest(secret, `/v2/webhooks/${created.id}/attempts?limit=5`));

      // An event before the rotation, replayed after it: signed under the old and the new secret.
      const since = new Date(Date.now() - 1000).toISOString();
      await dakiya.otp.send({ to: nextNumber() });
      await waitFor(async () => hooks.received.length >= 2, 10_000);
      const rotated = await dakiya.webhooks.rotateSecret(created.id);
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(created.secret);
      expect(await dakiya.webhooks.replay(created.id, { since })).toEqual({
        webhook_id: created.id,
        since,
        queued: 1,
      });
      await waitFor(async () => hooks.received.length >= 3, 10_000);
      const replayed = nth(hooks.received, 2);
      expect(replayed.headers["webhook-id"]).toBe(nth(hooks.received, 1).headers["webhook-id"]);
      for (const secret of [created.secret as string, rotated.secret as string]) {
        expect((await verifyWebhook(replayed.body, replayed.headers, secret)).type).toBe("otp.sent");
      }

      expect(await dakiya.webhooks.remove(created.id)).toEqual({ id: created.id, deleted: true });
      const gone = await failure(dakiya.webhooks.get(created.id));
      expect(gone).toBeInstanceOf(NotFoundError);
      expect(gone).toMatchObject({ status: 404, code: "not_found" });
    });
  });

  describe("verifyWebhook", () => {
    it("refuses a changed body, another secret, an old timestamp, missing headers and a parsed body", async () => {
      const { dakiya } = await account();
      const hooks = await receiver();
      dispatcher();
      const endpoint = await dakiya.webhooks.create({ url: hooks.url });
      await dakiya.webhooks.test(endpoint.id);
      await waitFor(async () => hooks.received.length >= 1, 10_000);
      const { body, headers } = nth(hooks.received, 0);
      const secret = endpoint.secret as string;
      const fetchHeaders = new Headers(headers as Record<string, string>);
      expect((await verifyWebhook(body, fetchHeaders, secret)).type).toBe("webhook.test");
      expect((await verifyWebhook(new TextEncoder().encode(body), headers, secret)).type).toBe(
        "webhook.test",
      );

      const refusal = async (promise: Promise<unknown>) => {
        const error = await promise.then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(WebhookVerificationError);
        return (error as WebhookVerificationError).reason;
      };
      expect(
        await refusal(verifyWebhook(body.replace("webhook.test", "sms.delivered"), headers, secret)),
      ).toBe("invalid_signature");
      const other = (await dakiya.webhooks.rotateSecret(endpoint.id)).secret as string;
      expect(await refusal(verifyWebhook(body, headers, other))).toBe("invalid_signature");
      const later = Date.now() + 10 * 60 * 1000;
      expect(await refusal(verifyWebhook(body, headers, secret, { now: later }))).toBe(
        "timestamp_out_of_tolerance",
      );
      expect((await verifyWebhook(body, headers, secret, { now: later, toleranceSeconds: 3600 })).type).toBe(
        "webhook.test",
      );
      const { "webhook-signature": _signature, ...unsigned } = headers;
      expect(await refusal(verifyWebhook(body, unsigned, secret))).toBe("missing_header");
      expect(await refusal(verifyWebhook(JSON.parse(body), headers, secret))).toBe("invalid_body");
      expect(await refusal(verifyWebhook(body, headers, "whsec_!!!"))).toBe("invalid_secret");
    });
  });

  describe("typed errors", () => {
    it("401 for an unknown key: AuthenticationError with its code and request id, tried once", async () => {
      const recorder = recordingFetch();
      const dakiya = new Dakiya({ apiKey: `dk_sandbox_${"x".repeat(40)}`, baseUrl, fetch: recorder.fetch });
      const error = await failure(dakiya.balance());
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ status: 401, code: "invalid_api_key", param: undefined });
      expect(error.request_id).toBe(error.headers?.get("x-request-id"));
      expect(error.request_id).toBeTruthy();
      expect(recorder.sent).toHaveLength(1);
    });

    it("402 when the balance cannot pay: InsufficientBalanceError, tried once", async () => {
      const { dakiya, sent } = await account({ credits: 0 });
      const error = await failure(dakiya.sms.send(order(nextNumber())));
      expect(error).toBeInstanceOf(InsufficientBalanceError);
      expect(error).toMatchObject({ status: 402, code: "insufficient_balance" });
      expect(sent).toHaveLength(1);
    });

    it("400 and 422 name the field at fault in param; 404 for an unknown message", async () => {
      const { dakiya, sent } = await account();
      const invalid = await failure(dakiya.sms.send(order("+9112345")));
      expect(invalid).toBeInstanceOf(InvalidRequestError);
      expect(invalid).toMatchObject({ status: 400, code: "invalid_request", param: "to" });

      const missing = await failure(dakiya.sms.send({ ...order(nextNumber()), variables: {} }));
      expect(missing).toBeInstanceOf(UnprocessableEntityError);
      expect(missing).toMatchObject({ status: 422, code: "missing_variable", param: "variables.ref" });
      expect(missing.message).toContain("ref");

      const unknown = await failure(dakiya.sms.get("msg_doesnotexist"));
      expect(unknown).toBeInstanceOf(NotFoundError);
      expect(sent).toHaveLength(3);
    });

    it("429 resend_cooldown carries retry_after and is not retried", async () => {
      const { dakiya, sent } = await account();
      const to = nextNumber();
      await dakiya.otp.send({ to });
      const error = await failure(dakiya.otp.send({ to }));
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, code: "resend_cooldown" });
      expect(error.retry_after).toBeGreaterThan(0);
      expect(error.retry_after).toBeLessThanOrEqual(30);
      expect(sent).toHaveLength(2);
    });

    it("429 rate_limited over the key's request limit carries retry_after", async () => {
      const { dakiya, sent, accountId, keyId } = await account({ client: { maxRetries: 0 } });
      await setKeyRateLimit(ctx, { accountId, keyId, rateLimit: 2 }, CLI_ORIGIN);
      await dakiya.balance();
      await dakiya.balance();
      const error = await failure(dakiya.balance());
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, code: "rate_limited" });
      expect(error.retry_after).toBeGreaterThan(0);
      expect(sent).toHaveLength(3);
    });
  });

  describe("retries", () => {
    const messagesWith = (dakiya: Dakiya, reference: string) => dakiya.sms.list({ reference }).toArray();

    it("a send whose answer was lost is tried again with the same key and happens once", async () => {
      const { secret } = await account();
      const flaky = await proxy((index) => (index === 0 ? "lose-answer" : "forward"));
      const dakiya = new Dakiya({ apiKey: secret, baseUrl: flaky.url });
      const message = await dakiya.sms.send(order(nextNumber(), "F-1", "lost-answer"));

      expect(flaky.requests).toHaveLength(2);
      const [first, second] = flaky.requests;
      expect(first?.headers["idempotency-key"]).toMatch(UUID);
      expect(second?.headers["idempotency-key"]).toBe(first?.headers["idempotency-key"]);
      expect(first?.upstream?.status).toBe(202);
      expect(second?.upstream?.headers.get("idempotent-replayed")).toBe("true");
      expect((await messagesWith(dakiya, "lost-answer")).map((m) => m.id)).toEqual([message.id]);
      expect((await dakiya.balance()).balance).toBe("99.7500");
    });

    it("a 503 from in front of the server is retried and the send happens once", async () => {
      const { secret } = await account();
      const flaky = await proxy((index) =>
        index === 0
          ? { status: 503, body: { error: { code: "unavailable", message: "Overloaded.", request_id: "r" } } }
          : "forward",
      );
      const dakiya = new Dakiya({ apiKey: secret, baseUrl: flaky.url });
      await dakiya.otp.send({ to: nextNumber() });
      await dakiya.sms.send(order(nextNumber(), "G-1", "after-503"));
      expect(flaky.requests.map((request) => request.upstream?.status ?? 503)).toEqual([503, 200, 202]);
      expect(await messagesWith(dakiya, "after-503")).toHaveLength(1);
    });

    it("a gateway error after the server acted: the retry gets the stored answer", async () => {
      const { secret } = await account();
      const flaky = await proxy((index) => (index === 0 ? { afterForward: 502 } : "forward"));
      const dakiya = new Dakiya({ apiKey: secret, baseUrl: flaky.url });
      const result = await dakiya.sms.batch({ messages: [order(nextNumber(), "H-1", "batch-502")] });
      expect(result.accepted).toBe(1);
      expect(flaky.requests[1]?.upstream?.headers.get("idempotent-replayed")).toBe("true");
      expect(await messagesWith(dakiya, "batch-502")).toHaveLength(1);
    });

    it("409 idempotency_key_in_use and a short 429 are waited out, then retried", async () => {
      const { secret } = await account();
      const answers: ProxyAction[] = [
        {
          status: 409,
          body: { error: { code: "idempotency_key_in_use", message: "Still running.", request_id: "r" } },
        },
        {
          status: 429,
          headers: { "retry-after": "1" },
          body: { error: { code: "rate_limited", message: "Slow down.", request_id: "r" } },
        },
      ];
      const flaky = await proxy((index) => answers[index] ?? "forward");
      const dakiya = new Dakiya({ apiKey: secret, baseUrl: flaky.url });
      await dakiya.sms.send(order(nextNumber(), "I-1", "after-409-429"));
      expect(flaky.requests).toHaveLength(3);
      expect(new Set(flaky.requests.map((request) => request.headers["idempotency-key"])).size).toBe(1);
      expect(await messagesWith(dakiya, "after-409-429")).toHaveLength(1);
    });

    it("gives up after maxRetries, with the last error", async () => {
      const { secret } = await account();
      const down = await proxy(() => ({ status: 503, body: "<html>down</html>" }));
      const dakiya = new Dakiya({ apiKey: secret, baseUrl: down.url, maxRetries: 1 });
      const error = await failure(dakiya.balance());
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toMatchObject({ status: 503, code: "unexpected_response" });
      expect(down.requests).toHaveLength(2);

      const noRetries = new Dakiya({ apiKey: secret, baseUrl: down.url, maxRetries: 0 });
      await failure(noRetries.balance());
      expect(down.requests).toHaveLength(3);
    });

    it("no server at all: DakiyaConnectionError after the retries", async () => {
      const { secret } = await account();
      const gone = await proxy(() => "forward");
      await gone.close();
      const recorder = recordingFetch();
      const dakiya = new Dakiya({ apiKey: secret, baseUrl: gone.url, maxRetries: 1, fetch: recorder.fetch });
      const error = await failure(dakiya.sms.send(order(nextNumber())));
      expect(error).toBeInstanceOf(DakiyaConnectionError);
      expect(error).toMatchObject({ status: 0, code: "connection_error" });
      expect(recorder.sent).toHaveLength(2);
      expect(recorder.sent[1]?.idempotencyKey).toBe(recorder.sent[0]?.idempotencyKey);
    });

    it("an attempt without an answer times out, and is retried like any lost answer", async () => {
      const { secret } = await account();
      const silent = await proxy((index) => (index === 0 ? "hang" : "forward"));
      const dakiya = new Dakiya({ apiKey: secret, baseUrl: silent.url, timeoutMs: 1000 });
      expect((await dakiya.balance()).balance).toBe("100.0000");
      expect(silent.requests).toHaveLength(2);

      const stuck = await proxy(() => "hang");
      const once = new Dakiya({ apiKey: secret, baseUrl: stuck.url, timeoutMs: 200, maxRetries: 0 });
      const error = await failure(once.balance());
      expect(error).toBeInstanceOf(DakiyaConnectionError);
      expect(error).toMatchObject({ status: 0, code: "timeout" });
    });

    it("the caller's AbortSignal stops the retries", async () => {
      const { secret } = await account();
      const down = await proxy(() => ({ status: 503 }));
      const controller = new AbortController();
      const dakiya = new Dakiya({
        apiKey: secret,
        baseUrl: down.url,
        maxRetries: 5,
        fetch: async (request) => {
          const response = await fetch(request);
          controller.abort();
          return response;
        },
      });
      await expect(dakiya.balance({ signal: controller.signal })).rejects.toMatchObject({
        name: "AbortError",
      });
      expect(down.requests).toHaveLength(1);
    });

    it("a 4xx other than 409 and 429 is never retried", async () => {
      const { secret } = await account();
      const flaky = await proxy(() => ({
        status: 409,
        body: { error: { code: "already_set_up", message: "Not an idempotency conflict.", request_id: "r" } },
      }));
      const dakiya = new Dakiya({ apiKey: secret, baseUrl: flaky.url });
      expect(await failure(dakiya.balance())).toBeInstanceOf(ConflictError);
      expect(flaky.requests).toHaveLength(1);
    });
  });
});

function itemAt<T>(items: T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`there are ${items.length} items, not ${index + 1}`);
  return item;
}
