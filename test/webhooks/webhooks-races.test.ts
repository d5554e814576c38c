import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import { recordEvent } from "../../src/events/outbox.js";
import type { App } from "../../src/http/types.js";
import { systemClock } from "../../src/lib/clock.js";
import { createLogger } from "../../src/lib/logger.js";
import { type RunningDispatcher, startWebhookDispatcher } from "../../src/webhooks/dispatcher.js";
import { openTestContext, TEST_SECRET, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { parseExposition } from "../helpers/prometheus.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { startReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

/* Races on one endpoint: a DELETE beside the requests that use the endpoint, and the dispatcher
 * delivering to it meanwhile. The losers are answered 404 and the worker takes a vanished endpoint
 * (and its deliveries, gone with it) as a normal outcome. */

const WEBHOOK_ENV = {
  ...UNLIMITED_REQUESTS,
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_TIMEOUT_MS: "100",
  WEBHOOK_RETRY_SCHEDULE: "0.05,0.05,0.05",
};

interface LogEntry {
  level: number;
  msg: string;
  err?: { message?: string };
}

/** The log's lines at error level or above (pino: 50 error, 60 fatal), each as its message and error. */
function errorsLogged(lines: string[]): string[] {
  return lines
    .map((line) => JSON.parse(line) as LogEntry)
    .filter((entry) => entry.level >= 50)
    .map((entry) => `${entry.msg}: ${entry.err?.message ?? ""}`);
}

describe.each(DIALECTS)("a webhook endpoint deleted while it is in use on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let app: App;
  let receiver: WebhookReceiver;
  let dispatcher: RunningDispatcher | undefined;
  const logLines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const log = createLogger("info", { write: (line: string) => void logLines.push(line) });
    ctx = await openTestContext(database.url, { clock: systemClock, log, env: WEBHOOK_ENV });
    app = await buildApp(ctx);
    // Some attempts succeed, some fail, some time out: every kind of outcome races the DELETE.
    receiver = await startReceiver((_request, index) =>
      index % 3 === 0 ? 200 : index % 3 === 1 ? 500 : "hang",
    );
  });

  afterAll(async () => {
    await dispatcher?.stop();
    await app?.close();
    await receiver?.close();
    await ctx?.close();
    await database?.drop();
  });

  it("answers 404 to the requests that lose, and the dispatcher logs no error", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox");
    // Events of the account for the replays to queue again (test events are never replayed).
    await ctx.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 4; i++) {
        await recordEvent(trx, ctx, {
          accountId,
          environment: "sandbox",
          type: "sms.delivered",
          data: { i },
        });
      }
    });
    const call = (method: "POST" | "PATCH" | "DELETE", url: string, payload?: object) =>
      app.inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });
    dispatcher = startWebhookDispatcher(ctx, { owner: "wkr_races", pollIntervalMs: 2 });
    const since = new Date(Date.now() - 60_000).toISOString();

    const unexpected: string[] = [];
    const deadline = Date.now() + 12_000;
    let rounds = 0;
    for (; rounds < 40 && Date.now() < deadline; rounds++) {
      const created = await call("POST", "/v2/webhooks", { url: receiver.url });
      expect(created.statusCode, created.body).toBe(201);
      const path = `/v2/webhooks/${created.json<{ id: string }>().id}`;
      // Deliveries in flight when the DELETE comes: a few test events, then the racers' own.
      for (let i = 0; i < 3; i++) expect((await call("POST", `${path}/test`, {})).statusCode).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, rounds % 5));
      const racers: Array<[string, ReturnType<typeof call>]> = [
        ["DELETE", call("DELETE", path)],
        ...Array.from({ length: 4 }, (): [string, ReturnType<typeof call>] => [
          "test",
          call("POST", `${path}/test`, {}),
        ]),
        ...Array.from({ length: 4 }, (): [string, ReturnType<typeof call>] => [
          "rotate-secret",
          call("POST", `${path}/rotate-secret`, {}),
        ]),
        ["PATCH", call("PATCH", path, { description: `round ${rounds}` })],
        ["PATCH", call("PATCH", path, { events: ["sms.delivered"] })],
        ["replay", call("POST", `${path}/replay`, { since })],
        ["replay", call("POST", `${path}/replay`, { since })],
      ];
      for (const [what, answer] of racers) {
        const response = await answer;
        const lost =
          response.statusCode === 404 &&
          response.json<{ error: { code: string } }>().error.code === "not_found";
        if (response.statusCode >= 300 && !lost) unexpected.push(`${what}: ${response.statusCode}`);
      }
    }
    expect(rounds).toBeGreaterThanOrEqual(5);
    expect({ unexpected, errors: errorsLogged(logLines) }).toEqual({ unexpected: [], errors: [] });

    // Every endpoint is gone, and its deliveries and attempts with it; the dispatcher has nothing left.
    await waitFor(async () => {
      const left = await ctx.db.selectFrom("webhook_deliveries").select("id").execute();
      return left.length === 0;
    }, 10_000);
    // Let the requests still out time out and their outcomes be written.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await dispatcher.stop();
    dispatcher = undefined;
    expect(await ctx.db.selectFrom("webhook_endpoints").select("id").execute()).toEqual([]);
    expect(await ctx.db.selectFrom("webhook_attempts").select("id").execute()).toEqual([]);
    expect(errorsLogged(logLines)).toEqual([]);
  }, 60_000);
});

