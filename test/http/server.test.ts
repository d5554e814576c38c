import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { createLogger } from "../../src/lib/logger.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";

const LISTEN = { host: "127.0.0.1", port: 0 };
const GENERATED_REQUEST_ID = /^req_[0-9A-Za-z]{20}$/;

interface ErrorBody {
  error: { code: string; message: string; param?: string; request_id: string };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise and what resolves it: a point a test waits for, or lets a request pass. */
function signal(): { reached: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const reached = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { reached, fire };
}

/** Resolves with the error code of a fresh TCP connection attempt, or "connected" if one was accepted. */
function tryConnect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe("graceful shutdown", () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    ctx = await openTestContext(database.url);
  });

  afterAll(async () => {
    // Bounded, so a shutdown that hangs fails the test above instead of timing out here.
    if (server) await Promise.race([server.stop(), sleep(5_000)]);
    else await ctx?.close();
    await database.drop();
  });

  it("finishes in-flight requests, refuses new connections, then closes the database", async () => {
    const app = await buildApp(ctx);
    const arrival = signal();
    let handlerDone = false;
    app.get("/slow", async () => {
      arrival.fire();
      await sleep(300);
      // The database must still be open while a request is in flight.
      const result = await sql<{ one: number }>`select 1 as one`.execute(ctx.db);
      handlerDone = true;
      return { done: true, one: result.rows[0]?.one };
    });
    server = await startServer(app, ctx, LISTEN);
    const url = server.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await tryConnect(url)).toBe("connected");

    // fetch keeps connections alive, as most clients and load balancers do.
    const inFlight = fetch(`${url}/slow`).then(async (response) => ({
      status: response.status,
      body: await response.json(),
    }));
    await arrival.reached;
    expect(ctx.shuttingDown).toBe(false);

    const startedStopping = performance.now();
    let handlerDoneWhenStopped: boolean | undefined;
    const stopping = server.stop().then(() => {
      handlerDoneWhenStopped = handlerDone;
      return performance.now() - startedStopping;
    });
    expect(ctx.shuttingDown).toBe(true);
    // The listener closes at once, while the slow request is still running.
    let attempt = await tryConnect(url);
    for (let tries = 0; attempt !== "ECONNREFUSED" && tries < 10; tries++) {
      await sleep(10);
      attempt = await tryConnect(url);
    }
    expect(attempt).toBe("ECONNREFUSED");
    expect(handlerDone).toBe(false);

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ done: true, one: 1 });

    // Stopping waits for the in-flight request, but not for its keep-alive connection to time out.
    const stopMs = await Promise.race([stopping, sleep(3_000).then(() => Number.POSITIVE_INFINITY)]);
    expect(stopMs, "stop() must not wait for the keep-alive timeout").toBeLessThan(3_000);
    expect(handlerDoneWhenStopped).toBe(true);

    expect(await tryConnect(url)).toBe("ECONNREFUSED");
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(ctx.shuttingDown).toBe(true);
    await expect(sql`select 1`.execute(ctx.db)).rejects.toThrow();
    // Stopping twice is harmless.
    await expect(server.stop()).resolves.toBeUndefined();
  });
});

