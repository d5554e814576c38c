import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { recordEvent } from "../../src/events/outbox.js";
import { sendSms } from "../../src/sms/send.js";
import { type RunningDispatcher, startWebhookDispatcher } from "../../src/webhooks/dispatcher.js";
import { createEndpoint, type WebhookEndpoint } from "../../src/webhooks/endpoints.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { createAccountWithKey } from "../helpers/fixtures.js";
import { killProcess, startWorkerProcess } from "../helpers/server-process.js";
import { startReceiver, verify, type WebhookReceiver, webhookIds } from "../helpers/webhook-receiver.js";

/* Several dispatchers on one database deliver each event to each endpoint once; a worker killed
 * with SIGKILL mid-delivery leaves nothing undelivered once a worker runs again. */

const realClock = { now: () => new Date() };
const TEMPLATE_ID = "1107161234567890123";
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_RETRY_SCHEDULE: "0.2,0.2,0.2",
};

describe.each(DIALECTS)("webhook dispatchers side by side on %s", (dialect) => {
  let database: TestDatabase;
  const contexts: AppContext[] = [];
  const dispatchers: RunningDispatcher[] = [];
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });

  afterAll(async () => {
    for (const dispatcher of dispatchers) await dispatcher.stop();
    for (const receiver of receivers) await receiver.close();
    for (const ctx of contexts) await ctx.close();
    await database?.drop();
  });

  it("deliver each event to each endpoint exactly once in the normal path", async () => {
    // On PostgreSQL, two contexts are two connection pools: two worker processes as far as the
    // database can tell. SQLite is one process's database (better-sqlite3 waits for a lock
    // synchronously, so two connections in one process would stall each other): there the two
    // dispatchers share a connection and only their leases keep them apart.
    // A generous timeout: an attempt that times out on a busy test machine is retried, and would
    // rightly be delivered twice.
    const env = { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: "15000" };
    const ctx = await openTestContext(database.url, { clock: realClock, env });
    contexts.push(ctx);
    const second =
      dialect === "postgres" ? await openTestContext(database.url, { clock: realClock, env }) : ctx;
    if (second !== ctx) contexts.push(second);
    const { accountId } = await createAccountWithKey(ctx, "sandbox");
    const endpoints: Array<{ receiver: WebhookReceiver; endpoint: WebhookEndpoint }> = [];
    for (let i = 0; i < 2; i++) {
      const receiver = await startReceiver();
      receivers.push(receiver);
      const endpoint = await createEndpoint(
        ctx,
        { accountId, environment: "sandbox" },
        { url: receiver.url },
        CLI_ORIGIN,
      );
      endpoints.push({ receiver, endpoint });
    }

    [ctx, second].forEach((each, i) => {
      dispatchers.push(startWebhookDispatcher(each, { owner: `wkr_side_${i}`, pollIntervalMs: 5 }));
    });
    const total = 300;
    const ids: string[] = [];
    // Written in small transactions while both dispatchers run, as a busy server writes them.
    for (let i = 0; i < total; i += 10) {
      const batch = await ctx.db.transaction().execute(async (trx) => {
        const written: string[] = [];
        for (let j = i; j < i + 10; j++) {
          const event = await recordEvent(trx, ctx, {
            accountId,
            environment: "sandbox",
            type: "sms.delivered",
            data: { id: `msg_${j}` },
          });
          written.push(event.id);
        }
        return written;
      });
      ids.push(...batch);
    }

    for (const { receiver } of endpoints)
      await waitFor(async () => receiver.received.length >= total, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const failures = await ctx.db
      .selectFrom("webhook_attempts")
      .select(["status_code", "error"])
      .where("error", "is not", null)
      .execute();
    expect(failures).toEqual([]);
    for (const { receiver, endpoint } of endpoints) {
      expect(receiver.received).toHaveLength(total);
      expect(new Set(webhookIds(receiver.received))).toEqual(new Set(ids));
      for (const request of receiver.received) verify(endpoint.secret ?? "", request);
    }
    const attempts = await ctx.db
      .selectFrom("webhook_attempts")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(attempts.n)).toBe(2 * total);
    const unfinished = await ctx.db
      .selectFrom("webhook_deliveries")
      .select("state")
      .where("state", "<>", "succeeded")
      .execute();
    expect(unfinished).toEqual([]);
  }, 60_000);
});

