import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { Environment, EventType } from "../../src/db/schema.js";
import { recordEvent } from "../../src/events/outbox.js";
import type { App } from "../../src/http/types.js";
import { createLogger } from "../../src/lib/logger.js";
import { claimDueWebhookDeliveries } from "../../src/webhooks/claims.js";
import { type RunningDispatcher, startWebhookDispatcher } from "../../src/webhooks/dispatcher.js";
import { ALL_EVENTS, createEndpoint } from "../../src/webhooks/endpoints.js";
import { createOutcomeWriter } from "../../src/webhooks/outcomes.js";
import { relayEvents } from "../../src/webhooks/relay.js";
import { DEFAULT_WEBHOOK_CONCURRENCY } from "../../src/webhooks/settings.js";
import type { HostLookup } from "../../src/webhooks/ssrf.js";
import { startWorker } from "../../src/worker.js";
import { openTestContext, testCarriers } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import {
  type Answer,
  nth,
  type ReceivedWebhook,
  startReceiver,
  verify,
  type WebhookReceiver,
  webhookIds,
} from "../helpers/webhook-receiver.js";

/* Delivery to real HTTP receivers on loopback, verified with the standardwebhooks library as a
 * customer would: signing, retries, give-up, 410, rotation, replay, test events, a hanging
 * endpoint, the SSRF guard at delivery time, and an SMS send end to end. */

interface Endpoint {
  id: string;
  status: string;
  disabled_reason: string | null;
  failing_since: string | null;
  secret: string;
}

