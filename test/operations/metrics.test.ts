import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import smpp from "smpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { Dialect } from "../../src/db/schema.js";
import type { App } from "../../src/http/types.js";
import { systemClock } from "../../src/lib/clock.js";
import { BACKLOG_MAX_AGE_MS } from "../../src/metrics/backlog.js";
import { unmeteredMetrics } from "../../src/metrics/metrics.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { startServer } from "../../src/server.js";
import { createEndpoint } from "../../src/webhooks/endpoints.js";
import { startWorker } from "../../src/worker.js";
import {
  openTestContext,
  TEST_SECRET,
  TestClock,
  testCarriers,
  UNLIMITED_REQUESTS,
} from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import {
  createSendingAccount,
  OTP_TEMPLATE_ID,
  registerDlt,
  SMS_TEMPLATE_CONTENT,
  SMS_TEMPLATE_ID,
} from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { CARRIER_REJECTED, DND_BLOCKED, NO_RECEIPT, nextNumber } from "../helpers/otp.js";
import { type Exposition, has, parseExposition, total } from "../helpers/prometheus.js";
import {
  killProcess,
  type ServerProcess,
  startServerProcess,
  startWorkerProcess,
} from "../helpers/server-process.js";
import { startTestSmsc, type TestSmsc } from "../helpers/smsc.js";
import { startReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

/*
 * GET /metrics (docs/metrics.md) through the real app: its counters against the database after
 * a load of sends, OTPs, verifications and webhook deliveries; the queue gauges against the
 * queue; no statement added to a request by counting; a listener of its own with METRICS_PORT.
 */

const CODE = "482913";
const WRONG_CODE = "482914";

async function scrape(app: App): Promise<Exposition> {
  const response = await app.inject({ method: "GET", url: "/metrics" });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(response.body);
}

function post(app: App, secret: string, url: string, body: unknown) {
  return app.inject({
    method: "POST",
    url,
    payload: JSON.stringify(body),
    headers: { "content-type": "application/json", ...bearer(secret) },
  });
}

async function countRows(ctx: AppContext, query: (db: AppContext["db"]) => Promise<{ n: number | string }>) {
  return Number((await query(ctx.db)).n);
}

/** A fresh database, a context on it with a stopped clock and an app, and an account set up to send. */
async function openHarness(dialect: Dialect, env: NodeJS.ProcessEnv = {}) {
  const database = await createTestDatabase(dialect);
  const clock = new TestClock();
  const ctx = await openTestContext(database.url, {
    clock,
    env: { ...UNLIMITED_REQUESTS, WEBHOOK_ALLOW_PRIVATE: "true", ...env },
  });
  const app = await buildApp(ctx);
  const account = await createSendingAccount(ctx, 10_000_000, {
    otpSettings: { resend_cooldown_seconds: 0 },
  });
  return {
    database,
    clock,
    ctx,
    app,
    account,
    sms: (target: App, to: string) =>
      post(target, account.secret, "/v2/sms/send", {
        to,
        sender: "DAKIYA",
        template_id: SMS_TEMPLATE_ID,
        variables: { ref: "A-1" },
      }),
    otp: (target: App, to: string) => post(target, account.secret, "/v2/otp/send", { to, code: CODE }),
    verify: (target: App, to: string, code: string) =>
      post(target, account.secret, "/v2/otp/verify", { to, code }),
    async close() {
      await app.close();
      await ctx.close();
      await database.drop();
    },
  };
}

describe.each(DIALECTS)("GET /metrics on %s", (dialect) => {
  let h: Awaited<ReturnType<typeof openHarness>>;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    h = await openHarness(dialect, { WEBHOOK_RETRY_SCHEDULE: "5" });
  });

  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await h?.close();
  });

  it("counts what the database holds after a load of sends, OTPs, verifications and webhooks", async () => {
    const { ctx, app, clock } = h;
    const scope = { accountId: h.account.accountId, environment: "sandbox" as const };
    const happy = await startReceiver(() => 200);
    const failing = await startReceiver(() => 500);
    receivers.push(happy, failing);
    await createEndpoint(ctx, scope, { url: happy.url, events: ["*"] }, CLI_ORIGIN);
    await createEndpoint(ctx, scope, { url: failing.url, events: ["sms.failed"] }, CLI_ORIGIN);
    const poor = await createAccountWithKey(ctx, "sandbox", 0);
    await registerDlt(ctx, poor.accountId, {
      templates: [{ templateId: OTP_TEMPLATE_ID, content: "{#otp#} is your Dakiya code. Do not share it." }],
    });
    await updateOtpSettings(
      ctx,
      poor.accountId,
      "sandbox",
      {
        sms_template_id: OTP_TEMPLATE_ID,
        sms_sender: "DAKIYA",
      },
      CLI_ORIGIN,
    );

    const before = await scrape(app);

    const smsTo = [
      ...Array.from({ length: 20 }, nextNumber),
      DND_BLOCKED,
      DND_BLOCKED,
      CARRIER_REJECTED,
      CARRIER_REJECTED,
      NO_RECEIPT,
    ];
    for (const to of smsTo) expect((await h.sms(app, to)).statusCode).toBe(202);
    const batch = await post(app, h.account.secret, "/v2/sms/batch", {
      messages: [
        ...Array.from({ length: 4 }, () => ({
          to: nextNumber(),
          sender: "DAKIYA",
          template_id: SMS_TEMPLATE_ID,
          variables: { ref: "B-2" },
        })),
        { to: nextNumber(), sender: "NOSUCH", template_id: SMS_TEMPLATE_ID, variables: { ref: "B-3" } },
      ],
    });
    expect(batch.statusCode, batch.body).toBe(202);
    expect(batch.json<{ accepted: number }>().accepted).toBe(4);

    const otpTo = Array.from({ length: 6 }, nextNumber);
    for (const to of otpTo) expect((await h.otp(app, to)).statusCode).toBe(200);
    // Without a code of the caller's, a send to a number with a pending OTP resends it.
    for (const to of otpTo.slice(0, 2)) {
      const resent = await post(app, h.account.secret, "/v2/otp/send", { to });
      expect(resent.json<{ sends: number }>().sends).toBe(2);
    }
    const refused = await post(app, poor.secret, "/v2/otp/send", { to: nextNumber() });
    expect(refused.statusCode, refused.body).toBe(402);
    const reasons: string[] = [];
    for (const to of otpTo.slice(0, 3))
      reasons.push((await h.verify(app, to, CODE)).json<{ reason: string }>().reason);
    for (const to of otpTo.slice(3, 5)) {
      reasons.push((await h.verify(app, to, WRONG_CODE)).json<{ reason: string }>().reason);
    }
    reasons.push((await h.verify(app, nextNumber(), CODE)).json<{ reason: string }>().reason);
    expect(reasons).toEqual([
      "approved",
      "approved",
      "approved",
      "incorrect_code",
      "incorrect_code",
      "not_found",
    ]);

    // The queue as it stands, once the last reading is old enough to be taken again.
    clock.advance(BACKLOG_MAX_AGE_MS / 1000);
    const queued = await scrape(app);
    const messages = await countRows(ctx, (db) =>
      db
        .selectFrom("messages")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .executeTakeFirstOrThrow(),
    );
    expect(messages).toBe(25 + 4 + 6 + 2);
    expect(total(queued, "dakiya_queue_messages", { state: "due" })).toBe(messages);
    expect(total(queued, "dakiya_queue_messages", { state: "retry_wait" })).toBe(0);
    expect(total(queued, "dakiya_queue_oldest_age_seconds")).toBe(BACKLOG_MAX_AGE_MS / 1000);
    const unrelayed = await countRows(ctx, (db) =>
      db
        .selectFrom("events")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("fanned_out_at", "is", null)
        .executeTakeFirstOrThrow(),
    );
    expect(unrelayed).toBeGreaterThan(0);
    expect(total(queued, "dakiya_events_unrelayed")).toBe(unrelayed);

    // Deliver everything; the failing endpoint's one retry falls due once the clock moves on.
    const worker = startWorker(ctx, testCarriers(ctx), { pollIntervalMs: 10 });
    try {
      const pending = (due: boolean) =>
        countRows(ctx, (db) => {
          let query = db
            .selectFrom("webhook_deliveries")
            .select((eb) => eb.fn.countAll<number | string>().as("n"))
            .where("state", "=", "pending");
          if (due) query = query.where("next_attempt_at", "<=", clock.now().toISOString());
          return query.executeTakeFirstOrThrow();
        });
      const settled = async (due: boolean) =>
        (await countRows(ctx, (db) =>
          db
            .selectFrom("messages")
            .select((eb) => eb.fn.countAll<number | string>().as("n"))
            .where("status", "=", "queued")
            .executeTakeFirstOrThrow(),
        )) === 0 &&
        (await countRows(ctx, (db) =>
          db
            .selectFrom("events")
            .select((eb) => eb.fn.countAll<number | string>().as("n"))
            .where("fanned_out_at", "is", null)
            .executeTakeFirstOrThrow(),
        )) === 0 &&
        (await pending(due)) === 0;
      await waitFor(() => settled(true), 20_000);
      expect(await pending(false)).toBe(2);
      clock.advance(5);
      await waitFor(() => settled(false), 20_000);
    } finally {
      await worker.stop();
    }

    clock.advance(BACKLOG_MAX_AGE_MS / 1000);
    const after = await scrape(app);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);
    const count = async (where: (db: AppContext["db"]) => Promise<{ n: number | string }>) =>
      countRows(ctx, where);
    const withStatus = (status: string) =>
      count((db) =>
        db
          .selectFrom("messages")
          .select((eb) => eb.fn.countAll<number | string>().as("n"))
          .where("status", "=", status as "delivered")
          .executeTakeFirstOrThrow(),
      );

    expect(delta("dakiya_messages_accepted_total", { channel: "sms", environment: "sandbox" })).toBe(
      messages,
    );
    expect(delta("dakiya_messages_accepted_total", { environment: "live" })).toBe(0);
    expect(await withStatus("delivered")).toBe(20 + 4 + 6 + 2);
    for (const status of ["delivered", "undelivered", "failed"]) {
      expect(delta("dakiya_messages_finished_total", { channel: "sms", status }), status).toBe(
        await withStatus(status),
      );
    }
    expect(await withStatus("undelivered")).toBe(2);
    expect(await withStatus("failed")).toBe(2);

    const otps = await ctx.db.selectFrom("otps").select(["sends", "status"]).execute();
    expect(otps).toHaveLength(6);
    expect(delta("dakiya_otp_sends_total", { kind: "new" })).toBe(otps.length);
    expect(delta("dakiya_otp_sends_total", { kind: "resend" })).toBe(
      otps.reduce((sum, otp) => sum + Number(otp.sends) - 1, 0),
    );
    expect(delta("dakiya_otp_sends_total", { kind: "fallback" })).toBe(0);
    expect(delta("dakiya_otp_send_refusals_total", { reason: "insufficient_balance" })).toBe(1);
    expect(delta("dakiya_otp_verifications_total", { reason: "approved" })).toBe(
      otps.filter((otp) => otp.status === "approved").length,
    );
    expect(delta("dakiya_otp_verifications_total", { reason: "incorrect_code" })).toBe(2);
    expect(delta("dakiya_otp_verifications_total", { reason: "not_found" })).toBe(1);

    const route = { route: "/v2/sms/send", method: "POST" };
    expect(delta("dakiya_http_requests_total", { ...route, status: "202" })).toBe(smsTo.length);
    expect(delta("dakiya_http_request_duration_seconds_count", route)).toBe(smsTo.length);
    expect(delta("dakiya_http_requests_total", { route: "/v2/otp/send", status: "200" })).toBe(8);
    expect(delta("dakiya_http_requests_total", { route: "/v2/otp/send", status: "402" })).toBe(1);
    expect(delta("dakiya_http_requests_total", { route: "/v2/sms/batch", status: "202" })).toBe(1);

    const attempts = await ctx.db.selectFrom("webhook_attempts").select("status_code").execute();
    const succeeded = attempts.filter((a) => a.status_code !== null && a.status_code < 300).length;
    const gaveUp = await count((db) =>
      db
        .selectFrom("webhook_deliveries")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("state", "=", "failed")
        .executeTakeFirstOrThrow(),
    );
    expect(happy.received.length).toBe(succeeded);
    expect(gaveUp).toBe(2);
    expect(delta("dakiya_webhook_attempts_total")).toBe(attempts.length);
    expect(delta("dakiya_webhook_attempts_total", { outcome: "delivered" })).toBe(succeeded);
    expect(delta("dakiya_webhook_attempts_total", { outcome: "gave_up" })).toBe(gaveUp);
    expect(delta("dakiya_webhook_attempts_total", { outcome: "retrying" })).toBe(2);

    expect(total(after, "dakiya_queue_messages")).toBe(0);
    expect(total(after, "dakiya_queue_oldest_age_seconds")).toBe(0);
    expect(total(after, "dakiya_webhook_backlog")).toBe(0);
    expect(total(after, "dakiya_events_unrelayed")).toBe(0);
    // The process's own metrics come with the families of the context.
    expect(has(after, "process_cpu_user_seconds_total")).toBe(true);
    expect(has(after, "nodejs_eventloop_lag_seconds")).toBe(true);
    expect(after.types.get("dakiya_http_request_duration_seconds")).toBe("histogram");
  });

  it("labels requests by route pattern, never by the numbers or ids in the URL", async () => {
    const to = nextNumber();
    const sent = (await h.sms(h.app, to)).json<{ id: string }>();
    await h.app.inject({ method: "GET", url: `/v2/sms/${sent.id}`, headers: bearer(h.account.secret) });
    await h.app.inject({ method: "GET", url: `/no/such/path/${to}` });
    const text = (await h.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(text).not.toContain(sent.id);
    expect(text).not.toContain(to.slice(1));
    expect(text).not.toContain(h.account.accountId);
    const exposition = parseExposition(text);
    expect(total(exposition, "dakiya_http_requests_total", { route: "/v2/sms/:id", status: "200" })).toBe(1);
    expect(total(exposition, "dakiya_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
  });

  it("adds no statement to a request, and scrapes in between share one reading of the queues", async () => {
    const { ctx, app, clock } = h;
    // The same app on the same context with counting switched off, for comparison.
    const unmetered = await buildApp({ ...ctx, metrics: unmeteredMetrics });
    try {
      let run = 0;
      const requests = async (target: App) => {
        run += 1;
        const to = nextNumber();
        expect((await h.sms(target, to)).statusCode).toBe(202);
        expect((await h.otp(target, to)).statusCode).toBe(200);
        expect((await h.verify(target, to, CODE)).json<{ reason: string }>().reason).toBe("approved");
        expect((await h.sms(target, nextNumber())).statusCode).toBe(202);
        return run;
      };
      // Each app takes its key's request-token lease and caches its statements first.
      for (let i = 0; i < 3; i++) {
        await requests(app);
        await requests(unmetered);
      }
      const metered = await statementsOf(dialect, () => requests(app));
      const bare = await statementsOf(dialect, () => requests(unmetered));
      expect(metered.length).toBeGreaterThan(0);
      expect([...metered].sort()).toEqual([...bare].sort());

      clock.advance(BACKLOG_MAX_AGE_MS / 1000);
      const storm = await statementsOf(dialect, () =>
        Promise.all(Array.from({ length: 20 }, () => app.inject({ method: "GET", url: "/metrics" }))),
      );
      expect(storm).toHaveLength(3);
      expect(storm.every((statement) => /^select count\(\*\)/.test(statement))).toBe(true);
      const again = await statementsOf(dialect, () =>
        Promise.all(Array.from({ length: 20 }, () => app.inject({ method: "GET", url: "/metrics" }))),
      );
      expect(again).toEqual([]);
    } finally {
      await unmetered.close();
    }
  });
});

/**
 * The SQL statements run while `work` runs, but for transaction control, the request-token
 * leases of keys (taken by the clock, whenever a lease runs out: src/keys/rate-lease.ts) and the
 * settings cache's reads of senders, templates, OTP settings and an account's BFSI mark (also by the clock: an entry
 * lives 500 ms, src/accounts/settings-cache.ts).
 */
async function statementsOf(dialect: Dialect, work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const record = (sql: string) => {
    const text = sql.replace(/\s+/g, " ").trim();
    if (/^(begin|commit|rollback|savepoint|release)\b/i.test(text)) return;
    if (text.includes("api_key_rate_buckets")) return;
    if (/^select .* from "(senders|templates|otp_settings|accounts)"/.test(text)) return;
    statements.push(text);
  };
  if (dialect === "postgres") {
    const query = pg.Client.prototype.query;
    // biome-ignore lint/suspicious/noExplicitAny: pg's query has many overloads; this only watches it
    pg.Client.prototype.query = function (this: pg.Client, ...args: any[]) {
      record(String(typeof args[0] === "string" ? args[0] : (args[0]?.text ?? "")));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await work();
    } finally {
      pg.Client.prototype.query = query;
    }
    return statements;
  }
  const probe = new SqliteDatabase(":memory:");
  const prototype = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
  probe.close();
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const method of ["run", "all", "get", "iterate"]) {
    const original = prototype[method] as (...args: unknown[]) => unknown;
    originals.set(method, original);
    prototype[method] = function (this: { source: string }, ...args: unknown[]) {
      record(this.source);
      return original.apply(this, args);
    };
  }
  try {
    await work();
  } finally {
    for (const [method, original] of originals) prototype[method] = original;
  }
  return statements;
}

