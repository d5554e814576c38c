import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { setKeyRateLimit } from "../../src/keys/keys.js";
import { systemClock } from "../../src/lib/clock.js";
import { openTestContext, TEST_SECRET } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

/**
 * Two `dakiya serve` processes on one PostgreSQL database, on the real clock, share each key's
 * request limit: a key far under its limit is never refused, however its requests are spread
 * and however long they wait for a connection, and a key over it is refused on both.
 */

const LIVE = process.env.TEST_DATABASE_URL !== undefined;
const REQUESTS = 800;
/** No send is started after this long: the load stays bounded on a slow machine. */
const SENDS_MS = 12_000;
const CONCURRENCY = 40;
const BATCH_SIZE = 5;
const CREDITS = 100_000_000;

interface Answer {
  status: number;
  body: string;
}

describe.skipIf(!LIVE)("per-key request limits across two server processes on postgres", () => {
  let database: TestDatabase;
  let ctx: AppContext | undefined;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    ctx = await openTestContext(database.url, { clock: systemClock });
    const env = { DATABASE_URL: database.url, DAKIYA_SECRET: TEST_SECRET, RATE_LIMIT_BURST: "100" };
    // One after the other: two starting at once on a busy machine can take longer than a start may.
    servers.push(await startServerProcess(env));
    servers.push(await startServerProcess(env));
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.kill();
    await ctx?.close();
    await database?.drop();
  });

  async function keyLimitedTo(perMinute: number): Promise<string> {
    if (!ctx) throw new Error("the context is opened in beforeAll");
    const { accountId, keyId, secret } = await createSendingAccount(ctx, CREDITS);
    await setKeyRateLimit(ctx, { accountId, keyId, rateLimit: perMinute }, CLI_ORIGIN);
    return secret;
  }

  /** Request `i` of a load: every fourth a batch of five, the others single sends, to numbers of their own. */
  function send(server: ServerProcess, secret: string, i: number): Promise<Answer> {
    const message = (n: number) => ({
      to: `+9198${String(n).padStart(8, "0")}`,
      sender: "DAKIYA",
      template_id: SMS_TEMPLATE_ID,
      variables: { ref: String(n) },
    });
    const batch = i % 4 === 0;
    const body = batch
      ? { messages: Array.from({ length: BATCH_SIZE }, (_, j) => message(i * BATCH_SIZE + j)) }
      : message(i * BATCH_SIZE);
    return request(server, secret, batch ? "/v2/sms/batch" : "/v2/sms/send", body);
  }

  async function request(
    server: ServerProcess,
    secret: string,
    path: string,
    body?: unknown,
  ): Promise<Answer> {
    const response = await fetch(`${server.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...bearer(secret), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.text() };
  }

  /**
   * `count` requests made by `CONCURRENCY` clients, alternating between the two processes; none
   * started after `forMs`, if given.
   */
  async function load(
    count: number,
    make: (server: ServerProcess, i: number) => Promise<Answer>,
    forMs = Number.POSITIVE_INFINITY,
  ): Promise<Answer[]> {
    const answers: Answer[] = [];
    const deadline = Date.now() + forMs;
    let next = 0;
    const client = async () => {
      for (let i = next++; i < count && Date.now() < deadline; i = next++) {
        answers[i] = await make(servers[i % servers.length] as ServerProcess, i);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    return answers;
  }

  it("never refuses a key limited to 1,000,000 a minute (burst 100) with at most 40 requests in flight", {
    timeout: 120_000,
  }, async () => {
    const secret = await keyLimitedTo(1_000_000);
    const answers = await load(REQUESTS, (server, i) => send(server, secret, i), SENDS_MS);
    // Enough for 40 at once to have waited on each other, however slow the machine.
    expect(answers.length).toBeGreaterThanOrEqual(100);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length, refused[0]?.body).toBe(0);
    for (const answer of answers) expect(answer.status, answer.body).toBe(202);
  });

  it("refuses a key over its limit on both processes, letting through no more than its burst and refill", async () => {
    // One request every 100 ms, at most 100 at once: leases of up to 2 tokens.
    const secret = await keyLimitedTo(600);
    const started = Date.now();
    const answers = await load(400, (server) => request(server, secret, "/v2/balance"));
    expect(answers).toHaveLength(400);
    const elapsedMs = Date.now() - started;
    const allowed = answers.filter((answer) => answer.status === 200).length;
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(400 - allowed);
    expect(allowed).toBeLessThanOrEqual(100 + Math.ceil(elapsedMs / 100));
    // Each process may hold a lease's 2 tokens unspent.
    expect(allowed).toBeGreaterThanOrEqual(100 - 2 * 2);
    // Requests alternate between the processes: both refused some.
    const refusedBy = servers.map((_, s) =>
      answers.filter((a, i) => i % servers.length === s && a.status === 429),
    );
    for (const refused of refusedBy) expect(refused.length).toBeGreaterThan(0);
  });
});
