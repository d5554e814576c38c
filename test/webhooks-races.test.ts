import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { systemClock } from "../src/clock.js";
import type { AppContext } from "../src/context.js";
import { recordEvent } from "../src/events/outbox.js";
import type { App } from "../src/http/types.js";
import { createLogger } from "../src/logger.js";
import { type RunningDispatcher, startWebhookDispatcher } from "../src/webhooks/dispatcher.js";
import { openTestContext, UNLIMITED_REQUESTS } from "./helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "./helpers/database.js";
import { waitFor } from "./helpers/delivery.js";
import { bearer, createAccountWithKey } from "./helpers/fixtures.js";
import { startReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

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
