import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { recordEvent } from "../../src/events/outbox.js";
import type { App } from "../../src/http/types.js";
import { createKey } from "../../src/keys/keys.js";
import { purgeOldWebhookRecords } from "../../src/webhooks/purge.js";
import type { HostLookup } from "../../src/webhooks/ssrf.js";
import { DIALECTS } from "../helpers/database.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/* The webhook endpoints API: create, list, get, update, delete, rotate; scoping; URL rules and
 * the SSRF guard at creation. Delivery is in webhooks-delivery.test.ts. */

interface Endpoint {
  id: string;
  environment: string;
  url: string;
  events: string[];
  description: string | null;
  status: string;
  disabled_reason: string | null;
  failing_since: string | null;
  secret?: string;
  created_at: string;
  updated_at: string;
}

/** A DNS stand-in: names the tests use, and NXDOMAIN for everything else. */
const DNS: Record<string, string[]> = {
  "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "internal.example.com": ["10.1.2.3"],
  "mixed.example.com": ["93.184.216.34", "192.168.0.10"],
  "mapped.example.com": ["::ffff:127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  "nat64.example.com": ["64:ff9b::a9fe:a9fe"],
};
const fakeLookup: HostLookup = async (hostname) => {
  const addresses = DNS[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

const PUBLIC_URL = "https://hooks.example.com/dakiya";

describe.each(DIALECTS)("webhook endpoints API on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
    ctx.outboundWebhooks.lookup = fakeLookup;
  });

  const create = (secret: string, body: Record<string, unknown>) =>
    app.inject({ method: "POST", url: "/v2/webhooks", headers: bearer(secret), payload: body });
  const call = (secret: string, method: "GET" | "PATCH" | "DELETE" | "POST", url: string, payload?: object) =>
    app.inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });

  it("creates an endpoint with a whsec_ secret of 32 random bytes, and gets it back with the secret", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox");
    const response = await create(secret, {
      url: PUBLIC_URL,
      events: ["sms.delivered", "sms.failed", "sms.delivered"],
      description: "orders service",
    });
    expect(response.statusCode, response.body).toBe(201);
    const endpoint = response.json<Endpoint>();
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Za-z]{24}$/),
      environment: "sandbox",
      url: PUBLIC_URL,
      events: ["sms.delivered", "sms.failed"],
      description: "orders service",
      status: "enabled",
      disabled_reason: null,
      failing_since: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: instances.clock.now().toISOString(),
      updated_at: instances.clock.now().toISOString(),
    });
    expect(Buffer.from(endpoint.secret?.slice(6) ?? "", "base64")).toHaveLength(32);

    const fetched = await call(secret, "GET", `/v2/webhooks/${endpoint.id}`);
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(endpoint);

    // The secret is stored sealed, not in clear.
    const row = await ctx.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(endpoint.secret?.slice(6));
  });

  it('takes ["*"] (also as the default), and refuses unknown event names with their index', async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox");
    const all = await create(secret, { url: PUBLIC_URL, events: ["sms.delivered", "*"] });
    expect(all.json<Endpoint>().events).toEqual(["*"]);
    const implicit = await create(secret, { url: PUBLIC_URL });
    expect(implicit.json<Endpoint>().events).toEqual(["*"]);

    const unknown = await create(secret, { url: PUBLIC_URL, events: ["sms.delivered", "sms.read"] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatchObject({ code: "invalid_request", param: "events.1" });
    const empty = await create(secret, { url: PUBLIC_URL, events: [] });
    expect(empty.statusCode).toBe(400);
    const extra = await create(secret, { url: PUBLIC_URL, secret: "whsec_mine" });
    expect(extra.statusCode).toBe(400);
  });

  it("lists the environment's endpoints without secrets, newest first", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox");
    const first = (await create(secret, { url: PUBLIC_URL, events: ["otp.sent"] })).json<Endpoint>();
    instances.clock.advance(1);
    const second = (await create(secret, { url: `${PUBLIC_URL}/2`, events: ["*"] })).json<Endpoint>();
    const live = await createKey(ctx, { accountId, environment: "live", label: null }, CLI_ORIGIN);
    await create(live.secret, { url: PUBLIC_URL });

    const list = await call(secret, "GET", "/v2/webhooks");
    expect(list.statusCode).toBe(200);
    const { data } = list.json<{ data: Endpoint[] }>();
    expect(data.map((endpoint) => endpoint.id)).toEqual([second.id, first.id]);
    for (const endpoint of data) expect(endpoint).not.toHaveProperty("secret");
  });

  it("updates url, events, description and status; disabling and enabling say why", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox");
    const endpoint = (await create(secret, { url: PUBLIC_URL, description: "old" })).json<Endpoint>();
    instances.clock.advance(5);
    const patched = await call(secret, "PATCH", `/v2/webhooks/${endpoint.id}`, {
      url: `${PUBLIC_URL}/v2`,
      events: ["otp.verified"],
      description: null,
      status: "disabled",
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      url: `${PUBLIC_URL}/v2`,
      events: ["otp.verified"],
      description: null,
      status: "disabled",
      disabled_reason: "manual",
      updated_at: instances.clock.now().toISOString(),
      created_at: endpoint.created_at,
    });
    expect(patched.json()).not.toHaveProperty("secret");

    const enabled = await call(secret, "PATCH", `/v2/webhooks/${endpoint.id}`, { status: "enabled" });
    expect(enabled.json()).toMatchObject({ status: "enabled", disabled_reason: null });

    const badUrl = await call(secret, "PATCH", `/v2/webhooks/${endpoint.id}`, { url: "http://10.0.0.1/" });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json().error.param).toBe("url");
    const badStatus = await call(secret, "PATCH", `/v2/webhooks/${endpoint.id}`, { status: "paused" });
    expect(badStatus.statusCode).toBe(400);
  });

  it("rotates the secret: the new one is returned, the old one signs on for 24 hours", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox");
    const endpoint = (await create(secret, { url: PUBLIC_URL })).json<Endpoint>();
    const rotated = await call(secret, "POST", `/v2/webhooks/${endpoint.id}/rotate-secret`, {});
    expect(rotated.statusCode, rotated.body).toBe(200);
    const after = rotated.json<Endpoint>();
    expect(after.secret).toMatch(/^whsec_/);
    expect(after.secret).not.toBe(endpoint.secret);
    expect((await call(secret, "GET", `/v2/webhooks/${endpoint.id}`)).json<Endpoint>().secret).toBe(
      after.secret,
    );
    const row = await ctx.db
      .selectFrom("webhook_endpoints")
      .select(["previous_secret_sealed", "previous_secret_expires_at"])
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row.previous_secret_sealed).not.toBeNull();
    expect(row.previous_secret_expires_at).toBe(
      new Date(instances.clock.now().getTime() + 86_400_000).toISOString(),
    );
  });

  it("deletes an endpoint; a second delete is not_found", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox");
    const endpoint = (await create(secret, { url: PUBLIC_URL })).json<Endpoint>();
    const deleted = await call(secret, "DELETE", `/v2/webhooks/${endpoint.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ id: endpoint.id, deleted: true });
    expect((await call(secret, "GET", `/v2/webhooks/${endpoint.id}`)).statusCode).toBe(404);
    expect((await call(secret, "DELETE", `/v2/webhooks/${endpoint.id}`)).statusCode).toBe(404);
  });

  it("scopes every operation to the key's account and environment: others' ids are not_found", async () => {
    const owner = await createAccountWithKey(ctx, "sandbox");
    const endpoint = (await create(owner.secret, { url: PUBLIC_URL })).json<Endpoint>();
    const stranger = await createAccountWithKey(ctx, "sandbox");
    const ownLive = await createKey(
      ctx,
      { accountId: owner.accountId, environment: "live", label: null },
      CLI_ORIGIN,
    );

    for (const other of [stranger.secret, ownLive.secret]) {
      const attempts: Array<["GET" | "PATCH" | "DELETE" | "POST", string, object?]> = [
        ["GET", `/v2/webhooks/${endpoint.id}`],
        ["PATCH", `/v2/webhooks/${endpoint.id}`, { description: "mine now" }],
        ["POST", `/v2/webhooks/${endpoint.id}/rotate-secret`, {}],
        ["POST", `/v2/webhooks/${endpoint.id}/test`, {}],
        ["GET", `/v2/webhooks/${endpoint.id}/attempts`],
        ["POST", `/v2/webhooks/${endpoint.id}/replay`, { since: "2026-01-01T00:00:00Z" }],
        ["DELETE", `/v2/webhooks/${endpoint.id}`],
      ];
      for (const [method, url, payload] of attempts) {
        const response = await call(other, method, url, payload);
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.json().error.code).toBe("not_found");
      }
      expect((await call(other, "GET", "/v2/webhooks")).json<{ data: Endpoint[] }>().data).toEqual([]);
    }
    const untouched = (await call(owner.secret, "GET", `/v2/webhooks/${endpoint.id}`)).json<Endpoint>();
    expect(untouched).toEqual(endpoint);
  });

  it("needs an API key", async () => {
    const response = await app.inject({ method: "GET", url: "/v2/webhooks" });
    expect(response.statusCode).toBe(401);
  });

  describe("URL rules", () => {
    let sandboxKey: string;
    let liveKey: string;
    beforeAll(async () => {
      const { accountId, secret } = await createAccountWithKey(ctx, "sandbox");
      sandboxKey = secret;
      liveKey = (await createKey(ctx, { accountId, environment: "live", label: null }, CLI_ORIGIN)).secret;
    });

    const refused = async (key: string, url: string) => {
      const response = await create(key, { url });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
      const { error } = response.json();
      expect(error).toMatchObject({ code: "invalid_request", param: "url" });
      return error.message as string;
    };

    it("takes http:// in sandbox but only https:// in live", async () => {
      expect((await create(sandboxKey, { url: "http://hooks.example.com/x" })).statusCode).toBe(201);
      expect(await refused(liveKey, "http://hooks.example.com/x")).toMatch(/https/);
      expect((await create(liveKey, { url: "https://hooks.example.com/x" })).statusCode).toBe(201);
    });

    it("refuses other schemes, credentials, relative and over-long URLs, and names that do not resolve", async () => {
      await refused(sandboxKey, "ftp://hooks.example.com/x");
      await refused(sandboxKey, "file:///etc/passwd");
      await refused(sandboxKey, "/hooks");
      expect(await refused(sandboxKey, "https://user:pass@hooks.example.com/x")).toMatch(
        /user name or password/,
      );
      const long = `https://hooks.example.com/${"a".repeat(2048 - 26)}`;
      expect(long).toHaveLength(2048);
      expect((await create(sandboxKey, { url: long })).statusCode).toBe(201);
      await refused(sandboxKey, `${long}b`);
      expect(await refused(sandboxKey, "https://nowhere.example.com/x")).toMatch(/does not resolve/);
    });

    // Every class of address the guard refuses, as a literal and in the forms that hide one.
    const REFUSED: Array<[string, RegExp]> = [
      ["http://127.0.0.1/", /loopback/],
      ["http://127.1.2.3:8080/", /loopback/],
      ["http://[::1]/", /loopback/],
      ["http://10.0.0.1/", /private/],
      ["http://172.16.5.4/", /private/],
      ["http://172.31.255.255/", /private/],
      ["http://192.168.1.1/", /private/],
      ["http://[fc00::1]/", /private/],
      ["http://[fd12:3456::1]/", /private/],
      ["http://169.254.1.1/", /link-local/],
      ["http://[fe80::1]/", /link-local/],
      ["http://169.254.169.254/latest/meta-data/", /metadata/],
      ["http://[fd00:ec2::254]/", /metadata/],
      ["http://100.64.0.1/", /carrier-grade NAT/],
      ["http://100.127.255.254/", /carrier-grade NAT/],
      ["http://0.0.0.0/", /unspecified/],
      ["http://[::]/", /unspecified/],
      ["http://224.0.0.1/", /multicast/],
      ["http://[ff02::1]/", /multicast/],
      ["http://255.255.255.255/", /broadcast/],
      ["http://[::ffff:127.0.0.1]/", /loopback.*inside IPv6/],
      ["http://[::ffff:10.0.0.1]/", /private.*inside IPv6/],
      ["http://[::ffff:169.254.169.254]/", /metadata.*inside IPv6/],
      ["http://[::127.0.0.1]/", /loopback.*inside IPv6/],
      ["http://[64:ff9b::127.0.0.1]/", /loopback.*inside IPv6/],
      ["http://[64:ff9b::192.168.0.1]/", /private.*inside IPv6/],
      ["http://[2002:a9fe:a9fe::1]/", /metadata.*inside IPv6/],
      // WHATWG URL parsing turns these spellings into 127.0.0.1 before anything else sees them.
      ["http://0x7f.1/", /loopback/],
      ["http://2130706433/", /loopback/],
      ["http://017700000001/", /loopback/],
      ["http://localhost:3000/", /this machine/],
      ["http://LOCALHOST./", /this machine/],
      ["http://api.localhost/", /this machine/],
      // Names whose DNS answers include a refused address.
      ["https://internal.example.com/", /internal\.example\.com resolves to 10\.1\.2\.3, a private/],
      ["https://mixed.example.com/", /192\.168\.0\.10, a private/],
      ["https://mapped.example.com/", /loopback/],
      ["https://metadata.example.com/", /metadata/],
      ["https://nat64.example.com/", /metadata.*inside IPv6/],
    ];

    it.each(REFUSED)("refuses %s", async (url, reason) => {
      expect(await refused(sandboxKey, url)).toMatch(reason);
    });

    it("takes public addresses, including an IPv4-mapped public one", async () => {
      for (const url of ["http://93.184.216.34/", "http://[2606:4700::1111]/", "http://[::ffff:8.8.8.8]/"]) {
        const response = await create(sandboxKey, { url });
        expect(response.statusCode, `${url}: ${response.body}`).toBe(201);
        await call(sandboxKey, "DELETE", `/v2/webhooks/${response.json<Endpoint>().id}`);
      }
    });

    it("refuses private addresses in PATCH too", async () => {
      const endpoint = (await create(sandboxKey, { url: PUBLIC_URL })).json<Endpoint>();
      const response = await call(sandboxKey, "PATCH", `/v2/webhooks/${endpoint.id}`, {
        url: "http://[::ffff:192.168.0.1]/",
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.param).toBe("url");
      await call(sandboxKey, "DELETE", `/v2/webhooks/${endpoint.id}`);
    });

    it("takes loopback URLs when the operator allows private addresses", async () => {
      ctx.outboundWebhooks.allowPrivate = true;
      try {
        const response = await create(sandboxKey, { url: "http://localhost:9/hooks" });
        expect(response.statusCode, response.body).toBe(201);
        await call(sandboxKey, "DELETE", `/v2/webhooks/${response.json<Endpoint>().id}`);
      } finally {
        ctx.outboundWebhooks.allowPrivate = false;
      }
    });
  });

  it("allows at most 16 endpoints per environment", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox");
    for (let i = 0; i < 16; i++) expect((await create(secret, { url: PUBLIC_URL })).statusCode).toBe(201);
    const seventeenth = await create(secret, { url: PUBLIC_URL });
    expect(seventeenth.statusCode).toBe(400);
    expect(seventeenth.json().error.message).toMatch(/at most 16/);
  });

  it("purges attempts and ended deliveries after 30 days, keeping what still waits", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox");
    const endpoint = (await create(secret, { url: PUBLIC_URL })).json<Endpoint>();
    const event = await ctx.db.transaction().execute((trx) =>
      recordEvent(trx, ctx, {
        accountId,
        environment: "sandbox",
        type: "sms.delivered",
        data: { id: "msg_x" },
      }),
    );
    const old = new Date(instances.clock.now().getTime() - 31 * 86_400_000).toISOString();
    const recent = new Date(instances.clock.now().getTime() - 29 * 86_400_000).toISOString();
    const delivery = (id: string, state: "pending" | "succeeded", at: string) => ({
      id: `${endpoint.id}:${id}`,
      endpoint_id: endpoint.id,
      event_id: event.id,
      state,
      attempts: 1,
      next_attempt_at: state === "pending" ? at : null,
      lease_owner: null,
      lease_until: null,
      created_at: at,
      updated_at: at,
    });
    // Deliveries reference the event; their ids differ only for this test.
    await ctx.db
      .insertInto("webhook_deliveries")
      .values([
        delivery("old-done", "succeeded", old),
        delivery("old-waiting", "pending", old),
        delivery("recent", "succeeded", recent),
      ])
      .execute();
    const attempt = (id: string, at: string) => ({
      id,
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: "sms.delivered",
      attempt: 1,
      status_code: 200,
      error: null,
      duration_ms: 5,
      created_at: at,
    });
    await ctx.db
      .insertInto("webhook_attempts")
      .values([attempt("wat_old", old), attempt("wat_recent", recent)])
      .execute();

    expect(await purgeOldWebhookRecords(ctx.db, instances.clock.now())).toBe(2);
    const deliveries = await ctx.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("endpoint_id", "=", endpoint.id)
      .execute();
    expect(deliveries.map((row) => row.id).sort()).toEqual([
      `${endpoint.id}:old-waiting`,
      `${endpoint.id}:recent`,
    ]);
    const attempts = await ctx.db
      .selectFrom("webhook_attempts")
      .select("id")
      .where("endpoint_id", "=", endpoint.id)
      .execute();
    expect(attempts.map((row) => row.id)).toEqual(["wat_recent"]);
  });

  it("documents every webhook route in the OpenAPI document", async () => {
    const document = (await app.inject({ method: "GET", url: "/openapi.json" })).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    expect(Object.keys(document.paths["/v2/webhooks"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(document.paths["/v2/webhooks/{id}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
    for (const action of ["rotate-secret", "test", "replay"]) {
      expect(document.paths[`/v2/webhooks/{id}/${action}`]).toHaveProperty("post");
    }
    expect(document.paths["/v2/webhooks/{id}/attempts"]).toHaveProperty("get");
  });
});