describe.each(DIALECTS)("METRICS_PORT on %s", (dialect) => {
  let database: TestDatabase | undefined;

  afterAll(async () => {
    await database?.drop();
  });

  it("serves /metrics on its own listener and not on the main port", async () => {
    database = await createTestDatabase(dialect);
    const ctx = await openTestContext(database.url, { env: { METRICS_PORT: "0" } });
    const app = await buildApp(ctx);
    const server = await startServer(app, ctx, { host: "127.0.0.1", port: 0 });
    try {
      expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.metricsUrl).not.toBe(server.url);
      const main = await fetch(`${server.url}/metrics`);
      expect(main.status).toBe(404);
      expect(((await main.json()) as { error: { code: string } }).error.code).toBe("not_found");
      await fetch(`${server.url}/healthz`);

      const scraped = await fetch(`${server.metricsUrl}/metrics`);
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const exposition = parseExposition(await scraped.text());
      expect(total(exposition, "dakiya_http_requests_total", { route: "/healthz", status: "200" })).toBe(1);
      expect(total(exposition, "dakiya_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
      expect(has(exposition, "dakiya_queue_messages", { state: "due" })).toBe(true);

      const other = await fetch(`${server.metricsUrl}/v2/balance`);
      expect(other.status).toBe(404);
      const body = (await other.json()) as { error: { code: string; request_id: string } };
      expect(body.error.code).toBe("not_found");
      expect(body.error.request_id).toMatch(/^req_/);
      expect((await fetch(`${server.metricsUrl}/metrics`, { method: "POST" })).status).toBe(404);
    } finally {
      await server.stop();
    }
    await expect(fetch(`${server.metricsUrl}/metrics`)).rejects.toThrow();
  });
});

describe("the route gauges", () => {
  it("show each route of the carriers on the board, read at scrape time", async () => {
    const database = await createTestDatabase("sqlite");
    const ctx = await openTestContext(database.url);
    const app = await buildApp(ctx);
    try {
      const routes = [
        { name: "primary", bound: true, window: 10, inFlight: 3, circuit: "closed" as const },
        { name: "backup", bound: false, window: 5, inFlight: 0, circuit: "open" as const },
      ];
      const hide = ctx.carrierBoard.show({
        sms: { name: "smpp", send: async () => ({}) as never, routes: () => routes },
      });
      const shown = await scrape(app);
      expect(total(shown, "dakiya_route_bound", { route: "primary" })).toBe(1);
      expect(total(shown, "dakiya_route_bound", { route: "backup" })).toBe(0);
      expect(total(shown, "dakiya_route_window", { route: "backup" })).toBe(5);
      expect(total(shown, "dakiya_route_in_flight", { route: "primary" })).toBe(3);
      expect(total(shown, "dakiya_route_circuit", { route: "backup", state: "open" })).toBe(1);
      expect(total(shown, "dakiya_route_circuit", { route: "backup", state: "closed" })).toBe(0);

      routes[1] = { ...routes[1], bound: true, circuit: "closed" } as (typeof routes)[number];
      expect(total(await scrape(app), "dakiya_route_bound", { route: "backup" })).toBe(1);
      hide();
      expect(has(await scrape(app), "dakiya_route_bound")).toBe(false);
    } finally {
      await app.close();
      await ctx.close();
      await database.drop();
    }
  });
});

/** A port free on 127.0.0.1 right now (the OS picks it; it is released for the caller to take). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

describe.each(DIALECTS)("serve --no-worker beside dakiya worker on %s", (dialect) => {
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  let worker: ChildProcess | undefined;

  afterAll(async () => {
    await server?.kill();
    await killProcess(worker);
    await database?.drop();
  });

  it("each process serves its own counters; both read the same queue from the database", {
    timeout: 60_000,
  }, async () => {
    database = await createTestDatabase(dialect);
    const setup = await openTestContext(database.url);
    const { accountId, secret } = await createAccountWithKey(setup, "sandbox", 1_000_000);
    await registerDlt(setup, accountId, {
      templates: [{ templateId: SMS_TEMPLATE_ID, content: SMS_TEMPLATE_CONTENT }],
    });
    await setup.close();

    const env = { DATABASE_URL: database.url, DAKIYA_SECRET: TEST_SECRET, WORKER_POLL_INTERVAL_MS: "50" };
    const apiMetrics = await freePort();
    server = await startServerProcess({ ...env, METRICS_PORT: String(apiMetrics) }, ["--no-worker"]);
    const workerMetrics = await freePort();
    worker = startWorkerProcess(database.url, { ...env, METRICS_PORT: String(workerMetrics) });
    const scrapeAt = async (port: number) => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      return parseExposition(await response.text());
    };
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${workerMetrics}/metrics`).catch(() => null))?.ok === true,
      20_000,
    );

    const sends = 5;
    for (let i = 0; i < sends; i++) {
      const response = await fetch(`${(server as ServerProcess).url}/v2/sms/send`, {
        method: "POST",
        headers: { ...bearer(secret), "content-type": "application/json" },
        body: JSON.stringify({
          to: nextNumber(),
          sender: "DAKIYA",
          template_id: SMS_TEMPLATE_ID,
          variables: { ref: "9" },
        }),
      });
      expect(response.status).toBe(202);
    }
    await waitFor(
      async () =>
        total(await scrapeAt(workerMetrics), "dakiya_messages_finished_total", { status: "delivered" }) ===
        sends,
      20_000,
    );
    // The API process accepted and answered; the worker delivered. Neither counts the other's work.
    const api = await scrapeAt(apiMetrics);
    const work = await scrapeAt(workerMetrics);
    expect(total(api, "dakiya_messages_accepted_total")).toBe(sends);
    expect(total(api, "dakiya_messages_finished_total")).toBe(0);
    expect(total(api, "dakiya_http_requests_total", { route: "/v2/sms/send", status: "202" })).toBe(sends);
    expect(total(work, "dakiya_messages_accepted_total")).toBe(0);
    expect(has(work, "dakiya_http_requests_total")).toBe(false);
    // The queue is the database's: both processes come to read it empty (each reading lasts 5 s).
    for (const port of [apiMetrics, workerMetrics]) {
      await waitFor(async () => total(await scrapeAt(port), "dakiya_queue_messages") === 0, 20_000, 500);
    }
  });
});

describe.each(DIALECTS)("carrier metrics over SMPP on %s", (dialect) => {
  let database: TestDatabase | undefined;
  let smsc: TestSmsc | undefined;

  afterAll(async () => {
    await smsc?.stop();
    await database?.drop();
  });

  it("counts submits by route and outcome and times receipts, from a loopback SMSC", {
    timeout: 60_000,
  }, async () => {
    const refused = "919876500099";
    smsc = await startTestSmsc({
      answer: (submit) =>
        submit.destination_addr === refused ? smpp.errors.ESME_RINVDSTADR : smpp.errors.ESME_ROK,
    });
    database = await createTestDatabase(dialect);
    const ctx = await openTestContext(database.url, {
      clock: systemClock,
      env: { SMPP_URL: smsc.url, SMPP_TPS: "2000" },
    });
    const app = await buildApp(ctx);
    const { accountId, secret } = await createAccountWithKey(ctx, "live", 10_000_000);
    await registerDlt(ctx, accountId, {
      templates: [{ templateId: SMS_TEMPLATE_ID, content: SMS_TEMPLATE_CONTENT }],
    });
    const worker = startWorker(ctx, testCarriers(ctx), { pollIntervalMs: 10 });
    try {
      const before = await scrape(app);
      const to = [...Array.from({ length: 4 }, nextNumber), `+${refused}`];
      for (const number of to) {
        const response = await post(app, secret, "/v2/sms/send", {
          to: number,
          sender: "DAKIYA",
          template_id: SMS_TEMPLATE_ID,
          variables: { ref: "7" },
        });
        expect(response.statusCode, response.body).toBe(202);
      }
      const current = smsc;
      await current.waitFor(() => current.submits.filter((s) => s.responded).length === to.length, 10_000);
      const accepted = current.submits.filter((s) => s.messageId !== undefined);
      expect(accepted).toHaveLength(4);
      await waitFor(async () => {
        const rows = await ctx.db.selectFrom("messages").select("status").execute();
        return rows.filter((row) => row.status === "submitted").length === 4;
      }, 10_000);
      for (const submit of accepted) {
        await current.sendReceipt(submit.messageId as string, { stat: "DELIVRD", withTlv: true });
      }

      const [route] = ctx.carrierBoard.routes();
      expect(route).toBeDefined();
      const name = (route as { name: string }).name;
      const after = await scrape(app);
      const delta = (metric: string, labels: Record<string, string>) =>
        total(after, metric, labels) - total(before, metric, labels);
      expect(delta("dakiya_carrier_submits_total", { route: name, outcome: "accepted" })).toBe(4);
      expect(delta("dakiya_carrier_submits_total", { route: name, outcome: "permanent_error" })).toBe(1);
      expect(delta("dakiya_delivery_receipt_seconds_count", { route: name })).toBe(4);
      expect(delta("dakiya_messages_finished_total", { environment: "live", status: "delivered" })).toBe(4);
      expect(delta("dakiya_messages_finished_total", { environment: "live", status: "failed" })).toBe(1);
      expect(delta("dakiya_messages_accepted_total", { channel: "sms", environment: "live" })).toBe(5);
      expect(total(after, "dakiya_route_bound", { route: name })).toBe(1);
      expect(total(after, "dakiya_route_circuit", { route: name, state: "closed" })).toBe(1);
    } finally {
      await worker.stop();
      await app.close();
      await ctx.close();
    }
  });
});
