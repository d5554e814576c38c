import { networkInterfaces } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { KeyScope } from "../../src/db/schema.js";
import type { App } from "../../src/http/types.js";
import { createKey, listKeys, rotateKey } from "../../src/keys/keys.js";
import { UNLIMITED_REQUESTS } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { useTestInstances } from "../helpers/instances.js";
import { listRoutes, type RouteEntry } from "../helpers/routes.js";

/*
 * Key scopes and IP allowlists (docs/api-reference.md#scopes-and-ip-allowlists), over real
 * servers on loopback: one that believes no proxy, one behind TRUST_PROXY=127.0.0.1, and where
 * the machine has IPv6 loopback, one on ::1.
 */

const HAS_IPV6_LOOPBACK = Object.values(networkInterfaces()).some((addresses) =>
  (addresses ?? []).some((address) => address.family === "IPv6" && address.address === "::1"),
);

const SEND_ROUTES = ["POST /v2/sms/send", "POST /v2/sms/batch", "POST /v2/otp/send", "POST /v2/otp/verify"];

interface Answer {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

describe.each(DIALECTS)("key scopes and IP allowlists on %s", (dialect) => {
  const instances = useTestInstances(dialect, { env: UNLIMITED_REQUESTS });
  let ctx: AppContext;
  let accountId: string;
  /** The server that believes no X-Forwarded-For (TRUST_PROXY unset). */
  let direct: string;
  /** The server behind a proxy on 127.0.0.1 (TRUST_PROXY=127.0.0.1). */
  let proxied: string;
  let routes: RouteEntry[];

  beforeAll(async () => {
    ctx = instances.ctx;
    direct = await listen(instances.app, "127.0.0.1");
    const behindProxy = await instances.openInstance({
      env: { ...UNLIMITED_REQUESTS, TRUST_PROXY: "127.0.0.1" },
    });
    proxied = await listen(behindProxy.app, "127.0.0.1");
    ({ accountId } = await createSendingAccount(ctx, 100_000_000));
    routes = listRoutes(instances.app).filter(
      (route) => route.path.startsWith("/v2/") && !route.path.startsWith("/v2/probe"),
    );
  });

  async function keyOf(scope: KeyScope, allowedIps: string[] | null = null): Promise<string> {
    return (await createKey(ctx, { accountId, environment: "sandbox", scope, allowedIps }, CLI_ORIGIN))
      .secret;
  }

  async function call(
    base: string,
    secret: string,
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        ...options.headers,
      },
      body: options.body === undefined ? null : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : JSON.parse(text) };
  }

  /** Each route with made-up ids: the scope is decided before the route looks for anything. */
  const pathOf = (route: RouteEntry) => route.path.replace(/:\w+/g, "x_scope_probe");

  it("gives a key the full scope and any address unless asked otherwise, and lists them", async () => {
    const key = await createKey(ctx, { accountId, environment: "sandbox" }, CLI_ORIGIN);
    expect(key).toMatchObject({ scope: "full", allowed_ips: null });
    const listed = (await listKeys(ctx, accountId)).find((k) => k.id === key.id);
    expect(listed).toMatchObject({ scope: "full", allowed_ips: null });
  });

