import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { createKey, deleteKey, listKeys, rotateKey } from "../../src/keys/keys.js";
import { hashSecret } from "../../src/keys/secrets.js";
import { DIALECTS } from "../helpers/database.js";
import { bearer, createAccountWithKey, createTestAccount } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

describe.each(DIALECTS)("API keys and auth on %s", (dialect) => {
  const instances = useTestInstances(dialect, { secondInstance: true });
  let ctx: AppContext;
  let app: App;
  /**
   * A second instance on the same database, as a second server process would be. Also on SQLite:
   * the tests here use the two one after the other, never at once, so neither waits on the other's lock.
   */
  let otherApp: App;
  beforeAll(() => {
    ({ ctx, app, otherApp } = instances);
  });

  const balance = (target: App, headers: Record<string, string>) =>
    target.inject({ method: "GET", url: "/v2/balance", headers });

  it("creates keys with a CSPRNG secret, stores only its SHA-256 and a display prefix", async () => {
    const accountId = await createTestAccount(ctx);
    const live = await createKey(ctx, { accountId, environment: "live", label: "backend" }, CLI_ORIGIN);
    const sandbox = await createKey(ctx, { accountId, environment: "sandbox" }, CLI_ORIGIN);
    expect(live.secret).toMatch(/^dk_live_[0-9A-Za-z]{32,}$/);
    expect(sandbox.secret).toMatch(/^dk_sandbox_[0-9A-Za-z]{32,}$/);
    expect(live.prefix).toBe(live.secret.slice(0, 12));
    expect(live.id).toMatch(/^key_/);
    expect(live.secret).not.toBe(
      (await createKey(ctx, { accountId, environment: "live" }, CLI_ORIGIN)).secret,
    );

    const row = await ctx.db
      .selectFrom("api_keys")
      .selectAll()
      .where("id", "=", live.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(hashSecret(live.secret));
    expect(JSON.stringify(row)).not.toContain(live.secret);

    const listed = await listKeys(ctx, accountId);
    expect(listed).toHaveLength(3);
    expect(JSON.stringify(listed)).not.toContain(live.secret.slice(12));
    expect(listed.find((k) => k.id === live.id)).toMatchObject({ environment: "live", label: "backend" });
  });

  it("authenticates with the key's environment and balance", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox", 1_234_500);
    const response = await balance(app, bearer(secret));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ environment: "sandbox", balance: "123.4500", currency: "INR" });

    const accountId = await createTestAccount(ctx);
    const live = await createKey(ctx, { accountId, environment: "live" }, CLI_ORIGIN);
    expect((await balance(app, bearer(live.secret))).json()).toEqual({
      environment: "live",
      balance: "0.0000",
      currency: "INR",
    });
  });

  it.each([
    ["no Authorization header", {}],
    ["a Basic header", { authorization: "Basic dXNlcjpwYXNz" }],
    ["Bearer without a token", { authorization: "Bearer " }],
    ["a bare token", { authorization: "dk_live_abc" }],
  ])("refuses %s with 401 missing_api_key and WWW-Authenticate", async (_name, headers) => {
    const response = await balance(app, headers as Record<string, string>);
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe("Bearer");
    expect(response.json().error).toMatchObject({ code: "missing_api_key" });
    expect(response.json().error.request_id).toBe(response.headers["x-request-id"]);
  });

  it.each([
    ["a malformed token", "not-a-key"],
    ["a short token", "dk_live_abc"],
    ["an unknown well-formed key", `dk_live_${"a".repeat(43)}`],
    ["an unknown environment", `dk_test_${"a".repeat(43)}`],
  ])("refuses %s with 401 invalid_api_key", async (_name, token) => {
    const response = await balance(app, bearer(token));
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe("invalid_api_key");
    expect(response.body).not.toContain(token);
  });

  it("refuses every /v2/ operation of the OpenAPI document without a key, before reading its body", async () => {
    const document = (await app.inject({ method: "GET", url: "/openapi.json" })).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith("/v2/"))
      .flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => [method.toUpperCase(), path] as const),
      );
    expect(operations.length).toBeGreaterThan(10);
    for (const [method, path] of operations) {
      const url = path.replace(/\{[^}]+\}/g, "msg_0000000000000000000000");
      // No Content-Type on purpose: the key is checked before the body's type.
      const response = await app.inject({ method: method as "GET", url });
      expect([method, path, response.statusCode]).toEqual([method, path, 401]);
      expect(response.json().error.code).toBe("missing_api_key");
    }
  });

  it("accepts the scheme case-insensitively", async () => {
    const { secret } = await createAccountWithKey(ctx);
    expect((await balance(app, { authorization: `bearer ${secret}` })).statusCode).toBe(200);
  });

  it("rejects a deleted key at once, also on a second instance that used it a moment before", async () => {
    const { accountId, keyId, secret } = await createAccountWithKey(ctx);
    expect((await balance(otherApp, bearer(secret))).statusCode).toBe(200);
    expect((await balance(app, bearer(secret))).statusCode).toBe(200);

    await deleteKey(ctx, accountId, keyId, CLI_ORIGIN);

    const onOther = await balance(otherApp, bearer(secret));
    expect(onOther.statusCode).toBe(401);
    expect(onOther.json().error.code).toBe("invalid_api_key");
    expect((await balance(app, bearer(secret))).statusCode).toBe(401);
  });

  it("deletes only keys of the account that owns them", async () => {
    const owner = await createAccountWithKey(ctx);
    const stranger = await createTestAccount(ctx);
    await expect(deleteKey(ctx, stranger, owner.keyId, CLI_ORIGIN)).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await balance(app, bearer(owner.secret))).statusCode).toBe(200);
    await expect(deleteKey(ctx, owner.accountId, "key_unknown", CLI_ORIGIN)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("rotates without grace: the new key works, the old one is refused at once", async () => {
    const { accountId, keyId, secret } = await createAccountWithKey(ctx, "live");
    const { key, rotated } = await rotateKey(ctx, { accountId, keyId, graceSeconds: 0 }, CLI_ORIGIN);
    expect(rotated).toBeNull();
    expect(key).toMatchObject({ environment: "live", label: "test" });
    expect((await balance(otherApp, bearer(secret))).statusCode).toBe(401);
    expect((await balance(otherApp, bearer(key.secret))).statusCode).toBe(200);
    expect((await listKeys(ctx, accountId)).map((k) => k.id)).toEqual([key.id]);
  });

  it("rotates with a grace period: the old key works until it ends, then never again", async () => {
    const { accountId, keyId, secret } = await createAccountWithKey(ctx);
    const { key, rotated } = await rotateKey(ctx, { accountId, keyId, graceSeconds: 3600 }, CLI_ORIGIN);
    expect(rotated?.expires_at).toBe(new Date(instances.clock.now().getTime() + 3600_000).toISOString());
    expect((await balance(app, bearer(secret))).statusCode).toBe(200);
    expect((await balance(app, bearer(key.secret))).statusCode).toBe(200);
    expect(await listKeys(ctx, accountId)).toHaveLength(2);

    instances.clock.advance(3601);
    expect((await balance(otherApp, bearer(secret))).statusCode).toBe(401);
    expect((await balance(otherApp, bearer(key.secret))).statusCode).toBe(200);
    expect((await listKeys(ctx, accountId)).map((k) => k.id)).toEqual([key.id]);
    await expect(rotateKey(ctx, { accountId, keyId, graceSeconds: 0 }, CLI_ORIGIN)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("refuses grace periods other than 0, 1 h, 24 h and 7 days", async () => {
    const { accountId, keyId } = await createAccountWithKey(ctx);
    await expect(rotateKey(ctx, { accountId, keyId, graceSeconds: 5 }, CLI_ORIGIN)).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect(await listKeys(ctx, accountId)).toHaveLength(1);
  });

  it("updates last_used_at on use, at most once a minute", async () => {
    const { accountId, keyId, secret } = await createAccountWithKey(ctx);
    const lastUsed = async () => (await listKeys(ctx, accountId)).find((k) => k.id === keyId)?.last_used_at;
    expect(await lastUsed()).toBeNull();

    await balance(app, bearer(secret));
    const first = instances.clock.now().toISOString();
    expect(await lastUsed()).toBe(first);

    instances.clock.advance(30);
    await balance(app, bearer(secret));
    expect(await lastUsed()).toBe(first);

    instances.clock.advance(31);
    await balance(app, bearer(secret));
    expect(await lastUsed()).toBe(instances.clock.now().toISOString());
  });
});
