import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.js";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { hashSecret } from "../../src/keys/secrets.js";
import { purgeExpired } from "../../src/maintenance.js";
import { dashboardRequest, type SignedIn, sessionCookie, signIn } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";
import { openTestInstances, type TestInstances, useTestInstances } from "../helpers/instances.js";

let emailCounter = 0;
async function newAccount(ctx: AppContext): Promise<{ id: string; email: string }> {
  emailCounter += 1;
  const email = `dev${emailCounter}-${Date.now()}@example.com`;
  const account = await createAccount(ctx, { email, password: TEST_PASSWORD });
  return { id: account.id, email };
}

describe.each(DIALECTS)("dashboard first-account set-up on %s", (dialect) => {
  const instances = useTestInstances(dialect, { secondInstance: dialect === "postgres" });
  let app: App;
  let otherApp: App;
  beforeAll(() => {
    ({ app, otherApp } = instances);
  });

  it("lets the first visitor of an empty installation create one account, and nobody after", async () => {
    const before = await app.inject({ method: "GET", url: "/dashboard/api/setup" });
    expect(before.json()).toEqual({ needed: true });
    const weak = await app.inject({
      method: "POST",
      url: "/dashboard/api/setup",
      payload: { email: "owner@example.com", password: "short" },
    });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error.param).toBe("password");

    // Several set-ups at once, across instances on PostgreSQL: exactly one account results.
    const attempts = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        (i % 2 === 0 ? app : otherApp).inject({
          method: "POST",
          url: "/dashboard/api/setup",
          payload: { email: `owner${i}@example.com`, password: TEST_PASSWORD },
        }),
      ),
    );
    const created = attempts.filter((r) => r.statusCode === 201);
    expect(created).toHaveLength(1);
    for (const refused of attempts.filter((r) => r.statusCode !== 201)) {
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error.code).toBe("already_set_up");
      expect(sessionCookie(refused)).toBeUndefined();
    }
    const winner = created[0];
    if (!winner) throw new Error("no set-up succeeded");
    const cookie = sessionCookie(winner);
    expect(cookie).toBeDefined();
    const session = await app.inject({
      method: "GET",
      url: "/dashboard/api/session",
      headers: { cookie: cookie ?? "" },
    });
    expect(session.statusCode).toBe(200);
    expect(session.json().account.email).toBe(winner.json().account.email);
    expect((await app.inject({ method: "GET", url: "/dashboard/api/setup" })).json()).toEqual({
      needed: false,
    });
  });

  it("refuses set-up once an account exists, before looking at the fields", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/dashboard/api/setup",
      payload: { email: "x@example.com", password: "short" },
    });
    expect(response.statusCode).toBe(409);
  });
});

