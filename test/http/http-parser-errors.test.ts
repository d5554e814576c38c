import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { createAccountWithKey } from "../helpers/fixtures.js";
import { addProbeRoutes } from "../helpers/probe-routes.js";
import { type RawResponse, rawExchange } from "../helpers/raw-http.js";

/**
 * Requests that Node's HTTP parser refuses never reach a route: they are answered straight on the
 * socket. They still get the API's error envelope (docs/api-reference.md#errors) and a request id, and the
 * connection is closed, since the parser cannot tell where the next request would start.
 */

const REQUEST_ID = /^req_[0-9A-Za-z]{20}$/;

describe("requests the HTTP parser refuses", () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let server: RunningServer;

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    ctx = await openTestContext(database.url);
    server = await startServer(await buildApp(ctx), ctx, { host: "127.0.0.1", port: 0 });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  /** The answer is the envelope, exactly, with the request id of its header, and closes the connection. */
  function expectParserRefusal(response: RawResponse | undefined, status: number): void {
    expect(response, "a response").toBeDefined();
    if (!response) return;
    expect(response.status, response.body).toBe(status);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.headers.connection).toBe("close");
    expect(Number(response.headers["content-length"])).toBe(Buffer.byteLength(response.body));
    const body = JSON.parse(response.body) as { error: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(["error"]);
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "request_id"]);
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toEqual(expect.any(String));
    expect(body.error.request_id).toMatch(REQUEST_ID);
    expect(response.headers["x-request-id"]).toBe(body.error.request_id);
  }

  const cases: Array<{ name: string; bytes: string; status: number; halfClose?: boolean }> = [
    {
      name: "Content-Length together with Transfer-Encoding",
      bytes:
        "POST /v2/sms/send HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n" +
        "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
      status: 400,
    },
    {
      name: "two different Content-Lengths",
      bytes: "POST /v2/sms/send HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
      status: 400,
    },
    {
      name: "a body shorter than its Content-Length, then the client stops sending",
      // A route that waits for its body (an unauthenticated /v2/ request is refused before it).
      bytes:
        "POST /dashboard/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "Content-Length: 40\r\n\r\n{}",
      status: 400,
      halfClose: true,
    },
    {
      name: "headers larger than the parser takes",
      bytes: `GET /v2/balance HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(20_000)}\r\n\r\n`,
      status: 431,
    },
    {
      name: "a non-ASCII header name",
      bytes: "GET /v2/balance HTTP/1.1\r\nHost: x\r\nX-Na\xc3\xafve: 1\r\n\r\n",
      status: 400,
    },
    {
      name: "a NUL byte in a header value",
      bytes: "GET /v2/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dk_\x00x\r\n\r\n",
      status: 400,
    },
    { name: "a request line that is not HTTP", bytes: "HELLO\r\n\r\n", status: 400 },
    { name: "an unknown HTTP version", bytes: "GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n", status: 400 },
    {
      name: "a chunk size that is not hexadecimal",
      bytes:
        "POST /v2/sms/send HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
      status: 400,
    },
  ];

  for (const { name, bytes, status, halfClose } of cases) {
    it(`${name}: ${status} in the envelope, then the connection closes`, async () => {
      const exchange = await rawExchange(server.url, bytes, { halfClose: halfClose ?? false });
      expect(exchange.closedByServer).toBe(true);
      expect(exchange.responses, exchange.text).toHaveLength(1);
      expectParserRefusal(exchange.responses[0], status);
    });
  }

  it("answers a request whose body ran past its Content-Length, then refuses the leftover bytes", async () => {
    // Content-Length covers `{}`; what follows is read as the start of a second request.
    const exchange = await rawExchange(
      server.url,
      "POST /v2/otp/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n" +
        '{}, "code": "123456"}',
    );
    expect(exchange.closedByServer).toBe(true);
    expect(
      exchange.responses.map((r) => r.status),
      exchange.text,
    ).toEqual([401, 400]);
    const first = exchange.responses[0];
    expect(JSON.parse(first?.body ?? "{}").error.code).toBe("missing_api_key");
    expectParserRefusal(exchange.responses[1], 400);
    expect(exchange.responses[1]?.headers["x-request-id"]).not.toBe(first?.headers["x-request-id"]);
  });

  it("says what was wrong without echoing the request", async () => {
    const secret = `dk_live_${"S".repeat(40)}`;
    const exchange = await rawExchange(
      server.url,
      `POST /v2/sms/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Length: 2\r\n` +
        "Transfer-Encoding: chunked\r\n\r\n",
    );
    const body = exchange.responses[0]?.body ?? "";
    expect(JSON.parse(body).error.message).toMatch(/Transfer-Encoding/);
    expect(exchange.text).not.toContain(secret);
  });

  it("keeps serving other connections", async () => {
    await rawExchange(server.url, "HELLO\r\n\r\n");
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
  });
});

describe("a request that does not arrive in time", () => {
  const TIMEOUT_MS = 600;
  let database: TestDatabase;
  let ctx: AppContext;
  let server: RunningServer;

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    ctx = await openTestContext(database.url, { env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
    const app = await buildApp(ctx);
    addProbeRoutes(app, ctx);
    server = await startServer(app, ctx, { host: "127.0.0.1", port: 0 });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const stalls: Array<{ name: string; bytes: string }> = [
    {
      name: "a body that stops coming, the connection left open",
      bytes:
        "POST /dashboard/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        'Content-Length: 40\r\n\r\n{"email":',
    },
    {
      name: "headers that never end",
      bytes: "POST /dashboard/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
    },
  ];

  for (const { name, bytes } of stalls) {
    it(`${name}: 408 in the envelope after REQUEST_TIMEOUT_MS, then the connection closes`, async () => {
      const started = performance.now();
      const exchange = await rawExchange(server.url, bytes, { timeoutMs: 8_000 });
      const elapsed = performance.now() - started;
      expect(exchange.closedByServer, exchange.text).toBe(true);
      expect(exchange.responses, exchange.text).toHaveLength(1);
      const response = exchange.responses[0];
      expect(response?.status).toBe(408);
      expect(response?.headers.connection).toBe("close");
      const body = JSON.parse(response?.body ?? "{}") as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({
        code: "invalid_request",
        request_id: response?.headers["x-request-id"],
      });
      expect(body.error.message).toMatch(/in time/);
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 4_000);
    });
  }

  it("leaves an idle keep-alive connection open between two requests", async () => {
    const { port } = new URL(server.url);
    const socket = connect({ host: "127.0.0.1", port: Number(port) });
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    const request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 3));
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    expect(received.match(/HTTP\/1\.1 \d{3}/g), received).toEqual(["HTTP/1.1 200", "HTTP/1.1 200"]);
  });

  it("does not cut off a request that arrived, however long its answer takes", async () => {
    const { secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const response = await fetch(`${server.url}/v2/probe/charges`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify({ amount: "1.0000", delay_ms: TIMEOUT_MS * 2 }),
    });
    expect(response.status).toBe(201);
  });
});
