import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../src/context.js";
import type { App } from "../src/http/types.js";
import { createKey } from "../src/keys/keys.js";
import { purgeExpired } from "../src/maintenance.js";
import type { TestClock } from "./helpers/context.js";
import { DIALECTS } from "./helpers/database.js";
import { bearer, createAccountWithKey } from "./helpers/fixtures.js";
import { openTestInstances, type TestInstances } from "./helpers/instances.js";
import { addProbeRoutes } from "./helpers/probe-routes.js";

describe.each(DIALECTS)("Idempotency-Key on %s", (dialect) => {
  let instances: TestInstances | undefined;
  let clock: TestClock;
  let ctx: AppContext;
  let app: App;
  /**
   * A second instance on the same database, as a second server process would be. Only on
   * PostgreSQL: better-sqlite3 blocks its thread while it waits for a lock, so two SQLite
   * connections in one process would wait on each other.
   */
  let otherApp: App;

  beforeAll(async () => {
    instances = await openTestInstances(dialect, {
      secondInstance: dialect === "postgres",
      setup: addProbeRoutes,
    });
    ({ clock, ctx, app, otherApp } = instances);
  });

  afterAll(() => instances?.close());

  function charge(
    secret: string,
    key: string | undefined,
    body: Record<string, unknown> | string,
    target: App = app,
    url = "/v2/probe/charges",
  ) {
    return target.inject({
      method: "POST",
      url,
      payload: typeof body === "string" ? body : JSON.stringify(body),
      headers: {
        "content-type": "application/json",
        ...bearer(secret),
        ...(key === undefined ? {} : { "idempotency-key": key }),
      },
    });
  }

  const chargesOf = async (accountId: string) =>
    ctx.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("reason", "=", "probe_charge")
      .execute();

  it("replays the first response for a repeat, and charges once", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const first = await charge(secret, "order-1", { amount: "1.0000", note: "a" });
    expect(first.statusCode).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();

    const again = await charge(secret, "order-1", { note: "a", amount: "1.0000" }, otherApp);
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    expect(again.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("without the header, every request is new", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    await charge(secret, undefined, { amount: "1.0000" });
    await charge(secret, undefined, { amount: "1.0000" });
    expect(await chargesOf(accountId)).toHaveLength(2);
  });

  it("a different body or path with the same key → 422 idempotency_key_reused, nothing done", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    await charge(secret, "k", { amount: "1.0000" });
    const otherBody = await charge(secret, "k", { amount: "2.0000" });
    expect(otherBody.statusCode).toBe(422);
    expect(otherBody.json().error.code).toBe("idempotency_key_reused");
    const otherPath = await charge(secret, "k", {}, app, "/v2/probe/crash");
    expect(otherPath.statusCode).toBe(422);
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("while the first is running → 409 idempotency_key_in_use, then the replay", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const body = { amount: "1.0000", delay_ms: 400 };
    const first = charge(secret, "slow", body);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await charge(secret, "slow", body, otherApp);
    expect(during.statusCode).toBe(409);
    expect(during.json().error.code).toBe("idempotency_key_in_use");
    expect((await first).statusCode).toBe(201);
    const after = await charge(secret, "slow", body, otherApp);
    expect(after.headers["idempotent-replayed"]).toBe("true");
    expect(after.json()).toEqual((await first).json());
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("20 concurrent requests with one key give one result and one charge", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const body = { amount: "1.0000", note: "burst", delay_ms: 50 };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => charge(secret, "burst-key", body, i % 2 === 0 ? app : otherApp)),
    );
    const executed = responses.filter((r) => r.statusCode === 201 && !r.headers["idempotent-replayed"]);
    expect(executed).toHaveLength(1);
    for (const response of responses) {
      if (response.statusCode === 409) continue;
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual(executed[0]?.json());
    }
    expect(await chargesOf(accountId)).toHaveLength(1);
    const replay = await charge(secret, "burst-key", body);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.json()).toEqual(executed[0]?.json());
  });

  it("stores 4xx answers of the work itself, and replays them", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 10_000);
    const first = await charge(secret, "too-much", { amount: "5.0000" });
    expect(first.statusCode).toBe(402);
    await ctx.db
      .updateTable("balances")
      .set({ balance: 1_000_000 })
      .where("account_id", "=", accountId)
      .execute();
    const again = await charge(secret, "too-much", { amount: "5.0000" });
    expect(again.statusCode).toBe(402);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(await chargesOf(accountId)).toHaveLength(0);
  });

  it("does not store requests refused by validation, nor 5xx answers", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    expect((await charge(secret, "v", { amount: "bad" })).statusCode).toBe(400);
    const valid = await charge(secret, "v", { amount: "1.0000" });
    expect(valid.statusCode).toBe(201);
    expect(valid.headers["idempotent-replayed"]).toBeUndefined();

    const crash = await charge(secret, "c", {}, app, "/v2/probe/crash");
    expect(crash.statusCode).toBe(500);
    const retry = await charge(secret, "c", {}, app, "/v2/probe/crash");
    expect(retry.statusCode).toBe(500);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("is scoped to the account and the environment", async () => {
    const a = await createAccountWithKey(ctx, "sandbox", 100_000);
    const b = await createAccountWithKey(ctx, "sandbox", 100_000);
    const aLive = await createKey(ctx, { accountId: a.accountId, environment: "live" });
    await ctx.db
      .updateTable("balances")
      .set({ balance: 100_000 })
      .where("account_id", "=", a.accountId)
      .execute();

    const first = await charge(a.secret, "shared", { amount: "1.0000" });
    const otherAccount = await charge(b.secret, "shared", { amount: "1.0000" });
    const otherEnvironment = await charge(aLive.secret, "shared", { amount: "1.0000" });
    for (const response of [first, otherAccount, otherEnvironment]) {
      expect(response.statusCode).toBe(201);
      expect(response.headers["idempotent-replayed"]).toBeUndefined();
    }
    expect(await chargesOf(a.accountId)).toHaveLength(2);
    expect(await chargesOf(b.accountId)).toHaveLength(1);
  });

  it("keeps a key 24 hours, then purges it and treats the key as new", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    await charge(secret, "day", { amount: "1.0000" });
    clock.advance(23 * 3600);
    expect((await charge(secret, "day", { amount: "2.0000" })).statusCode).toBe(422);
    clock.advance(3600);
    const fresh = await charge(secret, "day", { amount: "2.0000" });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers["idempotent-replayed"]).toBeUndefined();

    await charge(secret, "to-purge", { amount: "1.0000" });
    clock.advance(24 * 3600 + 1);
    const purged = await purgeExpired(ctx);
    expect(purged.idempotencyKeys).toBeGreaterThanOrEqual(2);
    const left = await ctx.db
      .selectFrom("idempotency_keys")
      .select("key")
      .where("account_id", "=", accountId)
      .execute();
    expect(left).toEqual([]);
  });

  it("takes over a key whose first request died holding it", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const body = { amount: "1.0000" };
    const first = await charge(secret, "orphan", body);
    // What a process that crashed mid-request leaves behind: a claim with no response.
    await ctx.db
      .updateTable("idempotency_keys")
      .set({ response_status: null, response_body: null, locked_until: clock.now().toISOString() })
      .where("account_id", "=", accountId)
      .execute();
    await ctx.db.deleteFrom("ledger_entries").where("id", "=", first.json().id).execute();
    clock.advance(1);
    const retried = await charge(secret, "orphan", body);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers["idempotent-replayed"]).toBeUndefined();
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it.each([
    ["too long", "k".repeat(256)],
    ["not printable ASCII", "clé-1"],
  ])("refuses an Idempotency-Key that is %s with 400", async (_name, key) => {
    const { secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const response = await charge(secret, key, { amount: "1.0000" });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: "invalid_request", param: "Idempotency-Key" });
  });
});
