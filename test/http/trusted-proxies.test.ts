import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import type { AppContext } from "../../src/context.js";
import { SIGN_IN_LIMITS } from "../../src/dashboard/sign-in.js";
import { ConfigError } from "../../src/errors.js";
import type { App } from "../../src/http/types.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";

/*
 * TRUST_PROXY (docs/operations.md): behind a TLS reverse proxy the client's address and scheme
 * come from the proxy's X-Forwarded-For and X-Forwarded-Proto, but only from the proxies listed.
 */

describe("TRUST_PROXY and METRICS_* settings", () => {
  it("takes addresses, CIDRs and range names, and refuses anything else in one line", () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: " 10.0.0.0/8, loopback ,::1, 192.168.1.7" }).trustedProxies).toEqual([
      "10.0.0.0/8",
      "loopback",
      "::1",
      "192.168.1.7",
    ]);
    for (const value of ["true", "10.0.0.0/33", "proxy.example.com", "10.0.0.1/8/8", "fe80::/129"]) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(ConfigError);
    }
  });

  it("gives /metrics a listener of its own only with METRICS_PORT", () => {
    expect(loadConfig({}).metricsListener).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: "9464" }).metricsListener).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(loadConfig({ HOST: "0.0.0.0", METRICS_PORT: "9464" }).metricsListener).toEqual({
      host: "0.0.0.0",
      port: 9464,
    });
    expect(loadConfig({ METRICS_HOST: "10.0.0.5", METRICS_PORT: "9464" }).metricsListener).toEqual({
      host: "10.0.0.5",
      port: 9464,
    });
    expect(() => loadConfig({ METRICS_HOST: "10.0.0.5" })).toThrow("METRICS_HOST needs METRICS_PORT");
    expect(() => loadConfig({ METRICS_PORT: "http" })).toThrow(
      "METRICS_PORT must be an integer from 0 to 65535",
    );
  });
});

describe.each(DIALECTS)("behind a trusted proxy on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let app: App;
  let email: string;
  let emails = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    // Requests from `inject` come from 127.0.0.1: the proxy.
    ctx = await openTestContext(database.url, { env: { TRUST_PROXY: "127.0.0.1" } });
    app = await buildApp(ctx);
    const setup = await app.inject({
      method: "POST",
      url: "/dashboard/api/setup",
      payload: { email: "owner@example.com", password: "correct horse battery staple" },
    });
    expect(setup.statusCode, setup.body).toBe(201);
    email = "owner@example.com";
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await database?.drop();
  });

  function signIn(options: {
    forwardedFor?: string;
    proto?: string;
    remoteAddress?: string;
    password?: string;
    email?: string;
  }) {
    return app.inject({
      method: "POST",
      url: "/dashboard/api/session",
      payload: {
        email: options.email ?? email,
        password: options.password ?? "correct horse battery staple",
      },
      headers: {
        ...(options.forwardedFor ? { "x-forwarded-for": options.forwardedFor } : {}),
        ...(options.proto ? { "x-forwarded-proto": options.proto } : {}),
      },
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    });
  }

  it("marks the session cookie Secure when the proxy says the client came over HTTPS", async () => {
    const secure = await signIn({ proto: "https", forwardedFor: "203.0.113.1" });
    expect(secure.statusCode).toBe(200);
    expect(String(secure.headers["set-cookie"])).toContain("Secure");
    const plain = await signIn({ proto: "http", forwardedFor: "203.0.113.1" });
    expect(String(plain.headers["set-cookie"])).not.toContain("Secure");
    // From an address not listed, the header is the client's word, and is not believed.
    const untrusted = await signIn({ proto: "https", remoteAddress: "198.51.100.9" });
    expect(String(untrusted.headers["set-cookie"])).not.toContain("Secure");
  });

  it("limits sign-in attempts per client address as the proxy reports it", { timeout: 60_000 }, async () => {
    const guess = (forwardedFor: string, remoteAddress?: string) => {
      emails += 1;
      return signIn({
        email: `guess-${emails}@example.com`,
        password: "wrong password",
        forwardedFor,
        remoteAddress,
      });
    };
    for (let i = 0; i < SIGN_IN_LIMITS.perClientAddress; i++) {
      expect((await guess("203.0.113.5")).statusCode).toBe(401);
    }
    expect((await guess("203.0.113.5")).statusCode).toBe(429);
    // Another client behind the same proxy is not held back by the first one's guesses...
    expect((await guess("203.0.113.6")).statusCode).toBe(401);
    // ...and a forwarded address is believed only from the proxy.
    expect((await guess("203.0.113.5", "198.51.100.10")).statusCode).toBe(401);
  });
});
