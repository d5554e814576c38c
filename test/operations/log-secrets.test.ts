import { randomBytes, randomInt } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.js";
import { changeBalance } from "../../src/accounts/ledger.js";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { Dialect } from "../../src/db/schema.js";
import { createKey } from "../../src/keys/keys.js";
import { createLogger } from "../../src/lib/logger.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { findLeaks } from "../helpers/leaks.js";
import { rawExchange } from "../helpers/raw-http.js";

/**
 * A session of ordinary and hostile traffic against a listening server logging at `trace`, with
 * every secret it uses recorded; then the captured log is searched for each of them, as text and
 * as bytes in the encodings loggers and serializers write (base64, hex, URL and JSON escapes,
 * pino's byte arrays). API keys, passwords, session cookies, CSRF tokens, OTP codes and phone
 * numbers must appear in none.
 */

const OTP_TEMPLATE = "1107161234567890123";
const SENDER = "DAKIYA";
const FUZZ_RUNS = 60;

function randomDigits(length: number): string {
  let digits = String(randomInt(1, 10));
  while (digits.length < length) digits += String(randomInt(0, 10));
  return digits;
}

function randomMobile(): string {
  return `+91${randomInt(6, 10)}${randomDigits(9).slice(0, 9)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("the logger", () => {
  it("writes of an error only its type, message, code, stack and cause", () => {
    const lines: string[] = [];
    const log = createLogger("trace", { write: (line: string) => void lines.push(line) });
    const password = `pw-${randomBytes(12).toString("hex")}`;
    const cause = Object.assign(new Error("connection lost"), { config: { password } });
    const error = Object.assign(new Error("duplicate key value", { cause }), {
      code: "23505",
      detail: `Key (email)=(${password}) already exists.`,
      rawPacket: Buffer.from(`POST / HTTP/1.1\r\nAuthorization: Bearer ${password}\r\n`),
    });
    log.error({ err: error }, "request failed");
    log.info({
      req: { method: "GET", url: `/v2/balance?api_key=${password}`, headers: { cookie: password } },
    });
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries[0].err).toEqual({
      type: "Error",
      message: "duplicate key value",
      code: "23505",
      stack: expect.stringContaining("duplicate key value"),
      cause: { type: "Error", message: "connection lost", stack: expect.any(String) },
    });
    expect(entries[1].req).toEqual({ method: "GET", route: null });
    expect(findLeaks(lines.join(""), [password])).toEqual([]);
  });
});

describe.each(DIALECTS)("logs at trace level on %s", (dialect: Dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let server: RunningServer;
  const lines: string[] = [];
  const secrets = new Set<string>();

  /** Records `value` as a secret the logs must never show, and returns it. */
  function secret<T extends string>(value: T): T {
    secrets.add(value);
    return value;
  }

  /** A key's secret, and its part after the displayed prefix, which alone would let it be rebuilt. */
  function keySecret(value: string): string {
    secret(value.slice(12));
    return secret(value);
  }

  const password = secret(`pw-${randomBytes(12).toString("base64url")}`);
  const email = secret(`ops-${randomBytes(5).toString("hex")}@example.com`);
  let liveKey: string;
  let sandboxKey: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const log = createLogger("trace", { write: (line: string) => void lines.push(line) });
    ctx = await openTestContext(database.url, { log });
    const account = await createAccount(ctx, { email, password });
    liveKey = keySecret(
      (await createKey(ctx, { accountId: account.id, environment: "live" }, CLI_ORIGIN)).secret,
    );
    sandboxKey = keySecret(
      (await createKey(ctx, { accountId: account.id, environment: "sandbox" }, CLI_ORIGIN)).secret,
    );
    for (const environment of ["live", "sandbox"] as const) {
      await changeBalance(ctx, {
        accountId: account.id,
        environment,
        amount: 1_000_000,
        reason: "credits_added",
        reference: null,
      });
    }
    await registerDlt(ctx, account.id, {
      senders: [SENDER],
      templates: [{ templateId: OTP_TEMPLATE, content: "{#otp#} is your Dakiya code. Do not share it." }],
    });
    await updateOtpSettings(
      ctx,
      account.id,
      "sandbox",
      {
        sms_template_id: OTP_TEMPLATE,
        sms_sender: SENDER,
        resend_cooldown_seconds: 0,
      },
      CLI_ORIGIN,
    );
    server = await startServer(await buildApp(ctx), ctx, { host: "127.0.0.1", port: 0, worker: {} });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  function api(path: string, init: { method?: string; key?: string; body?: unknown; headers?: object } = {}) {
    return fetch(`${server.url}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: {
        ...(init.key === undefined ? {} : { authorization: `Bearer ${init.key}` }),
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        ...init.headers,
      },
      ...(init.body === undefined
        ? {}
        : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
    }).then(async (response) => ({
      status: response.status,
      headers: response.headers,
      text: await response.text(),
    }));
  }

  it("never show a key, password, cookie, CSRF token, OTP code or phone number", async () => {
    // Dashboard: a wrong password, a right one, then signed-in requests with the cookie and token.
    const wrongPassword = secret(`pw-${randomBytes(12).toString("base64url")}`);
    expect((await api("/dashboard/api/session", { body: { email, password: wrongPassword } })).status).toBe(
      401,
    );
    const signIn = await api("/dashboard/api/session", { body: { email, password } });
    expect(signIn.status, signIn.text).toBe(200);
    const cookie = /dakiya_session=([^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")?.[1] ?? "";
    secret(cookie);
    const csrf = secret(JSON.parse(signIn.text).csrf_token as string);
    expect(cookie.length).toBeGreaterThan(16);
    const session = { cookie: `dakiya_session=${cookie}`, "x-csrf-token": csrf };
    expect((await api("/dashboard/api/session", { headers: session })).status).toBe(200);
    const created = await api("/dashboard/api/keys", {
      body: { environment: "sandbox", label: "ci" },
      headers: session,
    });
    expect(created.status, created.text).toBe(201);
    keySecret(JSON.parse(created.text).secret as string);
    const testNumber = secret(randomMobile());
    const testCode = secret(randomDigits(10));
    const settings = await api("/dashboard/api/otp-settings?environment=live", {
      method: "PATCH",
      body: { test_numbers: { [testNumber]: testCode } },
      headers: session,
    });
    expect(settings.status, settings.text).toBe(200);
    const forged = secret(randomBytes(24).toString("base64url"));
    expect(
      (
        await api("/dashboard/api/keys", {
          body: { environment: "live" },
          headers: { ...session, "x-csrf-token": forged },
        })
      ).status,
    ).toBe(403);
    // A password in a body that is not JSON: a parser's message quotes the text it choked on.
    expect(
      (await api("/dashboard/api/session", { body: `{"email":"${email}","password":"${password}"` })).status,
    ).toBe(400);
    // A NUL in the sign-in email (PostgreSQL refuses it), with the password alongside.
    const nulSignIn = await api("/dashboard/api/session", { body: { email: `${email}\u0000`, password } });
    expect(nulSignIn.status).toBeLessThan(600);

    // OTP with an explicit code, a wrong verify and a right one; the inbox by number.
    const phone = secret(randomMobile());
    const code = secret(randomDigits(10));
    const wrongCode = secret(randomDigits(10));
    const sent = await api("/v2/otp/send", { key: sandboxKey, body: { to: phone, code } });
    expect(sent.status, sent.text).toBe(200);
    expect(
      JSON.parse(
        (await api("/v2/otp/verify", { key: sandboxKey, body: { to: phone, code: wrongCode } })).text,
      ),
    ).toMatchObject({ verified: false });
    expect(
      JSON.parse((await api("/v2/otp/verify", { key: sandboxKey, body: { to: phone, code } })).text),
    ).toMatchObject({ verified: true });
    expect(
      (await api(`/v2/sandbox/messages?to=${encodeURIComponent(phone)}`, { key: sandboxKey })).status,
    ).toBe(200);
    const smsPhone = secret(randomMobile());
    const smsCode = secret(randomDigits(10));
    const sms = await api("/v2/sms/send", {
      key: sandboxKey,
      body: { to: smsPhone, sender: SENDER, template_id: OTP_TEMPLATE, variables: { otp: smsCode } },
    });
    expect(sms.status, sms.text).toBe(202);
    // Live test number with its fixed code: nothing is sent, verify takes the fixed code.
    expect((await api("/v2/otp/send", { key: liveKey, body: { to: testNumber } })).status).toBe(200);
    expect(
      JSON.parse(
        (await api("/v2/otp/verify", { key: liveKey, body: { to: testNumber, code: testCode } })).text,
      ),
    ).toMatchObject({ verified: true });

    // Keys and numbers where they do not belong: query strings and paths.
    const queryKey = keySecret(`dk_live_${randomBytes(24).toString("hex")}`);
    await api(`/v2/balance?api_key=${queryKey}`);
    await api(`/v2/balance?api_key=${encodeURIComponent(liveKey)}`, { key: liveKey });
    await api(`/v2/otp/${encodeURIComponent(phone)}`, { key: sandboxKey });
    await api(`/v2/sms/${encodeURIComponent(smsPhone)}?to=${smsPhone}`, { key: sandboxKey });
    await api(`/v2/lookup/${encodeURIComponent(phone)}?password=${password}`, { key: sandboxKey });
    await api(`/${liveKey}`);

    // Requests the HTTP parser refuses: their raw bytes are every header and body at once.
    const rawHead = (method: string, path: string) =>
      `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${liveKey}\r\n` +
      `Cookie: dakiya_session=${cookie}\r\nX-CSRF-Token: ${csrf}\r\nContent-Type: application/json\r\n`;
    const body = JSON.stringify({ email, password, to: phone, code });
    const malformed = [
      `${rawHead("POST", "/dashboard/api/session")}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
      `${rawHead("POST", `/v2/otp/verify?api_key=${sandboxKey}`)}Content-Length: 2\r\nContent-Length: 3\r\n\r\n${body}`,
      `${rawHead("GET", `/v2/sandbox/messages?to=${phone}`)}X-Padding: ${"p".repeat(17_000)}\r\n\r\n`,
      `${rawHead("GET", "/v2/balance")}X-Bad: a\u0000b\r\n\r\n`,
      `${rawHead("POST", "/v2/otp/send")}Content-Length: 2\r\n\r\n{}${body}`,
      `${rawHead("POST", "/v2/otp/verify")}Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
      `BOGUS ${password} HTTP/1.1\r\nAuthorization: Bearer ${sandboxKey}\r\n\r\n`,
    ];
    for (const bytes of malformed) {
      const exchange = await rawExchange(server.url, bytes);
      expect(exchange.responses.length, exchange.text).toBeGreaterThan(0);
    }
    const halfClosed = await rawExchange(
      server.url,
      `${rawHead("POST", "/dashboard/api/session")}Content-Length: ${body.length + 50}\r\n\r\n${body}`,
      { halfClose: true },
    );
    expect(halfClosed.responses.length).toBeGreaterThan(0);

    // Fuzz: the secrets in random places of random requests, some of them malformed.
    const secretList = [...secrets];
    const placed = fc.record({
      path: fc.constantFrom(
        "/v2/otp/send",
        "/v2/otp/verify",
        "/v2/sms/send",
        "/v2/balance",
        "/dashboard/api/session",
        "/dashboard/api/keys",
        "/nowhere",
      ),
      value: fc.constantFrom(...secretList),
      where: fc.constantFrom("query", "path", "header", "authorization", "cookie", "body", "body-key"),
      header: fc.constantFrom(
        "x-api-key",
        "x-csrf-token",
        "idempotency-key",
        "x-forwarded-for",
        "referer",
        "user-agent",
      ),
      framing: fc.constantFrom(
        "fetch",
        "fetch",
        "fetch",
        "cl+te",
        "short-cl",
        "bad-chunk",
        "overflow",
        "half-close",
      ),
    });
    await fc.assert(
      fc.asyncProperty(placed, async ({ path, value, where, header, framing }) => {
        const query =
          where === "query" ? `?api_key=${encodeURIComponent(value)}&to=${encodeURIComponent(value)}` : "";
        const url = where === "path" ? `${path}/${encodeURIComponent(value)}` : `${path}${query}`;
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (where === "header") headers[header] = value;
        if (where === "authorization") headers.authorization = `Bearer ${value}`;
        if (where === "cookie") headers.cookie = `dakiya_session=${value}`;
        const payload =
          where === "body"
            ? JSON.stringify({ to: value, code: value, password: value, email: value })
            : where === "body-key"
              ? JSON.stringify({ [value]: 1 })
              : "{}";
        if (framing === "fetch") {
          const response = await fetch(`${server.url}${url}`, { method: "POST", headers, body: payload });
          await response.arrayBuffer();
          expect(response.status).toBeLessThan(500);
          return;
        }
        const head = `POST ${url} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers)
          .map(([name, v]) => `${name}: ${v}\r\n`)
          .join("")}`;
        const framed = {
          "cl+te": `${head}Content-Length: ${Buffer.byteLength(payload)}\r\nTransfer-Encoding: chunked\r\n\r\n${payload}`,
          "short-cl": `${head}Content-Length: 1\r\n\r\n${payload}`,
          "bad-chunk": `${head}Transfer-Encoding: chunked\r\n\r\nq\r\n${payload}\r\n0\r\n\r\n`,
          overflow: `${head}X-Padding: ${"p".repeat(17_000)}\r\n\r\n${payload}`,
          "half-close": `${head}Content-Length: ${Buffer.byteLength(payload) + 10}\r\n\r\n${payload}`,
        }[framing];
        await rawExchange(server.url, Buffer.from(framed, "utf8"), { halfClose: framing === "half-close" });
      }),
      { numRuns: FUZZ_RUNS },
    );

    // Request lines are written as responses finish; let the last ones land.
    await sleep(100);
    const text = lines.join("");
    const leaks = findLeaks(text, secrets);
    expect(
      leaks.map((leak) => `${leak.encoding} of ${JSON.stringify(leak.secret)} in …${leak.context}…`),
    ).toEqual([]);
    // The log is there and detailed, so an empty log cannot pass for a clean one.
    expect(lines.length).toBeGreaterThan(FUZZ_RUNS);
    expect(text).toContain('"msg":"request completed"');
    expect(text).toContain('"msg":"request refused by the HTTP parser"');
  });
});