describe.each(DIALECTS)("dashboard API on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  describe("sign-in and sessions", () => {
    it("signs in with the account's email and password into an HttpOnly, SameSite=Strict cookie", async () => {
      const account = await newAccount(ctx);
      const response = await app.inject({
        method: "POST",
        url: "/dashboard/api/session",
        payload: { email: account.email.toUpperCase(), password: TEST_PASSWORD },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        account: { id: account.id, require_two_factor: false },
        member: {
          id: expect.stringMatching(/^mbr_/),
          email: account.email,
          role: "owner",
          two_factor: false,
        },
        allowed: expect.arrayContaining(["GET /dashboard/api/members", "POST /dashboard/api/keys"]),
        csrf_token: expect.any(String),
      });
      const setCookie = String(response.headers["set-cookie"]);
      expect(setCookie).toMatch(/^dakiya_session=[0-9A-Za-z]{43};/);
      expect(setCookie).toContain("HttpOnly");
      expect(setCookie).toContain("SameSite=Strict");
      expect(setCookie).toContain("Path=/");
      expect(setCookie).not.toContain("Secure");

      const token = (sessionCookie(response) ?? "").split("=")[1] ?? "";
      const rows = await ctx.db.selectFrom("dashboard_sessions").selectAll().execute();
      expect(rows.some((row) => row.token_hash === hashSecret(token))).toBe(true);
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    it("marks the cookie Secure over HTTPS", async () => {
      const account = await newAccount(ctx);
      const response = await app.inject({
        method: "POST",
        url: "/dashboard/api/session",
        payload: { email: account.email, password: TEST_PASSWORD },
        headers: { "x-forwarded-proto": "https" },
      });
      // Without a trusted proxy the forwarded header changes nothing; PUBLIC_URL=https://… does.
      expect(String(response.headers["set-cookie"])).not.toContain("Secure");
      ctx.publicUrl = "https://dakiya.example.com";
      try {
        const secure = await app.inject({
          method: "POST",
          url: "/dashboard/api/session",
          payload: { email: account.email, password: TEST_PASSWORD },
        });
        expect(String(secure.headers["set-cookie"])).toContain("Secure");
      } finally {
        ctx.publicUrl = undefined;
      }
    });

    it("answers a wrong password and an unknown email alike, with no session", async () => {
      const account = await newAccount(ctx);
      for (const payload of [
        { email: account.email, password: "not the password" },
        { email: "nobody@example.com", password: TEST_PASSWORD },
      ]) {
        const response = await app.inject({ method: "POST", url: "/dashboard/api/session", payload });
        expect(response.statusCode).toBe(401);
        expect(response.json().error).toMatchObject({
          code: "invalid_credentials",
          message: "The email or password is not right.",
        });
        expect(response.headers["set-cookie"]).toBeUndefined();
      }
    });

    it("limits sign-in attempts per email address, whatever the password, until the window passes", async () => {
      const account = await newAccount(ctx);
      const attempt = (password: string) =>
        app.inject({
          method: "POST",
          url: "/dashboard/api/session",
          payload: { email: account.email, password },
          remoteAddress: `10.1.${emailCounter}.1`,
        });
      for (let i = 0; i < 10; i++) expect((await attempt(`guess ${i}`)).statusCode).toBe(401);
      const limited = await attempt(TEST_PASSWORD);
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error.code).toBe("rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
      expect(limited.headers["set-cookie"]).toBeUndefined();

      instances.clock.advance(15 * 60);
      expect((await attempt(TEST_PASSWORD)).statusCode).toBe(200);
    });

    it("clears an email's count on success, and limits a client address across emails", async () => {
      const account = await newAccount(ctx);
      const from = (email: string, password: string, remoteAddress: string) =>
        app.inject({
          method: "POST",
          url: "/dashboard/api/session",
          payload: { email, password },
          remoteAddress,
        });
      for (let i = 0; i < 9; i++) await from(account.email, "wrong password", "10.2.0.1");
      expect((await from(account.email, TEST_PASSWORD, "10.2.0.1")).statusCode).toBe(200);
      for (let i = 0; i < 9; i++) {
        expect((await from(account.email, "wrong password", "10.2.0.2")).statusCode).toBe(401);
      }

      instances.clock.advance(15 * 60);
      const attempts = await Promise.all(
        Array.from({ length: 60 }, (_, i) => from(`guess${i}@example.com`, "whatever it is", "10.3.0.1")),
      );
      const statuses = attempts.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 401)).toHaveLength(50);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      expect((await from(account.email, TEST_PASSWORD, "10.3.0.1")).statusCode).toBe(429);
      expect((await from(account.email, TEST_PASSWORD, "10.3.0.9")).statusCode).toBe(200);
    });

    it("refuses routes without a live session", async () => {
      const account = await newAccount(ctx);
      for (const cookie of [undefined, "dakiya_session=not-a-session"]) {
        const response = await app.inject({
          method: "GET",
          url: "/dashboard/api/keys?environment=sandbox",
          headers: cookie ? { cookie } : {},
        });
        expect(response.statusCode).toBe(401);
        expect(response.json().error.code).toBe("not_signed_in");
      }

      const session = await signIn(app, account.email, TEST_PASSWORD);
      const read = () => dashboardRequest(app, session, "GET", "/dashboard/api/session");
      expect((await read()).statusCode).toBe(200);
      instances.clock.advance(11 * 3600);
      expect((await read()).statusCode).toBe(200); // used within 12 hours: the session goes on
      instances.clock.advance(11 * 3600);
      expect((await read()).statusCode).toBe(200);
      instances.clock.advance(12 * 3600 + 1);
      expect((await read()).json().error.code).toBe("not_signed_in");
      expect((await purgeExpired(ctx)).sessions).toBeGreaterThanOrEqual(1);
    });

    it("ends a session 7 days after sign-in however much it is used", async () => {
      const account = await newAccount(ctx);
      const session = await signIn(app, account.email, TEST_PASSWORD);
      for (let hour = 0; hour < 7 * 24 - 10; hour += 10) {
        instances.clock.advance(10 * 3600);
        expect((await dashboardRequest(app, session, "GET", "/dashboard/api/session")).statusCode).toBe(200);
      }
      instances.clock.advance(10 * 3600);
      expect((await dashboardRequest(app, session, "GET", "/dashboard/api/session")).statusCode).toBe(401);
    });

    it("signs out: the session is gone and the cookie cleared", async () => {
      const account = await newAccount(ctx);
      const session = await signIn(app, account.email, TEST_PASSWORD);
      const out = await dashboardRequest(app, session, "DELETE", "/dashboard/api/session");
      expect(out.statusCode).toBe(204);
      expect(String(out.headers["set-cookie"])).toMatch(/^dakiya_session=;.*Expires=Thu, 01 Jan 1970/);
      expect((await dashboardRequest(app, session, "GET", "/dashboard/api/session")).statusCode).toBe(401);
    });
  });

  describe("CSRF", () => {
    let session: SignedIn;
    beforeAll(async () => {
      const account = await newAccount(ctx);
      session = await signIn(app, account.email, TEST_PASSWORD);
    });

    it("refuses a change without the session's CSRF token, or with another's", async () => {
      const account = await newAccount(ctx);
      const other = await signIn(app, account.email, TEST_PASSWORD);
      for (const token of [undefined, "", other.csrf, `${session.csrf}x`]) {
        const response = await app.inject({
          method: "POST",
          url: "/dashboard/api/keys",
          headers: { cookie: session.cookie, ...(token === undefined ? {} : { "x-csrf-token": token }) },
          payload: { environment: "sandbox" },
        });
        expect(response.statusCode).toBe(403);
        expect(response.json().error.code).toBe("csrf_rejected");
      }
      const keys = await dashboardRequest(app, session, "GET", "/dashboard/api/keys?environment=sandbox");
      expect(keys.json().data).toEqual([]);
    });

    it("refuses requests from another site's page, sign-in included", async () => {
      const account = await newAccount(ctx);
      const signInFromElsewhere = await app.inject({
        method: "POST",
        url: "/dashboard/api/session",
        headers: { origin: "https://evil.example", host: "127.0.0.1:3000" },
        payload: { email: account.email, password: TEST_PASSWORD },
      });
      expect(signInFromElsewhere.statusCode).toBe(403);
      expect(signInFromElsewhere.headers["set-cookie"]).toBeUndefined();

      const sameSite = await app.inject({
        method: "POST",
        url: "/dashboard/api/keys",
        headers: {
          cookie: session.cookie,
          "x-csrf-token": session.csrf,
          origin: "http://127.0.0.1:3000",
          host: "127.0.0.1:3000",
        },
        payload: { environment: "sandbox" },
      });
      expect(sameSite.statusCode).toBe(201);
    });

    it("takes JSON only, so a cross-site form cannot post", async () => {
      const response = await app.inject({
        method: "POST",
        url: "/dashboard/api/session",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: "email=a%40b.c&password=x",
      });
      expect(response.statusCode).toBe(415);
    });
  });

  describe("API keys", () => {
    it("creates a key shown once, lists it without its secret, and deletes it at once", async () => {
      const account = await newAccount(ctx);
      const session = await signIn(app, account.email, TEST_PASSWORD);
      const created = await dashboardRequest(app, session, "POST", "/dashboard/api/keys", {
        environment: "sandbox",
        label: "laptop",
      });
      expect(created.statusCode).toBe(201);
      const key = created.json();
      expect(key).toMatchObject({ environment: "sandbox", label: "laptop", last_used_at: null });
      expect(key.secret).toMatch(/^dk_sandbox_[0-9A-Za-z]{43}$/);
      expect(key.prefix).toBe(key.secret.slice(0, 12));

      const balance = () =>
        app.inject({ method: "GET", url: "/v2/balance", headers: { authorization: `Bearer ${key.secret}` } });
      expect((await balance()).json()).toEqual({
        environment: "sandbox",
        balance: "0.0000",
        currency: "INR",
      });

      const listed = await dashboardRequest(app, session, "GET", "/dashboard/api/keys?environment=sandbox");
      expect(listed.json().data).toEqual([
        {
          id: key.id,
          environment: "sandbox",
          label: "laptop",
          prefix: key.prefix,
          last_four: key.secret.slice(-4),
          created_at: key.created_at,
          last_used_at: expect.any(String),
          expires_at: null,
          rate_limit: null,
          scope: "full",
          allowed_ips: null,
        },
      ]);
      // The first 12 characters and the last 4 show; nothing of the 27 between them.
      expect(key.secret.startsWith(key.prefix)).toBe(true);
      for (let start = 12; start + 8 <= key.secret.length - 4; start++) {
        expect(listed.body).not.toContain(key.secret.slice(start, start + 8));
      }
      const live = await dashboardRequest(app, session, "GET", "/dashboard/api/keys?environment=live");
      expect(live.json().data).toEqual([]);

      const deleted = await dashboardRequest(app, session, "DELETE", `/dashboard/api/keys/${key.id}`);
      expect(deleted.statusCode).toBe(204);
      expect((await balance()).json().error.code).toBe("invalid_api_key");
    });

    it("rotates with the grace periods of the API, showing the new secret once", async () => {
      const account = await newAccount(ctx);
      const session = await signIn(app, account.email, TEST_PASSWORD);
      const old = (
        await dashboardRequest(app, session, "POST", "/dashboard/api/keys", {
          environment: "live",
          label: "prod",
        })
      ).json();
      const refused = await dashboardRequest(app, session, "POST", `/dashboard/api/keys/${old.id}/rotate`, {
        grace_seconds: 60,
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.param).toBe("grace_seconds");

      const rotated = await dashboardRequest(app, session, "POST", `/dashboard/api/keys/${old.id}/rotate`, {
        grace_seconds: 3600,
      });
      expect(rotated.statusCode).toBe(200);
      const { key, rotated: outgoing } = rotated.json();
      expect(key).toMatchObject({
        environment: "live",
        label: "prod",
        secret: expect.stringMatching(/^dk_live_/),
      });
      expect(outgoing).toMatchObject({ id: old.id, expires_at: expect.any(String) });
      const balanceWith = (secret: string) =>
        app.inject({ method: "GET", url: "/v2/balance", headers: { authorization: `Bearer ${secret}` } });
      expect((await balanceWith(old.secret)).statusCode).toBe(200);
      expect((await balanceWith(key.secret)).statusCode).toBe(200);
      instances.clock.advance(3601);
      expect((await balanceWith(old.secret)).statusCode).toBe(401);
    });

    it("never lets one account touch another's keys", async () => {
      const owner = await signIn(app, (await newAccount(ctx)).email, TEST_PASSWORD);
      const intruder = await signIn(app, (await newAccount(ctx)).email, TEST_PASSWORD);
      const key = (
        await dashboardRequest(app, owner, "POST", "/dashboard/api/keys", { environment: "sandbox" })
      ).json();
      for (const [method, url, body] of [
        ["DELETE", `/dashboard/api/keys/${key.id}`, undefined],
        ["POST", `/dashboard/api/keys/${key.id}/rotate`, { grace_seconds: 0 }],
      ] as const) {
        const response = await dashboardRequest(app, intruder, method, url, body);
        expect(response.statusCode).toBe(404);
      }
      const mine = await dashboardRequest(app, intruder, "GET", "/dashboard/api/keys?environment=sandbox");
      expect(mine.json().data).toEqual([]);
      const still = await app.inject({
        method: "GET",
        url: "/v2/balance",
        headers: { authorization: `Bearer ${key.secret}` },
      });
      expect(still.statusCode).toBe(200);
    });

    it("asks for the environment and checks it", async () => {
      const session = await signIn(app, (await newAccount(ctx)).email, TEST_PASSWORD);
      for (const url of ["/dashboard/api/keys", "/dashboard/api/keys?environment=test"]) {
        const response = await dashboardRequest(app, session, "GET", url);
        expect(response.statusCode).toBe(400);
        expect(response.json().error.param).toBe("environment");
      }
    });
  });

  describe("overview, messages and the sandbox inbox", () => {
    it("shows both balances, tops up sandbox credits, and lists an environment's messages", async () => {
      const account = await newAccount(ctx);
      const session = await signIn(app, account.email, TEST_PASSWORD);
      const topUp = await dashboardRequest(app, session, "POST", "/dashboard/api/sandbox/credits", {
        amount: "100.00",
      });
      expect(topUp.json()).toEqual({ environment: "sandbox", balance: "100.0000", currency: "INR" });
      for (const amount of ["0", "-5", "abc", "10000.0001"]) {
        const bad = await dashboardRequest(app, session, "POST", "/dashboard/api/sandbox/credits", {
          amount,
        });
        expect(bad.statusCode).toBe(400);
        expect(bad.json().error.param).toBe("amount");
      }

      for (const sender of ["DAKIYA"]) {
        await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender });
      }
      const template = await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
        template_id: "1107161234567890123",
        entity_id: "1101456789012345678",
        name: "login",
        category: "transactional",
        senders: ["DAKIYA"],
        content: "Your code is {#var#}. Valid for {#var#} minutes.",
      });
      expect(template.statusCode).toBe(201);
      expect(template.json().placeholders).toEqual(["var1", "var2"]);
      const key = (
        await dashboardRequest(app, session, "POST", "/dashboard/api/keys", { environment: "sandbox" })
      ).json();
      const send = (to: string) =>
        app.inject({
          method: "POST",
          url: "/v2/sms/send",
          headers: { authorization: `Bearer ${key.secret}` },
          payload: {
            to,
            sender: "DAKIYA",
            template_id: "1107161234567890123",
            variables: { var1: "4821", var2: "10" },
          },
        });
      // Each is delivered before the next is sent, so the inbox has an order to show.
      const sendAndDeliver = async (to: string) => {
        const message = (await send(to)).json();
        await drainQueue(ctx);
        instances.clock.advance(1);
        return message;
      };
      const first = await sendAndDeliver("+919876543210");
      const failing = await sendAndDeliver("+919999999933");
      const third = await sendAndDeliver("+919876543211");

      const overview = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/overview?environment=sandbox",
      );
      expect(overview.json()).toMatchObject({
        balances: { live: "0.0000", sandbox: "99.5000" },
        currency: "INR",
      });
      expect(overview.json().messages.map((m: { id: string }) => m.id)).toEqual([
        third.id,
        failing.id,
        first.id,
      ]);
      const liveOverview = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/overview?environment=live",
      );
      expect(liveOverview.json().messages).toEqual([]);

      const list = (query: string) =>
        dashboardRequest(app, session, "GET", `/dashboard/api/messages?environment=sandbox${query}`);
      expect((await list("&status=failed")).json().data.map((m: { id: string }) => m.id)).toEqual([
        failing.id,
      ]);
      expect((await list("&to=%2B919876543210")).json().data.map((m: { id: string }) => m.id)).toEqual([
        first.id,
      ]);
      expect((await list("&to=+919876543210")).json().data.map((m: { id: string }) => m.id)).toEqual([
        first.id,
      ]);
      expect((await list("&channel=voice")).json().data).toEqual([]);
      expect((await list("&to=987")).json().error.param).toBe("to");
      const page1 = (await list("&limit=2")).json();
      expect(page1.has_more).toBe(true);
      const page2 = (await list(`&limit=2&before=${page1.data[1].id}`)).json();
      expect(page2).toEqual({ data: [expect.objectContaining({ id: first.id })], has_more: false });

      const detail = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/messages/${first.id}?environment=sandbox`,
      );
      expect(detail.json()).toMatchObject({
        id: first.id,
        status: "delivered",
        text: "Your code is 4821. Valid for 10 minutes.",
        segments: 1,
        cost: "0.2500",
        attempts: 1,
        carrier_message_ids: [expect.any(String)],
      });
      expect(detail.json().history.map((h: { status: string }) => h.status)).toEqual([
        "queued",
        "submitted",
        "delivered",
      ]);
      const failedDetail = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/messages/${failing.id}?environment=sandbox`,
      );
      expect(failedDetail.json()).toMatchObject({ status: "failed", error_code: "carrier_rejected" });
      expect(
        (await dashboardRequest(app, session, "GET", `/dashboard/api/messages/${first.id}?environment=live`))
          .statusCode,
      ).toBe(404);

      const inbox = await dashboardRequest(app, session, "GET", "/dashboard/api/sandbox/messages");
      expect(inbox.json().data.map((m: { message_id: string }) => m.message_id)).toEqual([
        third.id,
        first.id,
      ]);

      const stranger = await signIn(app, (await newAccount(ctx)).email, TEST_PASSWORD);
      expect(
        (
          await dashboardRequest(
            app,
            stranger,
            "GET",
            `/dashboard/api/messages/${first.id}?environment=sandbox`,
          )
        ).statusCode,
      ).toBe(404);
      expect(
        (await dashboardRequest(app, stranger, "GET", "/dashboard/api/sandbox/messages")).json().data,
      ).toEqual([]);
    });
  });

  describe("templates, senders and OTP settings", () => {
    it("registers, switches and refuses with the field at fault", async () => {
      const session = await signIn(app, (await newAccount(ctx)).email, TEST_PASSWORD);
      const badSender = await dashboardRequest(app, session, "POST", "/dashboard/api/senders", {
        sender: "DK",
      });
      expect(badSender.statusCode).toBe(400);
      expect(badSender.json().error.param).toBe("sender");
      expect(
        (await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender: "dakiya" })).json(),
      ).toMatchObject({ sender: "DAKIYA" });

      const template = {
        template_id: "1107160000000000001",
        entity_id: "1101456789012345678",
        name: "otp",
        category: "transactional",
        senders: ["DAKIYA"],
        content: "Your OTP is {#otp#}. Do not share it.",
      };
      const unknownSender = await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
        ...template,
        senders: ["OTHERS"],
      });
      expect(unknownSender.json().error.param).toBe("senders");
      expect(
        (await dashboardRequest(app, session, "POST", "/dashboard/api/templates", template)).statusCode,
      ).toBe(201);
      const off = await dashboardRequest(
        app,
        session,
        "POST",
        `/dashboard/api/templates/${template.template_id}/status`,
        { status: "inactive" },
      );
      expect(off.json().status).toBe("inactive");
      const listed = await dashboardRequest(app, session, "GET", "/dashboard/api/templates");
      expect(listed.json().data).toEqual([
        expect.objectContaining({ template_id: template.template_id, status: "inactive" }),
      ]);

      const defaults = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/otp-settings?environment=sandbox",
      );
      expect(defaults.json()).toMatchObject({ expiry_seconds: 600, length: 6, sms_template_id: null });
      const saved = await dashboardRequest(
        app,
        session,
        "PATCH",
        "/dashboard/api/otp-settings?environment=sandbox",
        {
          length: 4,
          sms_template_id: template.template_id,
          sms_sender: "DAKIYA",
          whatsapp_template: "",
          test_numbers: { "+919000000001": "1234" },
        },
      );
      expect(saved.statusCode).toBe(200);
      expect(saved.json()).toMatchObject({ length: 4, sms_sender: "DAKIYA", whatsapp_template: null });
      const live = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/otp-settings?environment=live",
      );
      expect(live.json()).toMatchObject({ length: 6, sms_template_id: null, test_numbers: {} });

      const outOfRange = await dashboardRequest(
        app,
        session,
        "PATCH",
        "/dashboard/api/otp-settings?environment=sandbox",
        { expiry_seconds: 5 },
      );
      expect(outOfRange.statusCode).toBe(400);
      expect(outOfRange.json().error.param).toBe("expiry_seconds");
      const badNumber = await dashboardRequest(
        app,
        session,
        "PATCH",
        "/dashboard/api/otp-settings?environment=sandbox",
        { test_numbers: { "12345": "1234" } },
      );
      expect(badNumber.json().error.param).toBe("test_numbers");
    });
  });
});