  it("lets a send key send SMS and OTPs and verify codes, and refuses everything else", async () => {
    const secret = await keyOf("send");
    const sms = await call(direct, secret, "POST", "/v2/sms/send", {
      body: { to: "+919876543210", sender: "DAKIYA", template_id: SMS_TEMPLATE_ID, variables: { ref: "A1" } },
    });
    expect(sms.status, JSON.stringify(sms.body)).toBe(202);
    const batch = await call(direct, secret, "POST", "/v2/sms/batch", {
      body: {
        messages: [
          { to: "+919876543211", sender: "DAKIYA", template_id: SMS_TEMPLATE_ID, variables: { ref: "B" } },
        ],
      },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBeLessThan(300);
    // A campaign sends to many at once: only a full key starts one.
    const campaign = await call(direct, secret, "POST", "/v2/campaigns", {
      body: {
        name: "Scoped",
        template_id: SMS_TEMPLATE_ID,
        sender: "DAKIYA",
        recipients: [{ to: "+919876543213", variables: { ref: "C" } }],
      },
    });
    expect(campaign.status).toBe(403);
    expect(campaign.body.error?.code).toBe("forbidden");
    const otp = await call(direct, secret, "POST", "/v2/otp/send", { body: { to: "+919876543212" } });
    expect(otp.status, JSON.stringify(otp.body)).toBeLessThan(300);
    const verify = await call(direct, secret, "POST", "/v2/otp/verify", {
      body: { to: "+919876543212", code: "000000" },
    });
    expect(verify.status, JSON.stringify(verify.body)).toBe(200);

    const listing = await call(direct, secret, "GET", "/v2/sms");
    expect(listing.status).toBe(403);
    expect(listing.body.error?.code).toBe("forbidden");
    expect(listing.body.error?.message).toBe(
      "This key's scope is send: it may only call POST /v2/sms/send, POST /v2/sms/batch, POST /v2/otp/send and POST /v2/otp/verify, not GET /v2/sms.",
    );
    const webhook = await call(direct, secret, "POST", "/v2/webhooks", {
      body: { url: "https://example.com/hook", events: ["*"] },
    });
    expect(webhook.status).toBe(403);
    expect(webhook.body.error?.code).toBe("forbidden");
    expect(await ctx.db.selectFrom("webhook_endpoints").select("id").execute()).toEqual([]);

    for (const route of routes) {
      const answer = await call(direct, secret, route.method, pathOf(route));
      const sendRoute = SEND_ROUTES.includes(`${route.method} ${route.path}`);
      // A HEAD answer has no body to name its code.
      const refused =
        answer.status === 403 && (route.method === "HEAD" || answer.body.error?.code === "forbidden");
      expect(refused, `${route.method} ${route.path}`).toBe(!sendRoute);
    }
  });

  it("lets a read key make GET requests, and refuses every POST, PATCH and DELETE", async () => {
    const secret = await keyOf("read");
    const balance = await call(direct, secret, "GET", "/v2/balance");
    expect(balance.status).toBe(200);
    expect(balance.body).toMatchObject({ environment: "sandbox" });
    expect((await call(direct, secret, "GET", "/v2/sms")).status).toBe(200);
    expect((await call(direct, secret, "GET", "/v2/webhooks")).status).toBe(200);
    expect((await call(direct, secret, "HEAD", "/v2/balance")).status).toBe(200);

    const writes = routes.filter((route) => !["GET", "HEAD"].includes(route.method));
    expect(writes.map((route) => route.method)).toEqual(expect.arrayContaining(["POST", "PATCH", "DELETE"]));
    for (const route of writes) {
      const answer = await call(direct, secret, route.method, pathOf(route), { body: {} });
      expect(answer.status, `${route.method} ${route.path}`).toBe(403);
      expect(answer.body.error?.code).toBe("forbidden");
      expect(answer.body.error?.message).toContain(
        "This key's scope is read: it may only make GET and HEAD requests",
      );
    }
    for (const route of routes.filter((route) => route.method === "GET")) {
      const answer = await call(direct, secret, "GET", pathOf(route));
      expect(answer.body.error?.code, `GET ${route.path}`).not.toBe("forbidden");
    }
    const sms = await call(direct, secret, "POST", "/v2/sms/send", {
      body: { to: "+919876543213", sender: "DAKIYA", template_id: SMS_TEMPLATE_ID, variables: { ref: "R" } },
    });
    expect(sms.status).toBe(403);
  });

  it("refuses a key from an address outside its allowlist, also with a forged X-Forwarded-For", async () => {
    const secret = await keyOf("full", ["10.0.0.0/8"]);
    const plain = await call(direct, secret, "GET", "/v2/balance");
    expect(plain.status).toBe(403);
    expect(plain.body.error?.code).toBe("ip_not_allowed");
    expect(plain.body.error?.message).toBe(
      "This key may not be used from 127.0.0.1: the address is not in the key's allowed_ips.",
    );
    expect(plain.body.error?.message).not.toContain(secret.slice(8));

    // No proxy is trusted: the header is the client's own word, and counts for nothing.
    for (const forged of ["10.1.2.3", "10.1.2.3, 10.9.9.9", "127.0.0.1, 10.1.2.3"]) {
      const answer = await call(direct, secret, "GET", "/v2/balance", {
        headers: { "x-forwarded-for": forged },
      });
      expect(answer.status, forged).toBe(403);
      expect(answer.body.error?.code).toBe("ip_not_allowed");
    }
    // The allowlist is checked before the scope, and an unknown key before either.
    const sendKey = await keyOf("send", ["10.0.0.0/8"]);
    expect((await call(direct, sendKey, "GET", "/v2/sms")).body.error?.code).toBe("ip_not_allowed");
    const unknown = await call(direct, `${secret.slice(0, -4)}zzzz`, "GET", "/v2/balance");
    expect(unknown.status).toBe(401);
  });

  it("takes the client address from X-Forwarded-For when the request comes through a trusted proxy", async () => {
    const secret = await keyOf("full", ["10.0.0.0/8", "2001:db8::/32"]);
    const forwarded = (value: string) =>
      call(proxied, secret, "GET", "/v2/balance", { headers: { "x-forwarded-for": value } });
    expect((await forwarded("10.1.2.3")).status).toBe(200);
    expect((await forwarded("::ffff:10.1.2.3")).status).toBe(200);
    expect((await forwarded("2001:db8::7")).status).toBe(200);
    // The right-most address the proxy did not add is the client; what a client wrote further left is not.
    expect((await forwarded("10.1.2.3, 198.51.100.4")).status).toBe(403);
    const outside = await forwarded("198.51.100.4");
    expect(outside.status).toBe(403);
    expect(outside.body.error?.message).toContain("198.51.100.4");
    const garbage = await forwarded("10.1.2.3.evil, <script>");
    expect(garbage.status).toBe(403);
    expect(garbage.body.error?.message).toBe(
      "This key may not be used from a client address that is not an IP address: the address is not in the key's allowed_ips.",
    );
    // Without the header, the client is the proxy itself.
    expect((await call(proxied, secret, "GET", "/v2/balance")).status).toBe(403);
  });

  it("marks a key used only by the requests it may make", async () => {
    const key = await createKey(
      ctx,
      {
        accountId,
        environment: "sandbox",
        scope: "read",
        allowedIps: ["10.0.0.0/8"],
      },
      CLI_ORIGIN,
    );
    expect((await call(direct, key.secret, "GET", "/v2/balance")).status).toBe(403);
    const row = await ctx.db
      .selectFrom("api_keys")
      .select("last_used_at")
      .where("id", "=", key.id)
      .executeTakeFirst();
    expect(row?.last_used_at).toBeNull();
  });

  it.skipIf(!HAS_IPV6_LOOPBACK)("admits a key over IPv6 loopback when its allowlist has ::1", async () => {
    const ipv6 = await instances.openInstance({ env: UNLIMITED_REQUESTS });
    const base = await listen(ipv6.app, "::1");
    const secret = await keyOf("full", ["::1"]);
    const answer = await call(base, secret, "GET", "/v2/balance");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await call(direct, secret, "GET", "/v2/balance")).status).toBe(403);
    const ipv4Only = await call(base, await keyOf("full", ["127.0.0.0/8"]), "GET", "/v2/balance");
    expect(ipv4Only.status).toBe(403);
    expect(ipv4Only.body.error?.message).toContain("::1");
  });

