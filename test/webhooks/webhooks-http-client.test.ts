import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookHttpClient } from "../../src/webhooks/http-client.js";
import { parseWebhookSettings } from "../../src/webhooks/settings.js";
import { type HostLookup, refusedAddressClass } from "../../src/webhooks/ssrf.js";

/* The outgoing client on its own: TLS to the checked address keeps the host name for SNI and
 * the certificate check; the address classes; the WEBHOOK_* settings. */

const HOST = "hooks.dakiya.test";

describe("webhook HTTPS to a pinned address", () => {
  let dir: string;
  let server: Server;
  let port: number;
  let cert: string;
  const seen: Array<{ servername: string | false | null; host: string | undefined }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "dakiya-tls-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        `/CN=${HOST}`,
        "-addext",
        `subjectAltName=DNS:${HOST}`,
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (request, response) => {
      seen.push({ servername: (request.socket as TLSSocket).servername, host: request.headers.host });
      request.resume();
      request.on("end", () => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const client = (lookup: HostLookup, allowPrivate = true) =>
    createWebhookHttpClient({
      timeoutMs: 5_000,
      guard: () => ({ allowPrivate, lookup }),
      connectionsPerOrigin: 4,
      ca: cert,
    });
  const toLoopback: HostLookup = async () => [{ address: "127.0.0.1", family: 4 }];

  it("sends SNI for the host name and verifies the certificate against it, not the address", async () => {
    const http = client(toLoopback);
    try {
      const result = await http.post(`https://${HOST}:${port}/in`, { "webhook-id": "evt_1" }, "{}");
      expect(result).toMatchObject({ statusCode: 204, error: null });
      expect(seen.at(-1)).toEqual({ servername: HOST, host: `${HOST}:${port}` });
    } finally {
      await http.close();
    }
  });

  it("fails when the certificate is not for the URL's host name", async () => {
    const http = client(toLoopback);
    try {
      const result = await http.post(`https://other.dakiya.test:${port}/in`, {}, "{}");
      expect(result.statusCode).toBeNull();
      expect(result.error).toMatch(/TLS|certificate|altnames/i);
    } finally {
      await http.close();
    }
  });

  it("never connects when the lookup answers with a refused address", async () => {
    const before = seen.length;
    const http = client(toLoopback, false);
    try {
      const result = await http.post(`https://${HOST}:${port}/in`, {}, "{}");
      expect(result).toMatchObject({
        statusCode: null,
        error: `refused: ${HOST} resolves to 127.0.0.1, a loopback address`,
      });
      expect(seen).toHaveLength(before);
    } finally {
      await http.close();
    }
  });
});

describe("address classes", () => {
  it.each([
    ["8.8.8.8", undefined],
    ["93.184.216.34", undefined],
    ["2606:4700:4700::1111", undefined],
    ["::ffff:8.8.8.8", undefined],
    ["64:ff9b::8.8.8.8", undefined],
    ["127.0.0.1", "a loopback address"],
    ["::1", "a loopback address"],
    ["10.255.255.255", "a private address"],
    ["172.15.255.255", undefined],
    ["172.32.0.0", undefined],
    ["100.63.255.255", undefined],
    ["100.128.0.0", undefined],
    ["100.64.0.0", "a carrier-grade NAT address"],
    ["169.254.169.254", "a cloud metadata address"],
    ["fd00:ec2::254", "a cloud metadata address"],
    ["fe80::abcd%eth0", "a link-local address"],
    ["::ffff:7f00:1", "a loopback address (IPv4 127.0.0.1 inside IPv6)"],
    ["::ffff:0:a00:1", "a private address (IPv4 10.0.0.1 inside IPv6)"],
    ["2002:c0a8:0101::1", "a private address (IPv4 192.168.1.1 inside IPv6)"],
    ["64:ff9b:1::1", "a private address"],
    ["255.255.255.255", "the broadcast address"],
    ["240.0.0.1", "a reserved address"],
  ])("%s is %s", (address, expected) => {
    expect(refusedAddressClass(address)).toBe(expected);
  });
});

describe("webhook HTTP: one deadline per attempt, the status of any answer", () => {
  let server: HttpServer;
  let url: string;
  const requests: Array<{ url: string | undefined; body: string; socket: unknown }> = [];
  /** What the server does with the next request. */
  let respond: (response: ServerResponse) => void = (response) => response.writeHead(204).end();

  beforeAll(async () => {
    server = createHttpServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => {
        requests.push({ url: request.url, body, socket: request.socket });
        respond(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const client = (timeoutMs = 5_000) =>
    createWebhookHttpClient({
      timeoutMs,
      guard: () => ({ allowPrivate: true, lookup: async () => [{ address: "127.0.0.1", family: 4 }] }),
      connectionsPerOrigin: 2,
    });

  it("posts the body to the URL's path and query, over kept-alive connections", async () => {
    respond = (response) => response.writeHead(200).end("ok");
    const http = client();
    const before = requests.length;
    try {
      for (let n = 0; n < 10; n++) {
        expect(await http.post(`${url}/hooks?tenant=7`, {}, `{"n":${n}}`)).toMatchObject({
          statusCode: 200,
          error: null,
        });
      }
      const sent = requests.slice(before);
      expect(sent.map((request) => [request.url, request.body])).toEqual(
        Array.from({ length: 10 }, (_, n) => ["/hooks?tenant=7", `{"n":${n}}`]),
      );
      // No more connections than the client's share of the endpoint (2 here).
      expect(new Set(sent.map((request) => request.socket)).size).toBeLessThanOrEqual(2);
    } finally {
      await http.close();
    }
  });

  it("reports the status of an answer with a body past the read limit", async () => {
    respond = (response) => {
      response.writeHead(500);
      response.end(Buffer.alloc(4 * 1024 * 1024, 120));
    };
    const http = client();
    try {
      expect(await http.post(`${url}/large`, {}, "{}")).toMatchObject({ statusCode: 500, error: "HTTP 500" });
    } finally {
      await http.close();
    }
  });

  it("times out an endpoint that answers at once but never finishes its body", async () => {
    const trickle: NodeJS.Timeout[] = [];
    respond = (response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      // A byte every 50 ms, for ever: each read is quick, the whole never ends.
      trickle.push(setInterval(() => response.write("."), 50));
    };
    const http = client(300);
    try {
      const result = await http.post(`${url}/slow`, {}, "{}");
      expect(result).toMatchObject({ statusCode: null, error: "timed out after 300 ms" });
      expect(result.durationMs).toBeGreaterThanOrEqual(290);
      expect(result.durationMs).toBeLessThan(2_000);
    } finally {
      for (const timer of trickle) clearInterval(timer);
      await http.close();
    }
  });

  it("answers an unusable URL with a failed attempt, never a throw", async () => {
    const http = client();
    try {
      expect(await http.post("not a url", {}, "{}")).toMatchObject({
        statusCode: null,
        error: expect.any(String),
      });
    } finally {
      await http.close();
    }
  });
});

describe("WEBHOOK_* settings", () => {
  it("has the contract's defaults", () => {
    expect(parseWebhookSettings({})).toEqual({
      timeoutMs: 10_000,
      retrySchedule: [5, 300, 1800, 7200, 18000, 36000, 36000],
      allowPrivate: false,
      concurrency: 32,
    });
  });

  it("reads a schedule in seconds (decimals too), a timeout and the private-address switch", () => {
    expect(
      parseWebhookSettings({
        WEBHOOK_TIMEOUT_MS: "2500",
        WEBHOOK_RETRY_SCHEDULE: "1, 0.5,30",
        WEBHOOK_ALLOW_PRIVATE: "true",
        WEBHOOK_CONCURRENCY: "4",
      }),
    ).toEqual({ timeoutMs: 2500, retrySchedule: [1, 0.5, 30], allowPrivate: true, concurrency: 4 });
  });

  it.each([
    [{ WEBHOOK_TIMEOUT_MS: "0" }, /WEBHOOK_TIMEOUT_MS/],
    [{ WEBHOOK_RETRY_SCHEDULE: "5,-1" }, /WEBHOOK_RETRY_SCHEDULE/],
    [{ WEBHOOK_RETRY_SCHEDULE: "5,,6" }, /WEBHOOK_RETRY_SCHEDULE/],
    [{ WEBHOOK_RETRY_SCHEDULE: "999999999" }, /WEBHOOK_RETRY_SCHEDULE/],
    [{ WEBHOOK_ALLOW_PRIVATE: "yes" }, /WEBHOOK_ALLOW_PRIVATE must be true or false/],
    [{ WEBHOOK_CONCURRENCY: "0" }, /WEBHOOK_CONCURRENCY/],
    [{ WEBHOOK_CONCURRENCY: "257" }, /WEBHOOK_CONCURRENCY/],
  ])("refuses %o", (env, message) => {
    expect(() => parseWebhookSettings(env)).toThrow(message);
  });
});