describe("serving the dashboard app", () => {
  let instances: TestInstances | undefined;
  let app: App;
  let webRoot: string;

  beforeAll(async () => {
    webRoot = mkdtempSync(join(tmpdir(), "dakiya-web-"));
    writeFileSync(join(webRoot, "index.html"), "<!doctype html><title>Dakiya</title><div id=root></div>");
    instances = await openTestInstances("sqlite", { secondInstance: false });
    app = await buildApp(instances.ctx, { webRoot });
  });
  afterAll(async () => {
    await app?.close();
    await instances?.close();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it("serves the app at / and at its own page addresses, and keeps API 404s as JSON", async () => {
    const html = { accept: "text/html,application/xhtml+xml" };
    for (const url of ["/", "/developers/keys", "/messages/msg_123?environment=sandbox"]) {
      const page = await app.inject({ method: "GET", url, headers: html });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain("<title>Dakiya</title>");
      expect(page.headers["x-frame-options"]).toBe("DENY");
      expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    }
    for (const url of ["/v2/nothing", "/dashboard/api/nothing"]) {
      const missing = await app.inject({ method: "GET", url, headers: html });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe("not_found");
    }
    const notHtml = await app.inject({ method: "GET", url: "/developers/keys" });
    expect(notHtml.statusCode).toBe(404);
  });

  it("says how to build the app when it is not built", async () => {
    const bare = await buildApp(instances?.ctx as AppContext, { webRoot: join(webRoot, "missing") });
    try {
      const response = await bare.inject({ method: "GET", url: "/" });
      expect(response.statusCode).toBe(503);
      expect(response.body).toContain("npm run build");
    } finally {
      await bare.close();
    }
  });
});
