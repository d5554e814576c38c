import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeBalance } from "../../src/accounts/ledger.js";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { loadConfig } from "../../src/config.js";
import type { AppContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import { ApiError } from "../../src/errors.js";
import type { App } from "../../src/http/types.js";
import { createKey, rotateKey, setKeyRateLimit } from "../../src/keys/keys.js";
import { purgeExpired } from "../../src/maintenance.js";
import { claimRecipients, countNewRecipient } from "../../src/sms/recipient-cap.js";
import { cliRunner, json, oneLineError } from "../helpers/cli.js";
import { openTestContext, TEST_SECRET } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { type TestInstances, useTestInstances } from "../helpers/instances.js";

const TEMPLATE_ID = "1107161234567890123";
/** One SMS segment at the default price, ₹0.2500, in 1/10,000 INR. */
const SMS_PRICE = 2_500;
/** A second apart, and at most 5 at once: small enough to count by hand, on a clock that stands still. */
const SMALL_LIMITS = { RATE_LIMIT_PER_MINUTE: "60", RATE_LIMIT_BURST: "5" };

function number(n: number): string {
  return `+9198${String(n).padStart(8, "0")}`;
}

function rateHeaders(response: LightMyRequestResponse): { limit: number; remaining: number; reset: number } {
  return {
    limit: Number(response.headers["ratelimit-limit"]),
    remaining: Number(response.headers["ratelimit-remaining"]),
    reset: Number(response.headers["ratelimit-reset"]),
  };
}

function balance(app: App, secret: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: "GET", url: "/v2/balance", headers: bearer(secret) });
}

/**
 * The apps that take concurrent requests: both instances on PostgreSQL; one on SQLite, where two
 * instances in one process would stall each other (a writer waits for the file's lock with a
 * synchronous busy timeout, blocking the event loop the other instance needs to commit). Two
 * SQLite instances are still shown to share the limit, one request at a time.
 */
function concurrentApps(instances: Pick<TestInstances, "app" | "otherApp">, dialect: string): App[] {
  return dialect === "postgres" ? [instances.app, instances.otherApp] : [instances.app];
}

function expectRateLimited(response: LightMyRequestResponse, retryAfter: number): void {
  expect(response.statusCode).toBe(429);
  expect(response.json()).toEqual({
    error: {
      code: "rate_limited",
      message: expect.any(String),
      retry_after: retryAfter,
      request_id: response.headers["x-request-id"],
    },
  });
  expect(response.headers["retry-after"]).toBe(String(retryAfter));
}