interface Attempt {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

const TEMPLATE_ID = "1107161234567890123";
/** Receivers verify timestamps against real time, so these contexts run on the real clock. */
const realClock = { now: () => new Date() };

describe.each(DIALECTS)("webhook delivery on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let app: App;
  let dispatcher: RunningDispatcher | undefined;
  const receivers: WebhookReceiver[] = [];
  let dispatchers = 0;
  let defaultLookup: HostLookup;
  /** What the context logs at warn and above, one JSON line each. */
  const warnings: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, {
      clock: realClock,
      log: createLogger("warn", { write: (line: string) => void warnings.push(line) }),
      env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "2000" },
    });
    app = await buildApp(ctx);
    defaultLookup = ctx.outboundWebhooks.lookup;
    ctx.outboundWebhooks.retrySchedule = [0.3, 0.3];
  });

  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    for (const receiver of receivers.splice(0)) await receiver.close();
    // Endpoints of one test must not receive (or wait for) anything of the next.
    await ctx.db.deleteFrom("webhook_endpoints").execute();
    Object.assign(ctx.outboundWebhooks, {
      allowPrivate: true,
      retrySchedule: [0.3, 0.3],
      timeoutMs: 2000,
      lookup: defaultLookup,
      concurrency: DEFAULT_WEBHOOK_CONCURRENCY,
    });
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await database?.drop();
  });

  const startDispatcher = () => {
    dispatcher = startWebhookDispatcher(ctx, { owner: `test_${++dispatchers}`, pollIntervalMs: 10 });
    return dispatcher;
  };

  const receiver = async (answer?: (request: ReceivedWebhook, index: number) => Answer) => {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  };

  const account = async (environment: Environment = "sandbox") => {
    const created = await createAccountWithKey(ctx, environment, 100_000_000);
    const addEndpoint = async (url: string, events: string[] = ["*"]) => {
      const response = await app.inject({
        method: "POST",
        url: "/v2/webhooks",
        headers: bearer(created.secret),
        payload: { url, events },
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<Endpoint>();
    };
    const emit = (type: EventType, data: object = { id: "msg_test", status: type.split(".")[1] }) =>
      ctx.db
        .transaction()
        .execute((trx) => recordEvent(trx, ctx, { accountId: created.accountId, environment, type, data }));
    const api = (method: "GET" | "POST" | "PATCH", url: string, payload?: object) =>
      app.inject({ method, url, headers: bearer(created.secret), ...(payload ? { payload } : {}) });
    const attempts = async (endpointId: string) =>
      (await api("GET", `/v2/webhooks/${endpointId}/attempts?limit=100`)).json<{ data: Attempt[] }>().data;
    const endpoint = async (endpointId: string) =>
      (await api("GET", `/v2/webhooks/${endpointId}`)).json<Endpoint>();
    return { ...created, addEndpoint, emit, api, attempts, endpoint };
  };

  it("posts each subscribed event once, signed so that standardwebhooks verifies it", async () => {
    const hooks = await receiver();
    const others = await receiver();
    const { addEndpoint, emit, attempts } = await account();
    const endpoint = await addEndpoint(hooks.url, ["sms.delivered", "otp.verified"]);
    const unsubscribed = await addEndpoint(others.url, ["sms.failed"]);
    // Another account's endpoint and this account's live endpoint never see these events.
    const stranger = await (await account()).addEndpoint(others.url);

    startDispatcher();
    const delivered = await emit("sms.delivered", { id: "msg_1", status: "delivered" });
    await emit("sms.submitted");
    const verified = await emit("otp.verified", { id: "otp_1", status: "approved" });
    await waitFor(async () => hooks.received.length >= 2, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(hooks.received).toHaveLength(2);
    expect(others.received).toHaveLength(0);
    const events = hooks.received.map((request) => verify(endpoint.secret, request));
    expect(events.map((event) => event.id).sort()).toEqual([delivered.id, verified.id].sort());
    const first = events.find((event) => event.id === delivered.id);
    expect(first).toEqual({
      id: delivered.id,
      type: "sms.delivered",
      created_at: delivered.created_at,
      environment: "sandbox",
      data: { id: "msg_1", status: "delivered" },
    });
    for (const request of hooks.received) {
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["webhook-id"]).toBe(JSON.parse(request.body).id);
      expect(Math.abs(Number(request.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
      expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      // Another secret does not verify it.
      expect(() => verify(unsubscribed.secret, request)).toThrow(/No matching signature/);
    }
    // Deliveries are unordered: tamper with the one that carries the message.
    const smsRequest = hooks.received.find((request) => request.body.includes('"msg_1"'));
    if (!smsRequest) throw new Error("the sms.delivered request did not arrive");
    expect(() =>
      verify(endpoint.secret, { ...smsRequest, body: smsRequest.body.replace("msg_1", "msg_2") }),
    ).toThrow();

    const log = await attempts(endpoint.id);
    expect(log).toHaveLength(2);
    for (const attempt of log) {
      expect(attempt).toMatchObject({ attempt: 1, status_code: 200, error: null });
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    }
    expect(log.map((attempt) => attempt.event_type).sort()).toEqual(["otp.verified", "sms.delivered"]);
    expect(stranger.id).toBeDefined();
  });

  it("writes an event with no enabled endpoint to go to as relayed, and leaves the others to the relay", async () => {
    const hooks = await receiver();
    const relayedAt = async (eventId: string) =>
      (
        await ctx.db
          .selectFrom("events")
          .select("fanned_out_at")
          .where("id", "=", eventId)
          .executeTakeFirstOrThrow()
      ).fanned_out_at;

    // No endpoint, a live endpoint only, a disabled endpoint: nothing to fan out, no dispatcher needed.
    const bare = await account();
    const liveOnly = await account();
    await createEndpointIn(liveOnly.accountId, "live", "https://hooks.example.com/dakiya");
    const disabled = await account();
    const off = await disabled.addEndpoint(hooks.url);
    expect((await disabled.api("PATCH", `/v2/webhooks/${off.id}`, { status: "disabled" })).statusCode).toBe(
      200,
    );
    for (const { emit } of [bare, liveOnly, disabled]) {
      const event = await emit("sms.delivered");
      expect(await relayedAt(event.id)).toBe(event.created_at);
    }

    // An enabled endpoint of the event's environment: waiting until the relay has fanned it out.
    const subscribed = await account();
    const endpoint = await subscribed.addEndpoint(hooks.url, ["sms.failed"]);
    const waiting = await subscribed.emit("sms.delivered");
    expect(await relayedAt(waiting.id)).toBeNull();
    const delivered = await subscribed.emit("sms.failed");
    startDispatcher();
    await waitFor(async () => hooks.received.length >= 1 && (await relayedAt(waiting.id)) !== null, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hooks.received.map((request) => verify(endpoint.secret, request).id)).toEqual([delivered.id]);
  });

  it("writes the outcomes that come within the gather time of the first in one transaction", async () => {
    const { addEndpoint, attempts } = await account();
    const endpoint = await addEndpoint("http://127.0.0.1:9/gathered");
    const writeOutcome = createOutcomeWriter(ctx, 100);
    const outcome = (n: number) =>
      writeOutcome({
        delivery: {
          id: `${endpoint.id}:evt_gather_${n}`,
          endpoint_id: endpoint.id,
          event_id: `evt_gather_${n}`,
          attempts: 0,
          type: "sms.delivered",
          failing_since: null,
        },
        lease: "wkr_gather/1",
        result: { statusCode: 200, error: null, durationMs: 1 },
      });
    const first = outcome(1);
    // Another turn of the event loop, 20 ms on: one transaction still, so one time for both.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([first, outcome(2)]);
    const written = await attempts(endpoint.id);
    expect(written.map((attempt) => attempt.event_id).sort()).toEqual(["evt_gather_1", "evt_gather_2"]);
    expect(new Set(written.map((attempt) => attempt.created_at)).size).toBe(1);
  });

  it("moves a delivery only by the outcome of the claim that still holds it, after a replay gave it back", async () => {
    const { addEndpoint, emit, api } = await account();
    const endpoint = await addEndpoint("http://127.0.0.1:9/replayed");
    const event = await emit("sms.delivered");
    expect(await relayEvents(ctx, 100)).toBe(1);
    const claim = (lease: string) =>
      claimDueWebhookDeliveries(ctx.db, ctx.dialect, {
        owner: lease,
        now: new Date().toISOString(),
        leaseUntil: new Date(Date.now() + 60_000).toISOString(),
        candidates: 8,
        perEndpoint: 5,
        inFlight: new Map(),
        skipEndpoints: [],
      });
    const [first] = await claim("wkr_same/1");
    if (!first) throw new Error("nothing claimed");
    // A replay while the first post is out gives the delivery back; the same worker claims it again.
    const replayed = await api("POST", `/v2/webhooks/${endpoint.id}/replay`, { since: event.created_at });
    expect(replayed.statusCode, replayed.body).toBe(202);
    expect((await claim("wkr_same/2")).map((delivery) => delivery.id)).toEqual([first.id]);

    const writeOutcome = createOutcomeWriter(ctx, 0);
    const outcome = (lease: string) =>
      writeOutcome({
        delivery: { ...first, type: "sms.delivered", failing_since: null },
        lease,
        result: { statusCode: 200, error: null, durationMs: 1 },
      });
    const state = async () =>
      ctx.db
        .selectFrom("webhook_deliveries")
        .select(["state", "lease_owner"])
        .where("id", "=", first.id)
        .executeTakeFirstOrThrow();
    // The first post's answer came before the replay: it must not stand for the replayed delivery.
    await outcome("wkr_same/1");
    expect(await state()).toEqual({ state: "pending", lease_owner: "wkr_same/2" });
    await outcome("wkr_same/2");
    expect(await state()).toEqual({ state: "succeeded", lease_owner: null });
  });

  it("claims no more of an endpoint than the worker has room for, oldest first, from the candidates only", async () => {
    const hooks = await receiver();
    const { addEndpoint, emit } = await account();
    const first = await addEndpoint(`${hooks.url}?first`);
    const second = await addEndpoint(`${hooks.url}?second`);
    for (let i = 0; i < 8; i++) await emit("sms.delivered");
    expect(await relayEvents(ctx, 100)).toBe(8);
    const oldestOf = async (endpointId: string, n: number) =>
      (
        await ctx.db
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("endpoint_id", "=", endpointId)
          .orderBy("next_attempt_at")
          .orderBy("id")
          .limit(n)
          .execute()
      ).map((row) => row.id);
    const now = new Date().toISOString();
    const claim = (
      owner: string,
      options: { candidates: number; inFlight: Map<string, number>; skip?: string[] },
    ) =>
      claimDueWebhookDeliveries(ctx.db, ctx.dialect, {
        owner,
        now,
        leaseUntil: new Date(Date.now() + 60_000).toISOString(),
        candidates: options.candidates,
        perEndpoint: 5,
        inFlight: options.inFlight,
        skipEndpoints: options.skip ?? [],
      });
    const byEndpoint = (claimed: Array<{ id: string; endpoint_id: string }>, endpointId: string) =>
      claimed.filter((delivery) => delivery.endpoint_id === endpointId).map((delivery) => delivery.id);

    // 3 of the first endpoint's in flight: 2 more of it, 5 of the other, the oldest of each.
    const mixed = await claim("w1", { candidates: 100, inFlight: new Map([[first.id, 3]]) });
    expect(byEndpoint(mixed, first.id).sort()).toEqual((await oldestOf(first.id, 2)).sort());
    expect(byEndpoint(mixed, second.id).sort()).toEqual((await oldestOf(second.id, 5)).sort());
    // A full endpoint gets none; a skipped one is not even a candidate.
    const next = await claim("w2", {
      candidates: 100,
      inFlight: new Map([[first.id, 5]]),
      skip: [second.id],
    });
    expect(next).toEqual([]);
    // Only the oldest candidates are ranked: of the 9 still due, a claim over 2 takes 2.
    const few = await claim("w3", { candidates: 2, inFlight: new Map() });
    expect(few).toHaveLength(2);
  });

  const createEndpointIn = (accountId: string, environment: Environment, url: string) =>
    createEndpoint(ctx, { accountId, environment }, { url, events: [ALL_EVENTS] }, CLI_ORIGIN);

  it("retries a failed delivery with the same webhook-id, and the attempts show both", async () => {
    const flaky = await receiver((_request, index) => (index === 0 ? 500 : 200));
    const { addEndpoint, emit, attempts, endpoint: get } = await account();
    const endpoint = await addEndpoint(flaky.url);
    startDispatcher();
    const event = await emit("sms.delivered");

    await waitFor(async () => flaky.received.length >= 2, 5_000);
    expect(webhookIds(flaky.received)).toEqual([event.id, event.id]);
    for (const request of flaky.received) expect(verify(endpoint.secret, request).id).toBe(event.id);
    // The retry waited the schedule's first delay.
    const gap = (flaky.received[1]?.receivedAt ?? 0) - (flaky.received[0]?.receivedAt ?? 0);
    expect(gap).toBeGreaterThanOrEqual(250);

    await waitFor(async () => (await attempts(endpoint.id)).length === 2, 2_000);
    const log = await attempts(endpoint.id);
    expect(
      log.map(({ attempt, status_code, error, event_id }) => ({ attempt, status_code, error, event_id })),
    ).toEqual([
      { attempt: 2, status_code: 200, error: null, event_id: event.id },
      { attempt: 1, status_code: 500, error: "HTTP 500", event_id: event.id },
    ]);
    // A success ends the endpoint's run of failures.
    expect((await get(endpoint.id)).failing_since).toBeNull();
  });

  it("gives an event up once the retry schedule is used up, and marks the endpoint failing", async () => {
    const broken = await receiver(() => 503);
    const { addEndpoint, emit, attempts, endpoint: get } = await account();
    const endpoint = await addEndpoint(broken.url);
    startDispatcher();
    const event = await emit("sms.failed");

    // The first attempt and one per entry of the schedule [0.3, 0.3]: three in all, then no more.
    await waitFor(async () => broken.received.length >= 3, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(broken.received).toHaveLength(3);
    const delivery = await ctx.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("event_id", "=", event.id)
      .executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({
      state: "failed",
      attempts: 3,
      next_attempt_at: null,
      lease_owner: null,
    });
    expect((await attempts(endpoint.id)).map((attempt) => attempt.attempt)).toEqual([3, 2, 1]);
    const after = await get(endpoint.id);
    expect(after.status).toBe("enabled");
    expect(after.failing_since).not.toBeNull();
  });

  it("disables an endpoint that answers 410 Gone, and gives up what was waiting for it", async () => {
    const gone = await receiver(() => 410);
    const { addEndpoint, emit, attempts, endpoint: get } = await account();
    const endpoint = await addEndpoint(gone.url);
    startDispatcher();
    await emit("sms.delivered");
    await waitFor(async () => (await get(endpoint.id)).status === "disabled", 5_000);
    expect(await get(endpoint.id)).toMatchObject({ status: "disabled", disabled_reason: "gone" });
    const disabledLines = warnings
      .map((line) => JSON.parse(line) as { msg: string; webhook_id?: string; reason?: string })
      .filter((line) => line.msg === "webhook endpoint disabled" && line.webhook_id === endpoint.id);
    expect(disabledLines).toEqual([expect.objectContaining({ reason: "gone" })]);
    expect((await attempts(endpoint.id))[0]).toMatchObject({
      status_code: 410,
      error: expect.stringMatching(/410/),
    });

    await emit("sms.delivered");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gone.received).toHaveLength(1);
    const pending = await ctx.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("endpoint_id", "=", endpoint.id)
      .where("state", "=", "pending")
      .execute();
    expect(pending).toEqual([]);
  });

  it("disables an endpoint whose every attempt has failed for 5 days", async () => {
    const down = await receiver(() => 500);
    const { addEndpoint, emit, endpoint: get } = await account();
    const endpoint = await addEndpoint(down.url);
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000 - 1000).toISOString();
    await ctx.db
      .updateTable("webhook_endpoints")
      .set({ failing_since: fiveDaysAgo })
      .where("id", "=", endpoint.id)
      .execute();
    startDispatcher();
    await emit("otp.sent");
    await waitFor(async () => (await get(endpoint.id)).status === "disabled", 5_000);
    expect(await get(endpoint.id)).toMatchObject({ disabled_reason: "failing", failing_since: fiveDaysAgo });
  });

  it("signs with both the new and the replaced secret for 24 hours after a rotation", async () => {
    const hooks = await receiver();
    const { addEndpoint, emit, api } = await account();
    const endpoint = await addEndpoint(hooks.url);
    const rotated = (await api("POST", `/v2/webhooks/${endpoint.id}/rotate-secret`, {})).json<Endpoint>();
    startDispatcher();

    await emit("sms.delivered");
    await waitFor(async () => hooks.received.length === 1, 5_000);
    const during = nth(hooks.received, 0);
    expect(String(during?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(rotated.secret, during).type).toBe("sms.delivered");
    expect(verify(endpoint.secret, during).type).toBe("sms.delivered");

    // 24 hours later, as far as the endpoint's row is concerned: only the new secret signs.
    await ctx.db
      .updateTable("webhook_endpoints")
      .set({ previous_secret_expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", endpoint.id)
      .execute();
    await emit("sms.delivered");
    await waitFor(async () => hooks.received.length === 2, 5_000);
    const after = nth(hooks.received, 1);
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verify(rotated.secret, after).type).toBe("sms.delivered");
    expect(() => verify(endpoint.secret, after)).toThrow(/No matching signature/);
  });

  it("replays every subscribed event since a time, with the original webhook-ids", async () => {
    const hooks = await receiver();
    const { addEndpoint, emit, api, attempts } = await account();
    const endpoint = await addEndpoint(hooks.url, ["sms.delivered", "sms.failed"]);
    const old = await emit("sms.delivered");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const since = new Date().toISOString();
    const first = await emit("sms.delivered");
    await emit("otp.sent");
    const second = await emit("sms.failed");
    startDispatcher();
    await waitFor(async () => hooks.received.length === 3, 5_000);

    const response = await api("POST", `/v2/webhooks/${endpoint.id}/replay`, { since });
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toEqual({ webhook_id: endpoint.id, since, queued: 2 });
    await waitFor(async () => hooks.received.length === 5, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hooks.received).toHaveLength(5);
    expect(webhookIds(hooks.received.slice(3)).sort()).toEqual([first.id, second.id].sort());
    for (const request of hooks.received) verify(endpoint.secret, request);
    expect(webhookIds(hooks.received)).not.toContain(undefined);
    expect(webhookIds(hooks.received).filter((id) => id === old.id)).toHaveLength(1);
    await waitFor(async () => (await attempts(endpoint.id)).length === 5, 2_000);

    const bad = await api("POST", `/v2/webhooks/${endpoint.id}/replay`, { since: "yesterday" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.param).toBe("since");
  });

  it("delivers a test event to that endpoint only", async () => {
    const hooks = await receiver();
    const bystander = await receiver();
    const { addEndpoint, api } = await account();
    const endpoint = await addEndpoint(hooks.url, ["sms.delivered"]);
    await addEndpoint(bystander.url, ["*"]);
    startDispatcher();

    const response = await api("POST", `/v2/webhooks/${endpoint.id}/test`, {});
    expect(response.statusCode, response.body).toBe(202);
    const event = response.json<{ id: string; type: string; data: object }>();
    expect(event).toMatchObject({ type: "webhook.test", data: { webhook_id: endpoint.id } });
    await waitFor(async () => hooks.received.length === 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(verify(endpoint.secret, nth(hooks.received, 0))).toMatchObject({
      id: event.id,
      type: "webhook.test",
      data: { webhook_id: endpoint.id },
    });
    expect(bystander.received).toHaveLength(0);

    await api("PATCH", `/v2/webhooks/${endpoint.id}`, { status: "disabled" });
    const refused = await api("POST", `/v2/webhooks/${endpoint.id}/test`, {});
    expect(refused.statusCode).toBe(400);
  });

  it("keeps a hanging endpoint from slowing a healthy one or sending messages", async () => {
    ctx.outboundWebhooks.timeoutMs = 20_000;
    const hanging = await receiver(() => "hang");
    const healthy = await receiver();
    const { accountId, secret, addEndpoint } = await account();
    await registerDlt(ctx, accountId, { templates: [{ templateId: TEMPLATE_ID, content: "Code {#code#}" }] });
    await addEndpoint(hanging.url);
    const good = await addEndpoint(healthy.url);
    const worker = startWorker(ctx, testCarriers(ctx), { pollIntervalMs: 10 });
    try {
      // Let the hanging endpoint take its share of connections first.
      const sendOne = async (i: number) => {
        const started = performance.now();
        const response = await app.inject({
          method: "POST",
          url: "/v2/sms/send",
          headers: bearer(secret),
          payload: {
            to: `+9198765${String(i).padStart(5, "0")}`,
            sender: "DAKIYA",
            template_id: TEMPLATE_ID,
            variables: { code: String(i) },
          },
        });
        expect(response.statusCode, response.body).toBeOneOf([200, 202]);
        return { id: response.json<{ id: string }>().id, ms: performance.now() - started };
      };
      await sendOne(0);
      await waitFor(async () => hanging.received.length >= 1, 5_000);

      const started = Date.now();
      const sends = [];
      for (let i = 1; i <= 10; i++) sends.push(await sendOne(i));
      // Every send answers at once, is delivered, and its two events reach the healthy endpoint.
      for (const send of sends) expect(send.ms).toBeLessThan(500);
      await waitFor(async () => healthy.received.length >= 22, 5_000);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeLessThan(3_000);
      const types = healthy.received.map((request) => verify(good.secret, request).type);
      expect(types.filter((type) => type === "sms.delivered")).toHaveLength(11);
      // The hanging endpoint holds no more than its share of requests, none answered.
      expect(hanging.received.length).toBeLessThanOrEqual(DEFAULT_WEBHOOK_CONCURRENCY);
    } finally {
      hanging.answer = () => 200;
      await hanging.close();
      await worker.stop();
    }
  });

  it("starts an endpoint's next request once it has answered, while the last outcome is still being written", async (context) => {
    // PostgreSQL only: there another transaction can hold up the outcome's write alone, while
    // the claim and the request go on (SQLite has one connection for all of them).
    if (dialect !== "postgres") context.skip();
    ctx.outboundWebhooks.concurrency = 1;
    const hooks = await receiver();
    const { addEndpoint, emit, attempts } = await account();
    const endpoint = await addEndpoint(hooks.url);
    const events = [await emit("sms.submitted"), await emit("sms.delivered")];
    // Outcomes start with an insert into webhook_attempts; claims and requests never touch it.
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    try {
      await blocker.query("begin");
      await blocker.query("lock table webhook_attempts in exclusive mode");
      startDispatcher();
      // One request at a time to the endpoint, and both sent before either outcome is written.
      await waitFor(async () => hooks.received.length >= 2, 5_000);
      expect(webhookIds(hooks.received).sort()).toEqual(events.map((event) => event.id).sort());
      expect((await blocker.query("select count(*)::int as n from webhook_attempts")).rows).toEqual([
        { n: 0 },
      ]);
      await blocker.query("commit");
      await waitFor(async () => (await attempts(endpoint.id)).length === 2, 5_000);
      expect(hooks.received).toHaveLength(2);
    } finally {
      await blocker.end();
    }
  });

  it("delivers an SMS's status changes end to end, from the send to a verified sms.delivered", async () => {
    const hooks = await receiver();
    const { accountId, secret, addEndpoint } = await account();
    await registerDlt(ctx, accountId, { templates: [{ templateId: TEMPLATE_ID, content: "Code {#code#}" }] });
    const endpoint = await addEndpoint(hooks.url, ["sms.submitted", "sms.delivered"]);
    const worker = startWorker(ctx, testCarriers(ctx), { pollIntervalMs: 10 });
    try {
      const response = await app.inject({
        method: "POST",
        url: "/v2/sms/send",
        headers: bearer(secret),
        payload: {
          to: "+919876543210",
          sender: "DAKIYA",
          template_id: TEMPLATE_ID,
          variables: { code: "42" },
          reference: "order-7",
        },
      });
      expect(response.statusCode, response.body).toBeOneOf([200, 202]);
      const message = response.json<{ id: string }>();
      await waitFor(async () => hooks.received.length >= 2, 5_000);
      const events = hooks.received.map((request) => verify(endpoint.secret, request));
      const delivered = events.find((event) => event.type === "sms.delivered");
      expect(delivered?.data).toMatchObject({
        id: message.id,
        status: "delivered",
        reference: "order-7",
        to: "+919876543210",
      });
      expect(events.map((event) => event.type).sort()).toEqual(["sms.delivered", "sms.submitted"]);
    } finally {
      await worker.stop();
    }
  });

  describe("SSRF guard at delivery time", () => {
    it("connects to the address its own lookup checked: the name is never resolved again", async () => {
      const hooks = await receiver();
      const { addEndpoint, emit } = await account();
      const lookups: string[] = [];
      ctx.outboundWebhooks.lookup = async (hostname) => {
        lookups.push(hostname);
        return [{ address: "127.0.0.1", family: 4 }];
      };
      // No DNS server knows this name: only the injected lookup can have led the request here.
      const endpoint = await addEndpoint(`http://hooks.dakiya.invalid:${hooks.port}/in`);
      startDispatcher();
      await emit("sms.delivered");
      await waitFor(async () => hooks.received.length === 1, 5_000);
      expect(hooks.received[0]?.headers.host).toBe(`hooks.dakiya.invalid:${hooks.port}`);
      expect(verify(endpoint.secret, nth(hooks.received, 0)).type).toBe("sms.delivered");
      expect(lookups).toEqual(["hooks.dakiya.invalid"]);
    });

    it("refuses a name that resolves to a private address by the time of delivery (DNS rebinding)", async () => {
      const hooks = await receiver();
      const { addEndpoint, emit, attempts } = await account();
      ctx.outboundWebhooks.allowPrivate = false;
      let answer = "93.184.216.34";
      ctx.outboundWebhooks.lookup = async () => [{ address: answer, family: 4 }];
      const endpoint = await addEndpoint(`http://rebind.dakiya.invalid:${hooks.port}/in`);
      answer = "127.0.0.1";
      startDispatcher();
      await emit("sms.delivered");
      await waitFor(async () => (await attempts(endpoint.id)).length >= 1, 5_000);
      expect((await attempts(endpoint.id))[0]).toMatchObject({
        status_code: null,
        error: "refused: rebind.dakiya.invalid resolves to 127.0.0.1, a loopback address",
      });
      expect(hooks.received).toHaveLength(0);
    });

    it.each([
      ["127.0.0.1", /loopback/],
      ["10.0.0.7", /private/],
      ["169.254.169.254", /metadata/],
      ["100.64.0.9", /carrier-grade NAT/],
      ["fe80::1", /link-local/],
      ["::ffff:127.0.0.1", /loopback/],
      ["fd00:ec2::254", /metadata/],
    ])("refuses to deliver to a host that resolves to %s", async (address, reason) => {
      const { addEndpoint, emit, attempts } = await account();
      const endpoint = await addEndpoint("http://target.dakiya.invalid/in");
      ctx.outboundWebhooks.allowPrivate = false;
      ctx.outboundWebhooks.lookup = async () => [{ address, family: address.includes(":") ? 6 : 4 }];
      startDispatcher();
      await emit("sms.delivered");
      await waitFor(async () => (await attempts(endpoint.id)).length >= 1, 5_000);
      const [attempt] = await attempts(endpoint.id);
      expect(attempt?.status_code).toBeNull();
      expect(attempt?.error).toMatch(/^refused: /);
      expect(attempt?.error).toMatch(reason);
    });

    it("refuses a stored loopback literal and localhost once private addresses are no longer allowed", async () => {
      const hooks = await receiver();
      const { addEndpoint, emit, attempts } = await account();
      const literal = await addEndpoint(hooks.url);
      const named = await addEndpoint(`http://localhost:${hooks.port}/in`);
      ctx.outboundWebhooks.allowPrivate = false;
      startDispatcher();
      await emit("sms.delivered");
      await waitFor(
        async () => (await attempts(literal.id)).length >= 1 && (await attempts(named.id)).length >= 1,
        5_000,
      );
      expect((await attempts(literal.id))[0]?.error).toBe("refused: 127.0.0.1 is a loopback address");
      expect((await attempts(named.id))[0]?.error).toBe("refused: localhost is a name for this machine");
      expect(hooks.received).toHaveLength(0);
    });
  });

  it("does not follow redirects and times out a slow endpoint", async () => {
    ctx.outboundWebhooks.timeoutMs = 300;
    ctx.outboundWebhooks.retrySchedule = [];
    const redirecting = await receiver(() => 302);
    const slow = await receiver(() => "hang");
    const { addEndpoint, emit, attempts } = await account();
    const redirect = await addEndpoint(redirecting.url);
    const hang = await addEndpoint(slow.url);
    startDispatcher();
    await emit("sms.delivered");
    await waitFor(
      async () => (await attempts(redirect.id)).length >= 1 && (await attempts(hang.id)).length >= 1,
      5_000,
    );
    expect((await attempts(redirect.id))[0]).toMatchObject({
      status_code: 302,
      error: expect.stringMatching(/redirect/),
    });
    const timedOut = (await attempts(hang.id))[0];
    expect(timedOut).toMatchObject({ status_code: null, error: "timed out after 300 ms" });
    expect(timedOut?.duration_ms).toBeGreaterThanOrEqual(290);
    expect(timedOut?.duration_ms).toBeLessThan(2_000);
    expect(redirecting.received).toHaveLength(1);
  });
});
