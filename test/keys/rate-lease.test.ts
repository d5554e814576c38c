import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { App } from "../../src/http/types.js";
import { setKeyRateLimit } from "../../src/keys/keys.js";
import { DIALECTS } from "../helpers/database.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/**
 * A burst of 500 (2% of it: leases of up to 10 tokens) at one request a millisecond, on a clock
 * that stands still, so nothing refills unless a test moves the clock.
 */
const LEASED_LIMITS = { RATE_LIMIT_PER_MINUTE: "60000", RATE_LIMIT_BURST: "500" };
const BURST = 500;
const MAX_LEASE = 10;
const INTERVAL_US = 1_000;

function balance(app: App, secret: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: "GET", url: "/v2/balance", headers: bearer(secret) });
}

function remaining(response: LightMyRequestResponse): number {
  return Number(response.headers["ratelimit-remaining"]);
}

describe.each(DIALECTS)("leased request tokens on %s", (dialect) => {
  const instances = useTestInstances(dialect, { secondInstance: true, env: LEASED_LIMITS });

  /** Tokens the key's shared bucket has handed out, read from its row. */
  async function tokensTaken(keyId: string): Promise<number> {
    const row = await instances.ctx.db
      .selectFrom("api_key_rate_buckets")
      .select("full_at_us")
      .where("key_id", "=", keyId)
      .executeTakeFirstOrThrow();
    return (Number(row.full_at_us) - instances.clock.now().getTime() * 1000) / INTERVAL_US;
  }

  it("takes tokens from the shared bucket in leases, and still counts every request in the headers", async () => {
    const { app, ctx } = instances;
    const { keyId, secret } = await createAccountWithKey(ctx);
    for (let i = 1; i <= 100; i++) {
      const response = await balance(app, secret);
      expect(response.statusCode).toBe(200);
      expect(remaining(response)).toBe(BURST - i);
    }
    // Leases of 1, 2, 4, 8, then 10 at a time: more than the 100 requests are taken, never a lease more.
    const taken = await tokensTaken(keyId);
    expect(taken).toBeGreaterThan(100);
    expect(taken).toBeLessThan(100 + MAX_LEASE);
  });

  it("never lets more than the burst through across instances, and falls short of it by at most a lease each", async () => {
    const { app, otherApp, ctx } = instances;
    const apps = dialect === "postgres" ? [app, otherApp] : [app];
    const { secret } = await createAccountWithKey(ctx);
    const answers = await Promise.all(
      Array.from({ length: 700 }, (_, i) => balance(apps[i % apps.length] as App, secret)),
    );
    const allowed = answers.filter((a) => a.statusCode === 200).length;
    expect(allowed).toBeLessThanOrEqual(BURST);
    expect(allowed).toBeGreaterThanOrEqual(BURST - apps.length * MAX_LEASE);
    for (const refused of answers.filter((a) => a.statusCode !== 200)) {
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBeDefined();
    }
  });

  it("leases at another instance's later time when this one's was read before it", async () => {
    const { app, otherApp, ctx, clock } = instances;
    const { secret } = await createAccountWithKey(ctx);
    // The burst lasts half a second; the other instance's request is timed a second later.
    clock.advance(1);
    expect(remaining(await balance(otherApp, secret))).toBe(BURST - 1);
    clock.advance(-1);
    for (let i = 2; i <= 20; i++) {
      const response = await balance(app, secret);
      expect(response.statusCode).toBe(200);
      expect(remaining(response)).toBeLessThanOrEqual(BURST - i);
      expect(remaining(response)).toBeGreaterThanOrEqual(BURST - i - MAX_LEASE);
    }
    clock.advance(1);
  });

  it("gives up a lease's unspent tokens when it expires, and drops the lease when the key's rate changes", async () => {
    const { app, otherApp, ctx, clock } = instances;
    const { accountId, keyId, secret } = await createAccountWithKey(ctx);
    for (let i = 0; i < 20; i++) await balance(app, secret);
    const held = await tokensTaken(keyId);
    expect(held).toBeGreaterThan(20);

    // The other instance counts against the same bucket, whatever the first one holds.
    expect(remaining(await balance(otherApp, secret))).toBeLessThan(BURST - 20);

    // A new rate applies on the key's next request, though the lease still had tokens.
    await setKeyRateLimit(ctx, { accountId, keyId, rateLimit: 60 }, CLI_ORIGIN);
    const slowed = await balance(app, secret);
    expect(slowed.statusCode).toBe(200);
    expect(Number(slowed.headers["ratelimit-limit"])).toBe(60);

    await setKeyRateLimit(ctx, { accountId, keyId, rateLimit: null }, CLI_ORIGIN);
    clock.advance(120);
    // Everything has refilled and the old lease has expired: the bucket is full again for all.
    const fresh = await balance(otherApp, secret);
    expect(fresh.statusCode).toBe(200);
    expect(remaining(fresh)).toBe(BURST - 1);
  });
});
