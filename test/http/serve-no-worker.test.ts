import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { openTestContext, TEST_SECRET } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import {
  killProcess,
  type ServerProcess,
  startServerProcess,
  startWorkerProcess,
} from "../helpers/server-process.js";

/*
 * `dakiya serve --no-worker` answers the API and leaves delivery to a `dakiya worker` process
 * (README "Running on PostgreSQL, and several processes"), real processes on one database.
 */

const TEMPLATE = "1107161234567890123";

describe.each(DIALECTS)("dakiya serve --no-worker on %s", (dialect) => {
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  let worker: ChildProcess | undefined;

  afterAll(async () => {
    await server?.kill();
    await killProcess(worker);
    await database?.drop();
  });

  it("queues sends without delivering them; a dakiya worker beside it delivers them", async () => {
    database = await createTestDatabase(dialect);
    const env = { DATABASE_URL: database.url, DAKIYA_SECRET: TEST_SECRET, WORKER_POLL_INTERVAL_MS: "100" };
    const ctx = await openTestContext(database.url);
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 1_000_000);
    await registerDlt(ctx, accountId, {
      templates: [{ templateId: TEMPLATE, content: "Your code is {#var#}." }],
    });
    await ctx.close();

    server = await startServerProcess(env, ["--no-worker"]);
    const headers = { ...bearer(secret), "content-type": "application/json" };
    const sent = await fetch(`${server.url}/v2/sms/send`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        to: "+919876543210",
        sender: "DAKIYA",
        template_id: TEMPLATE,
        variables: { var1: "42" },
      }),
    });
    expect(sent.status, await sent.clone().text()).toBe(202);
    const { id } = (await sent.json()) as { id: string };
    const statusOf = async () => {
      const response = await fetch(`${(server as ServerProcess).url}/v2/sms/${id}`, { headers });
      return ((await response.json()) as { status: string }).status;
    };

    // A worker in the process would have delivered it within a poll (100 ms) or at once.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await statusOf()).toBe("queued");

    worker = startWorkerProcess(database.url, env);
    let status = "queued";
    for (let attempt = 0; attempt < 100 && status === "queued"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await statusOf();
    }
    expect(status).toBe("delivered");
  });
});