describe.each(DIALECTS)("per-key request limits on %s", (dialect) => {
  const instances = useTestInstances(dialect, { secondInstance: true, env: SMALL_LIMITS });

  it("allows a burst, then answers 429 rate_limited with Retry-After no earlier than the reset", async () => {
    const { app, ctx } = instances;
    const { secret } = await createAccountWithKey(ctx);
    for (let i = 1; i <= 5; i++) {
      const response = await balance(app, secret);
      expect(response.statusCode).toBe(200);
      // One request a second: after the i-th, the bucket is full again in i seconds.
      expect(rateHeaders(response)).toEqual({ limit: 5, remaining: 5 - i, reset: i });
    }
    const refused = await balance(app, secret);
    expectRateLimited(refused, 5);
    expect(rateHeaders(refused)).toEqual({ limit: 5, remaining: 0, reset: 5 });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(rateHeaders(refused).reset);
    // Refused requests take nothing: hammering does not push the recovery further out.
    for (let i = 0; i < 3; i++) expectRateLimited(await balance(app, secret), 5);
  });

  it("refills one request per interval, and the whole burst once the reset has passed", async () => {
    const { app, ctx, clock } = instances;
    const { secret } = await createAccountWithKey(ctx);
    for (let i = 0; i < 5; i++) expect((await balance(app, secret)).statusCode).toBe(200);
    expect((await balance(app, secret)).statusCode).toBe(429);

    clock.advance(0.5);
    expectRateLimited(await balance(app, secret), 5);
    clock.advance(0.5);
    const one = await balance(app, secret);
    expect(one.statusCode).toBe(200);
    expect(rateHeaders(one)).toEqual({ limit: 5, remaining: 0, reset: 5 });
    expect((await balance(app, secret)).statusCode).toBe(429);

    clock.advance(5);
    for (let i = 1; i <= 5; i++) {
      const response = await balance(app, secret);
      expect(response.statusCode).toBe(200);
      expect(rateHeaders(response).remaining).toBe(5 - i);
    }
    expect((await balance(app, secret)).statusCode).toBe(429);
  });

  it("counts per key: another key of the same account has its own bucket", async () => {
    const { app, ctx } = instances;
    const { accountId, secret } = await createAccountWithKey(ctx);
    const other = await createKey(ctx, { accountId, environment: "sandbox" }, CLI_ORIGIN);
    for (let i = 0; i < 5; i++) await balance(app, secret);
    expect((await balance(app, secret)).statusCode).toBe(429);
    const fresh = await balance(app, other.secret);
    expect(fresh.statusCode).toBe(200);
    expect(rateHeaders(fresh).remaining).toBe(4);
  });

  it("applies a key's own rate, with a burst no larger than it, until it is set back to the default", async () => {
    const { app, ctx, clock } = instances;
    const { accountId, keyId, secret } = await createAccountWithKey(ctx);
    const updated = await setKeyRateLimit(ctx, { accountId, keyId, rateLimit: 2 }, CLI_ORIGIN);
    expect(updated.rate_limit).toBe(2);
    // 2 a minute: 30 s apart, at most 2 at once, full again a minute after both are taken.
    expect(rateHeaders(await balance(app, secret))).toEqual({ limit: 2, remaining: 1, reset: 30 });
    expect(rateHeaders(await balance(app, secret))).toEqual({ limit: 2, remaining: 0, reset: 60 });
    expectRateLimited(await balance(app, secret), 60);
    clock.advance(30);
    expect((await balance(app, secret)).statusCode).toBe(200);
    expect((await balance(app, secret)).statusCode).toBe(429);

    // A faster key's burst is still the server's.
    await setKeyRateLimit(ctx, { accountId, keyId, rateLimit: 600 }, CLI_ORIGIN);
    clock.advance(60);
    expect(rateHeaders(await balance(app, secret))).toEqual({ limit: 5, remaining: 4, reset: 1 });

    await setKeyRateLimit(ctx, { accountId, keyId, rateLimit: null }, CLI_ORIGIN);
    clock.advance(60);
    expect(rateHeaders(await balance(app, secret))).toEqual({ limit: 5, remaining: 4, reset: 1 });

    await expect(setKeyRateLimit(ctx, { accountId, keyId, rateLimit: 0 }, CLI_ORIGIN)).rejects.toMatchObject({
      code: "invalid_request",
      param: "rate_limit",
    });
    await expect(
      setKeyRateLimit(ctx, { accountId, keyId: "key_unknown", rateLimit: 5 }, CLI_ORIGIN),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("keeps a key's own rate through a rotation", async () => {
    const { app, ctx } = instances;
    const { accountId } = await createAccountWithKey(ctx);
    const key = await createKey(ctx, { accountId, environment: "sandbox", rateLimit: 1 }, CLI_ORIGIN);
    const { key: rotated } = await rotateKey(ctx, { accountId, keyId: key.id, graceSeconds: 0 }, CLI_ORIGIN);
    expect(rotated.rate_limit).toBe(1);
    expect(rateHeaders(await balance(app, rotated.secret))).toEqual({ limit: 1, remaining: 0, reset: 60 });
  });

  it("puts the headers on error answers too, and none without a valid key", async () => {
    const { app, ctx } = instances;
    const { secret } = await createAccountWithKey(ctx);
    const answers = [
      await app.inject({ method: "GET", url: "/v2/sms/msg_unknown", headers: bearer(secret) }),
      await app.inject({ method: "POST", url: "/v2/sms/send", headers: bearer(secret), payload: { to: 1 } }),
      await app.inject({
        method: "POST",
        url: "/v2/sms/send",
        headers: { ...bearer(secret), "content-type": "text/plain" },
        payload: "hello",
      }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([404, 400, 415]);
    answers.forEach((answer, i) => {
      expect(answer.json()).toHaveProperty("error.code");
      expect(rateHeaders(answer)).toEqual({ limit: 5, remaining: 4 - i, reset: i + 1 });
    });

    const unauthenticated = [
      await app.inject({ method: "GET", url: "/v2/balance" }),
      await app.inject({
        method: "GET",
        url: "/v2/balance",
        headers: bearer(`dk_sandbox_${"x".repeat(40)}`),
      }),
    ];
    expect(unauthenticated.map((a) => a.statusCode)).toEqual([401, 401]);
    for (const answer of unauthenticated) expect(answer.headers["ratelimit-limit"]).toBeUndefined();
  });

  it("shares one limit between two instances of the deployment, also under concurrency", async () => {
    const { app, otherApp, ctx } = instances;
    const apps = concurrentApps(instances, dialect);
    const { secret } = await createAccountWithKey(ctx);
    const first = await balance(app, secret);
    const second = await balance(otherApp, secret);
    expect(rateHeaders(first).remaining).toBe(4);
    expect(rateHeaders(second).remaining).toBe(3);

    const { secret: busy } = await createAccountWithKey(ctx);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => balance(apps[i % apps.length] as App, busy)),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(19);
    const remaining = answers.filter((a) => a.statusCode === 200).map((a) => rateHeaders(a).remaining);
    expect(remaining.sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it("judges a request timed before another instance's later one at the later time, never as a spent bucket", async () => {
    const { app, otherApp, ctx, clock } = instances;
    const { accountId, keyId, secret } = await createAccountWithKey(ctx);
    // Burst 5, refilled in 300 µs: any request timed more than that before another looks late.
    await setKeyRateLimit(ctx, { accountId, keyId, rateLimit: 1_000_000 }, CLI_ORIGIN);
    clock.advance(1);
    expect(rateHeaders(await balance(otherApp, secret)).remaining).toBe(4);
    // The first instance reads a time from before that request, as after waiting for a connection.
    clock.advance(-1);
    const earlier = await balance(app, secret);
    expect(earlier.statusCode).toBe(200);
    expect(rateHeaders(earlier)).toEqual({ limit: 5, remaining: 3, reset: 1 });
    // Judged at the later time, the burst still holds: the earlier time refills nothing.
    for (let i = 0; i < 3; i++) expect((await balance(app, secret)).statusCode).toBe(200);
    expectRateLimited(await balance(app, secret), 1);
    // Back at the later time nothing has refilled yet; a millisecond after it, the whole burst has.
    clock.advance(1);
    expect((await balance(otherApp, secret)).statusCode).toBe(429);
    clock.advance(0.001);
    expect(rateHeaders(await balance(otherApp, secret)).remaining).toBe(4);
  });

  it("documents the headers and the 429 of /v2/ routes in the OpenAPI document", async () => {
    const document = (await instances.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const send = document.paths["/v2/sms/send"].post.responses;
    expect(Object.keys(send["202"].headers)).toEqual([
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
    ]);
    expect(send["429"].headers).toHaveProperty("Retry-After");
    expect(document.paths["/v2/balance"].get.responses["429"]).toBeDefined();
  });
});

describe.each(DIALECTS)("hourly cap on distinct SMS recipients on %s", (dialect) => {
  const instances = useTestInstances(dialect, {
    secondInstance: true,
    // The request limit is out of the way here; the cap is 3 numbers an hour.
    env: {
      RATE_LIMIT_PER_MINUTE: "100000",
      RATE_LIMIT_BURST: "1000",
      SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "3",
    },
  });

  async function smsAccount(credits: number): Promise<{ accountId: string; secret: string }> {
    const account = await createAccountWithKey(instances.ctx, "sandbox", credits);
    await registerDlt(instances.ctx, account.accountId, {
      templates: [{ templateId: TEMPLATE_ID, content: "Your code is {#otp#}" }],
    });
    return account;
  }

  function send(app: App, secret: string, to: string): Promise<LightMyRequestResponse> {
    return app.inject({
      method: "POST",
      url: "/v2/sms/send",
      headers: bearer(secret),
      payload: { to, sender: "DAKIYA", template_id: TEMPLATE_ID, variables: { otp: "4821" } },
    });
  }

  async function balanceUnits(secret: string): Promise<number> {
    const body = (await balance(instances.app, secret)).json() as { balance: string };
    return Math.round(Number(body.balance) * 10_000);
  }

  it("counts a number once an hour, refuses a new one past the cap without charging, and opens at the next hour", async () => {
    const { app, clock } = instances;
    const { secret } = await smsAccount(100 * SMS_PRICE);
    // 10:00:00 on the test clock: the hour ends in 3,600 s; start a little into it.
    clock.advance(600);
    for (const n of [1, 2, 1, 3, 2]) expect((await send(app, secret, number(n))).statusCode).toBe(202);
    const before = await balanceUnits(secret);
    expect(before).toBe(95 * SMS_PRICE);

    const refused = await send(app, secret, number(4));
    expectRateLimited(refused, 3000);
    expect(refused.json().error.message).toContain("3 different numbers an hour");
    expect(refused.headers["ratelimit-limit"]).toBe("1000");
    expect(await balanceUnits(secret)).toBe(before);
    // Numbers already counted this hour still go through.
    expect((await send(app, secret, number(3))).statusCode).toBe(202);

    clock.advance(3000);
    expect((await send(app, secret, number(4))).statusCode).toBe(202);
    expect(await balanceUnits(secret)).toBe(before - 2 * SMS_PRICE);

    // The past hour's numbers are purged; this hour's stay.
    expect((await purgeExpired(instances.ctx)).smsRecipientHours).toBeGreaterThanOrEqual(3);
    const left = await instances.ctx.db.selectFrom("sms_recipient_hours").select("window_start").execute();
    expect(left.map((row) => row.window_start)).toEqual(["2026-11-22T11:00:00.000Z"]);
  });

  it("does not count a send that rolled back", async () => {
    const { app, ctx } = instances;
    const { accountId, secret } = await smsAccount(SMS_PRICE);
    expect((await send(app, secret, number(11))).statusCode).toBe(202);
    expect((await send(app, secret, number(12))).json().error.code).toBe("insufficient_balance");
    await changeBalance(ctx, {
      accountId,
      environment: "sandbox",
      amount: 10 * SMS_PRICE,
      reason: "credits_added",
      reference: null,
    });
    // Had the refused send counted, 11, 12 and 13 would fill the cap and 14 be refused.
    for (const n of [13, 14]) expect((await send(app, secret, number(n))).statusCode).toBe(202);
    expect((await send(app, secret, number(15))).statusCode).toBe(429);
    const counted = await ctx.db
      .selectFrom("sms_recipient_hours")
      .select("recipient")
      .where("account_id", "=", accountId)
      .orderBy("recipient")
      .execute();
    expect(counted.map((row) => row.recipient)).toEqual([number(11), number(13), number(14)]);
  });

  it("holds under concurrent sends on two instances", async () => {
    const { app } = instances;
    const apps = concurrentApps(instances, dialect);
    const { secret } = await smsAccount(100 * SMS_PRICE);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => send(apps[i % apps.length] as App, secret, number(100 + i))),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 202)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    expect(await balanceUnits(secret)).toBe(97 * SMS_PRICE);

    // The same new number from many sends at once is one number.
    const { secret: same } = await smsAccount(100 * SMS_PRICE);
    const repeated = await Promise.all(
      Array.from({ length: 8 }, (_, i) => send(apps[i % apps.length] as App, same, number(200))),
    );
    expect(repeated.every((a) => a.statusCode === 202)).toBe(true);
    for (const n of [201, 202]) expect((await send(app, same, number(n))).statusCode).toBe(202);
    expect((await send(app, same, number(203))).statusCode).toBe(429);
  });

  it("keeps a separate cap for each environment", async () => {
    const { ctx } = instances;
    const { accountId } = await smsAccount(0);
    const count = (environment: Environment, n: number) =>
      ctx.db.transaction().execute(async (trx) => {
        const scope = { accountId, environment };
        const fresh = await claimRecipients(trx, ctx, scope, [number(n)]);
        if (fresh.size > 0) await countNewRecipient(trx, ctx, scope);
      });
    for (const n of [301, 302, 303]) await count("sandbox", n);
    await expect(count("sandbox", 304)).rejects.toBeInstanceOf(ApiError);
    for (const n of [304, 305, 306]) await count("live", n);
    await expect(count("live", 307)).rejects.toMatchObject({ code: "rate_limited" });
  });
});

describe.each(DIALECTS)("dakiya keys --rate-limit on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let app: App;
  let env: NodeJS.ProcessEnv;
  const { dakiya } = cliRunner(() => env);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url);
    app = await buildApp(ctx);
    env = { ...process.env, DATABASE_URL: database.url, DAKIYA_SECRET: TEST_SECRET, LOG_LEVEL: "warn" };
  });
  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await database?.drop();
  });

  it("creates a key with its own rate, changes it, and sets it back to the default", async () => {
    const { accountId } = await createAccountWithKey(ctx);
    const keys = ["--json", "keys"];
    const created = json<{ id: string; secret: string; rate_limit: number | null }>(
      await dakiya(
        ...keys,
        "create",
        "--account",
        accountId,
        "--environment",
        "sandbox",
        "--rate-limit",
        "3",
      ),
    );
    expect(created.rate_limit).toBe(3);
    // 3 a minute: 20 s apart.
    expect(rateHeaders(await balance(app, created.secret))).toEqual({ limit: 3, remaining: 2, reset: 20 });

    const update = ["keys", "update", "--account", accountId, "--key", created.id, "--rate-limit"];
    const updated = json<{ id: string; rate_limit: number | null }>(
      await dakiya("--json", ...update, "default"),
    );
    expect(updated).toMatchObject({ id: created.id, rate_limit: null });
    expect(rateHeaders(await balance(app, created.secret)).limit).toBe(100);

    expect(oneLineError(await dakiya(...update, "fast"))).toContain("--rate-limit");
  }, 90_000);
});

describe("rate-limit settings", () => {
  it("has the contract's defaults and refuses values out of range", () => {
    expect(loadConfig({}).rateLimits).toEqual({ perMinute: 1000, burst: 100, smsRecipientsPerHour: 10_000 });
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: "0" })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ RATE_LIMIT_BURST: "-1" })).toThrow(/RATE_LIMIT_BURST/);
    expect(() => loadConfig({ SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "x" })).toThrow(/SMS_MAX_RECIPIENTS/);
  });
});