describe("graceful shutdown after a client hung up", () => {
  let database: TestDatabase;

  afterAll(async () => {
    await database?.drop();
  });

  it("keeps the database open until the request finishes, though its connection is gone", async () => {
    database = await createTestDatabase("sqlite");
    const ctx = await openTestContext(database.url);
    const app = await buildApp(ctx);
    const arrival = signal();
    const release = signal();
    const outcome = new Promise<string>((resolve) => {
      app.get("/abandoned", async () => {
        arrival.fire();
        await release.reached;
        try {
          await sql`select 1`.execute(ctx.db);
          resolve("database open");
        } catch (error) {
          resolve(`database closed: ${(error as Error).message}`);
        }
        return { done: true };
      });
    });
    const server = await startServer(app, ctx, LISTEN);
    const { hostname, port } = new URL(server.url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.write(`GET /abandoned HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    await arrival.reached;
    socket.destroy();
    // The server sees the connection end; app.close() then has nothing left to wait for.
    await sleep(50);

    let stopped = false;
    const stopping = server.stop().then(() => {
      stopped = true;
    });
    await sleep(200);
    expect(stopped, "stop() must wait for the request, not only its connection").toBe(false);
    release.fire();
    expect(await outcome).toBe("database open");
    await Promise.race([stopping, sleep(5_000)]);
    expect(stopped).toBe(true);
  });
});

describe("graceful shutdown after a client hung up during the key's lookup", () => {
  const databases: TestDatabase[] = [];

  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  it.each([
    ["all of its body", '{"whole":true}', 14],
    ["part of its body", '{"half":', 100],
  ])("does not wait for a request that will never reach its handler (sent %s)", async (_, body, length) => {
    const database = await createTestDatabase("sqlite");
    databases.push(database);
    const ctx = await openTestContext(database.url);
    const app = await buildApp(ctx);
    let handled = false;
    const arrival = signal();
    const release = signal();
    // The client hangs up while the request is still in its onRequest hooks, as during a key's
    // lookup: its body can no longer be read.
    app.addHook("onRequest", async () => {
      arrival.fire();
      await release.reached;
    });
    app.post("/upload", async () => {
      handled = true;
      return { done: true };
    });
    const server = await startServer(app, ctx, LISTEN);
    const { hostname, port } = new URL(server.url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.write(
      `POST /upload HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${body}`,
    );
    await arrival.reached;
    socket.destroy();
    await sleep(50);
    release.fire();

    const stopMs = await Promise.race([
      server.stop().then(() => 0),
      sleep(3_000).then(() => Number.POSITIVE_INFINITY),
    ]);
    expect(stopMs, "stop() must not wait out its bound for a request that cannot finish").toBe(0);
    expect(handled).toBe(false);
  });
});

describe("a running server", () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let app: App;
  let server: RunningServer;

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    ctx = await openTestContext(database.url);
    app = await buildApp(ctx);
    server = await startServer(app, ctx, LISTEN);
  });

  afterEach(() => {
    ctx.shuttingDown = false;
  });

  afterAll(async () => {
    await server.stop();
    await database.drop();
  });

  it("answers /healthz with 200", async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("answers /readyz with 200 normally and 503 unavailable once shutting down", async () => {
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", carriers: {}, routes: [], unrouted: null });

    ctx.shuttingDown = true;
    const draining = await app.inject({ method: "GET", url: "/readyz" });
    expect(draining.statusCode).toBe(503);
    const body = draining.json<ErrorBody>();
    expect(body.error.code).toBe("unavailable");
    expect(body.error.request_id).toBe(draining.headers["x-request-id"]);
    // Liveness does not depend on readiness.
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);

    ctx.shuttingDown = false;
    const again = await app.inject({ method: "GET", url: "/readyz" });
    expect(again.statusCode).toBe(200);
  });

  describe("X-Request-Id", () => {
    it("is on every response, generated when the caller sends none", async () => {
      const responses = await Promise.all([
        fetch(`${server.url}/healthz`),
        fetch(`${server.url}/readyz`),
        fetch(`${server.url}/no-such-route`),
        fetch(`${server.url}/v2/balance`),
        fetch(`${server.url}/v2/balance`, { headers: bearer(`dk_sandbox_${"x".repeat(40)}`) }),
        fetch(`${server.url}/openapi.json`),
        fetch(`${server.url}/healthz`, { method: "POST" }),
      ]);
      const ids = responses.map((response) => {
        const id = response.headers.get("x-request-id");
        expect(id, response.url).toMatch(GENERATED_REQUEST_ID);
        return id;
      });
      expect(new Set(ids).size).toBe(ids.length);

      const notFound = responses[2];
      expect(notFound?.status).toBe(404);
      const body = (await notFound?.json()) as ErrorBody;
      expect(body.error.code).toBe("not_found");
      expect(body.error.request_id).toBe(notFound?.headers.get("x-request-id"));
    });

    it("echoes a safe caller-supplied id in the header and the error body", async () => {
      const ok = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": "abc-123" } });
      expect(ok.headers.get("x-request-id")).toBe("abc-123");

      const unauthorized = await fetch(`${server.url}/v2/balance`, {
        headers: { "x-request-id": "abc-123" },
      });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers.get("x-request-id")).toBe("abc-123");
      const body = (await unauthorized.json()) as ErrorBody;
      expect(body.error.code).toBe("missing_api_key");
      expect(body.error.request_id).toBe("abc-123");

      const traced = "trace.id:01_ABC-xyz";
      const notFound = await fetch(`${server.url}/nowhere`, { headers: { "x-request-id": traced } });
      expect(notFound.headers.get("x-request-id")).toBe(traced);
      expect(((await notFound.json()) as ErrorBody).error.request_id).toBe(traced);
    });

    it.each([
      ["300 characters", "a".repeat(300)],
      ["markup", "<script>alert(1)</script>"],
      ["spaces", "abc 123"],
      ["quotes", 'abc"123'],
      ["slashes", "abc/../123"],
    ])("replaces an unsafe caller-supplied id (%s) by a generated one", async (_name, unsafe) => {
      const response = await fetch(`${server.url}/nowhere`, { headers: { "x-request-id": unsafe } });
      expect(response.status).toBe(404);
      const id = response.headers.get("x-request-id");
      expect(id).toMatch(GENERATED_REQUEST_ID);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.request_id).toBe(id);
      expect(JSON.stringify(body)).not.toContain(unsafe);
    });
  });

  describe("API documentation", () => {
    it("serves an OpenAPI 3 document with /v2/balance and bearer auth", async () => {
      const response = await fetch(`${server.url}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      const document = (await response.json()) as {
        openapi: string;
        paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
        components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
      };
      expect(document.openapi).toMatch(/^3\./);
      const balance = document.paths["/v2/balance"]?.get;
      expect(balance).toBeDefined();

      const schemes = document.components.securitySchemes;
      const bearerSchemes = Object.entries(schemes)
        .filter(([, scheme]) => scheme.type === "http" && scheme.scheme?.toLowerCase() === "bearer")
        .map(([name]) => name);
      expect(bearerSchemes.length).toBeGreaterThan(0);
      const required = (balance?.security ?? []).flatMap((requirement) => Object.keys(requirement));
      expect(required.some((name) => bearerSchemes.includes(name))).toBe(true);
    });

    it("serves the interactive docs as HTML", async () => {
      const response = await fetch(`${server.url}/docs`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await response.text()).toMatch(/<html/i);

      const slash = await fetch(`${server.url}/docs/`);
      expect(slash.status).toBe(200);
      expect(slash.headers.get("content-type")).toMatch(/^text\/html/);
    });
  });
});