describe.each(DIALECTS)("a webhook worker killed mid-delivery on %s", (dialect) => {
  let database: TestDatabase;
  let worker: ChildProcess | undefined;
  let receiver: WebhookReceiver | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });

  afterEach(async () => {
    await killProcess(worker);
  });

  afterAll(async () => {
    await receiver?.close();
    await database?.drop();
  });

  function spawnWorker(): ChildProcess {
    return startWorkerProcess(database.url, {
      WORKER_LEASE_SECONDS: "1",
      WORKER_POLL_INTERVAL_MS: "20",
      ...WEBHOOK_ENV,
    });
  }

  it("delivers every status change after a restart, at least once", async () => {
    const ctx = await openTestContext(database.url, { clock: realClock, env: WEBHOOK_ENV });
    try {
      const { accountId, keyId } = await createAccountWithKey(ctx, "sandbox", 100_000_000);
      await registerDlt(ctx, accountId, {
        templates: [{ templateId: TEMPLATE_ID, content: "Code {#code#}" }],
      });
      // Until the kill, the receiver takes requests and never answers: deliveries are in flight.
      let answering = false;
      receiver = await startReceiver(() => (answering ? 200 : "hang"));
      const endpoint = await createEndpoint(
        ctx,
        { accountId, environment: "sandbox" },
        { url: receiver.url, events: ["sms.delivered"] },
        CLI_ORIGIN,
      );
      const messages: string[] = [];
      for (let i = 0; i < 20; i++) {
        const sent = await sendSms(
          ctx,
          { accountId, environment: "sandbox", keyId },
          {
            to: `+9198765${String(i).padStart(5, "0")}`,
            sender: "DAKIYA",
            template_id: TEMPLATE_ID,
            variables: { code: String(i) },
          },
        );
        messages.push(sent.id);
      }

      worker = spawnWorker();
      await waitFor(async () => (receiver?.received.length ?? 0) >= 1, 20_000);
      worker.kill("SIGKILL");
      await once(worker, "exit");
      const inFlightAtKill = new Set(webhookIds(receiver.received));
      expect(inFlightAtKill.size).toBeGreaterThan(0);
      const loggedAtKill = await ctx.db.selectFrom("webhook_attempts").select("id").execute();
      expect(loggedAtKill).toEqual([]);

      answering = true;
      worker = spawnWorker();
      const deliveredEvents = async () =>
        ctx.db
          .selectFrom("events")
          .select("id")
          .where("type", "=", "sms.delivered")
          .execute()
          .then((rows) => rows.map((row) => row.id));
      await waitFor(async () => (await deliveredEvents()).length === messages.length, 20_000);
      const expected = new Set(await deliveredEvents());
      const succeeded = async () =>
        ctx.db
          .selectFrom("webhook_attempts")
          .select("event_id")
          .where("status_code", "=", 200)
          .execute()
          .then((rows) => new Set(rows.map((row) => row.event_id)));
      // The killed worker's leases run out (2 × WEBHOOK_TIMEOUT_MS + 5 s) and another worker takes them.
      await waitFor(async () => (await succeeded()).size === expected.size, 30_000, 100);
      expect(await succeeded()).toEqual(expected);
      worker.kill("SIGTERM");
      expect((await once(worker, "exit"))[0]).toBe(0);

      // Everything arrived, verified; what was in flight at the kill arrived again, with the same id.
      const received = new Set(webhookIds(receiver.received));
      expect(received).toEqual(expected);
      for (const request of receiver.received) {
        const event = verify(endpoint.secret ?? "", request);
        expect(messages).toContain(event.data.id);
      }
      for (const id of inFlightAtKill) {
        expect(webhookIds(receiver.received).filter((each) => each === id).length).toBeGreaterThanOrEqual(2);
      }
    } finally {
      await ctx.close();
    }
  }, 90_000);
});