  it("keeps the scope and allowlist through a rotation", async () => {
    const old = await createKey(
      ctx,
      {
        accountId,
        environment: "sandbox",
        scope: "send",
        allowedIps: ["203.0.113.0/24", "2001:db8::/32"],
      },
      CLI_ORIGIN,
    );
    const { key, rotated } = await rotateKey(
      ctx,
      { accountId, keyId: old.id, graceSeconds: 3_600 },
      CLI_ORIGIN,
    );
    expect(key).toMatchObject({ scope: "send", allowed_ips: ["203.0.113.0/24", "2001:db8::/32"] });
    expect(rotated).toMatchObject({ scope: "send", allowed_ips: ["203.0.113.0/24", "2001:db8::/32"] });
    const answer = await call(direct, key.secret, "GET", "/v2/balance");
    expect(answer.body.error?.code).toBe("ip_not_allowed");
  });

  it("refuses a bad scope or allowlist at creation with a 400 that says what to write", async () => {
    const attempt = (input: { scope?: string; allowedIps?: string[] }) =>
      createKey(ctx, { accountId, environment: "sandbox", ...input }, CLI_ORIGIN).then(
        () => undefined,
        (error: { status: number; code: string; message: string; param?: string }) => error,
      );
    expect(await attempt({ scope: "admin" })).toMatchObject({ status: 400, param: "scope" });
    expect(await attempt({ allowedIps: ["203.0.113.7/24"] })).toMatchObject({
      status: 400,
      code: "invalid_request",
      param: "allowed_ips.0",
      message: expect.stringContaining("203.0.113.0/24"),
    });
    expect(await attempt({ allowedIps: [] })).toMatchObject({ status: 400, param: "allowed_ips" });
    const many = Array.from({ length: 21 }, (_, i) => `198.51.100.${i}`);
    expect(await attempt({ allowedIps: many })).toMatchObject({
      status: 400,
      message: expect.stringContaining("at most 20"),
    });
    const stored = await createKey(
      ctx,
      {
        accountId,
        environment: "sandbox",
        allowedIps: ["2001:DB8:0:0::/32", "198.51.100.7", "198.51.100.7/32"],
      },
      CLI_ORIGIN,
    );
    expect(stored.allowed_ips).toEqual(["2001:db8::/32", "198.51.100.7/32"]);
  });
});

async function listen(app: App, host: string): Promise<string> {
  await app.listen({ host, port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}