describe("logs", () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let server: RunningServer;
  const lines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    const log = createLogger("trace", {
      write(line: string) {
        lines.push(line);
      },
    });
    ctx = await openTestContext(database.url, { log });
    const app = await buildApp(ctx);
    server = await startServer(app, ctx, LISTEN);
  });

  afterAll(async () => {
    await server.stop();
    await database.drop();
  });

  it("carry request ids but never keys, tokens, cookies or passwords", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox", 10_000);
    const fakeToken = `dk_sandbox_${randomBytes(24).toString("hex")}`;
    const cookie = `session=${randomBytes(16).toString("hex")}`;
    const password = `pw-${randomBytes(12).toString("hex")}`;

    const valid = await fetch(`${server.url}/v2/balance`, {
      headers: { ...bearer(secret), "x-request-id": "log-valid-key" },
    });
    expect(valid.status).toBe(200);
    expect(await valid.json()).toEqual({ environment: "sandbox", balance: "1.0000", currency: "INR" });

    const invalid = await fetch(`${server.url}/v2/balance`, {
      headers: { ...bearer(fakeToken), "x-request-id": "log-invalid-key" },
    });
    expect(invalid.status).toBe(401);
    expect(((await invalid.json()) as ErrorBody).error.code).toBe("invalid_api_key");

    const withCookie = await fetch(`${server.url}/v2/balance`, {
      headers: { ...bearer(secret), cookie, "x-request-id": "log-cookie" },
    });
    expect(withCookie.status).toBe(200);
    await withCookie.arrayBuffer();

    const unknownRoute = await fetch(`${server.url}/v2/login`, {
      method: "POST",
      headers: { ...bearer(secret), "content-type": "application/json", "x-request-id": "log-password" },
      body: JSON.stringify({ email: "dev@example.com", password }),
    });
    expect(unknownRoute.status).toBe(404);
    await unknownRoute.arrayBuffer();

    // A generated id is logged too.
    const generated = await fetch(`${server.url}/v2/balance`, { headers: bearer(fakeToken) });
    expect(generated.status).toBe(401);
    await generated.arrayBuffer();
    const generatedId = generated.headers.get("x-request-id");
    expect(generatedId).toMatch(GENERATED_REQUEST_ID);

    // Request logs are written as the response finishes; give the last one a moment to land.
    await sleep(50);
    const text = lines.join("");
    expect(text.length).toBeGreaterThan(0);
    for (const id of ["log-valid-key", "log-invalid-key", "log-cookie", "log-password", generatedId]) {
      expect(text).toContain(`"reqId":"${id}"`);
    }
    // One line per request, with method, route, status and duration: logs are useful, not empty.
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const linesOf = (id: string) => entries.filter((entry) => entry.reqId === id);
    expect(linesOf("log-password")).toEqual([
      expect.objectContaining({ msg: "request completed", method: "POST", route: null, status: 404 }),
    ]);
    expect(linesOf("log-invalid-key")).toEqual([
      expect.objectContaining({
        msg: "request completed",
        method: "GET",
        route: "/v2/balance",
        status: 401,
        duration_ms: expect.any(Number),
      }),
    ]);

    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(12));
    expect(text).not.toContain(fakeToken);
    expect(text).not.toContain(cookie);
    expect(text).not.toContain(password);
  });
});