/* Replays of an account's endpoints beside sends, whose events the relay fans out to deliveries,
 * and the dispatcher recording attempts (some failed, so endpoints' runs of failures start and
 * end): two server processes on one PostgreSQL database (one process on SQLite, its only form). */

describe.each(DIALECTS)("replays beside sends and failing deliveries on %s", (dialect) => {
  let database: TestDatabase;
  const servers: ServerProcess[] = [];
  const receivers: WebhookReceiver[] = [];

  afterAll(async () => {
    for (const server of servers) await server.kill();
    for (const receiver of receivers) await receiver.close();
    await database?.drop();
  });

  it("answers every replay, writes no deadlock, and delivers every event and every replay", async () => {
    database = await createTestDatabase(dialect);
    const setup = await openTestContext(database.url, { clock: systemClock });
    const { secret } = await createSendingAccount(setup, 1_000_000_000);
    await setup.close();

    const env = {
      ...UNLIMITED_REQUESTS,
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_TIMEOUT_MS: "5000",
      // Enough retries that an event whose attempts fail one time in three is still delivered.
      WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 15 }, () => "0.05").join(","),
      WORKER_POLL_INTERVAL_MS: "10",
    };
    const processes = await Promise.all(
      Array.from({ length: dialect === "postgres" ? 2 : 1 }, () => startServerProcess(env)),
    );
    servers.push(...processes);
    const logs = servers.map((server) => {
      const lines: string[] = [];
      createInterface({ input: server.child.stdout as NodeJS.ReadableStream }).on("line", (line) =>
        lines.push(line),
      );
      return lines;
    });
    const serverFor = (i: number) => servers[i % servers.length] as ServerProcess;
    const api = async (i: number, method: string, path: string, body: object) => {
      const response = await fetch(`${serverFor(i).url}${path}`, {
        method,
        headers: { ...bearer(secret), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    // Three endpoints of the account; a third of the attempts fail.
    const succeededIds: Array<Array<{ id: string; at: number }>> = [];
    const endpointIds: string[] = [];
    for (let e = 0; e < 3; e++) {
      const succeeded: Array<{ id: string; at: number }> = [];
      succeededIds.push(succeeded);
      const receiver = await startReceiver((request) => {
        if (Math.random() < 1 / 3) return 500;
        succeeded.push({ id: String(request.headers["webhook-id"]), at: request.receivedAt });
        return 200;
      });
      receivers.push(receiver);
      const created = await api(e, "POST", "/v2/webhooks", { url: receiver.url });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      endpointIds.push(String(created.body.id));
    }

    // The test's own look at the database, beside the servers.
    const check = await openTestContext(database.url, { clock: systemClock });
    const failed: string[] = [];
    const checkedReplays: Array<{ endpointId: string; sentAt: number; due: string[]; queued: number }> = [];
    let sends = 0;
    let replays = 0;
    const loadEnds = Date.now() + 8_000;
    const sender = async (client: number, clients: number) => {
      for (let i = client; Date.now() < loadEnds; i += clients) {
        const sent = await api(i, "POST", "/v2/sms/send", {
          to: `+9198765${String(i % 100_000).padStart(5, "0")}`,
          sender: "DAKIYA",
          template_id: SMS_TEMPLATE_ID,
          variables: { ref: String(i) },
        });
        sends++;
        if (sent.status !== 202) failed.push(`send: ${sent.status} ${JSON.stringify(sent.body)}`);
      }
    };
    const replayer = async (client: number, clients: number) => {
      for (let i = client; Date.now() < loadEnds; i += clients) {
        const endpointId = endpointIds[i % endpointIds.length] as string;
        // The last half second: events the relay has not fanned out yet are among them. Every
        // fourth replay is checked: the events written before it was asked for must come again.
        const since = new Date(Date.now() - 500).toISOString();
        const checked = i % 4 === 0;
        const due = checked
          ? (await check.db.selectFrom("events").select("id").where("created_at", ">=", since).execute()).map(
              ({ id }) => id,
            )
          : [];
        const sentAt = Date.now();
        const replayed = await api(i, "POST", `/v2/webhooks/${endpointId}/replay`, { since });
        replays++;
        if (replayed.status !== 202)
          failed.push(`replay: ${replayed.status} ${JSON.stringify(replayed.body)}`);
        else if (checked)
          checkedReplays.push({ endpointId, sentAt, due, queued: Number(replayed.body.queued) });
      }
    };
    try {
      await Promise.all([
        ...Array.from({ length: 6 }, (_, client) => sender(client, 6)),
        ...Array.from({ length: 3 }, (_, client) => replayer(client, 3)),
      ]);
      expect(sends).toBeGreaterThan(20);
      expect(replays).toBeGreaterThan(10);

      // Every delivery ends succeeded: every event reached every endpoint, and the events of every
      // checked replay reached its endpoint again after it was asked for.
      await waitFor(async () => {
        const open = await check.db
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("state", "<>", "succeeded")
          .limit(1)
          .execute();
        return open.length === 0;
      }, 30_000);
      const events = await check.db.selectFrom("events").select("id").execute();
      expect(events.length).toBeGreaterThanOrEqual(sends);
      const missed: string[] = [];
      endpointIds.forEach((endpointId, e) => {
        const received = succeededIds[e] as Array<{ id: string; at: number }>;
        expect(new Set(received.map(({ id }) => id))).toEqual(new Set(events.map(({ id }) => id)));
        for (const replay of checkedReplays.filter((each) => each.endpointId === endpointId)) {
          expect(replay.queued).toBeGreaterThanOrEqual(replay.due.length);
          const again = new Set(received.filter(({ at }) => at >= replay.sentAt).map(({ id }) => id));
          missed.push(...replay.due.filter((id) => !again.has(id)).map((id) => `${endpointId} ${id}`));
        }
      });
      expect(missed).toEqual([]);
    } finally {
      await check.close();
    }

    // No request failed, and no transaction deadlocked, not even one retried unseen.
    const deadlocks = [];
    for (const server of servers) {
      const metrics = parseExposition(await (await fetch(`${server.url}/metrics`)).text());
      const conflicts = metrics.samples.filter(
        (sample) => sample.name === "dakiya_db_transaction_conflicts_total" && sample.value > 0,
      );
      deadlocks.push(
        ...conflicts.map((sample) => `${sample.labels.conflict} ${sample.labels.outcome}: ${sample.value}`),
      );
    }
    const logged = logs.flatMap((lines) => errorsLogged(lines.filter((line) => line.startsWith("{"))));
    expect({ failed, deadlocks, logged }).toEqual({ failed: [], deadlocks: [], logged: [] });
  }, 150_000);
});
