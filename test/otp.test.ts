import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import type { AppContext } from "../src/context.js";
import type { Environment } from "../src/db/schema.js";
import type { Carrier, OutboundMessage } from "../src/delivery/carrier.js";
import type { App } from "../src/http/types.js";
import { createKey } from "../src/keys/keys.js";
import { createLogger } from "../src/logger.js";
import { generateCode } from "../src/otp/codes.js";
import { sendDueFallbacks } from "../src/otp/fallback.js";
import { type OtpSettings, updateOtpSettings } from "../src/otp/settings.js";
import { openTestContext, TestClock } from "./helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "./helpers/database.js";
import { drainQueue } from "./helpers/delivery.js";
import { registerDlt } from "./helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "./helpers/fixtures.js";

/** A 19-digit DLT template id with exactly one placeholder, {#otp#}. */
const OTP_TEMPLATE = "1107161234567890123";
const OTP_CONTENT = "{#otp#} is your Dakiya code. Do not share it.";

/** ₹100 in 1/10,000 INR. */
const HUNDRED_RUPEES = 1_000_000;

/** Sandbox test numbers of API.md §7. */
const INVALID_NUMBER = "+919999999911";
const DND_BLOCKED = "+919999999922";
const CARRIER_REJECTED = "+919999999933";
const NO_RECEIPT = "+919999999944";

type Body = Record<string, unknown>;

interface OtpResponse {
  id: string;
  status: string;
  environment: Environment;
  to: string;
  channel: string;
  expires_at: string;
  resend_available_at: string;
  attempts_remaining: number;
  sends: number;
  message_id: string | null;
}

interface OtpDetails {
  id: string;
  status: string;
  environment: Environment;
  to: string;
  channel: string;
  expires_at: string;
  attempts_remaining: number;
  sends: number;
  created_at: string;
  deliveries: Array<{
    message_id: string;
    channel: string;
    fallback: boolean;
    status: string;
    created_at: string;
  }>;
}

interface VerifyResponse {
  verified: boolean;
  reason: string;
  attempts_remaining: number;
}

interface InboxItem {
  id: string;
  message_id: string;
  channel: string;
  to: string;
  text: string;
  created_at: string;
}

/** A distinct, valid Indian mobile for every call. */
let numbers = 0;
function nextNumber(): string {
  numbers += 1;
  return `+9198${String(numbers).padStart(8, "0")}`;
}

/** A code of the same length that is certainly not `code`. */
function wrong(code: string): string {
  return `${code.slice(0, -1)}${code.endsWith("0") ? "1" : "0"}`;
}

function isoIn(clock: TestClock, seconds: number): string {
  return new Date(clock.now().getTime() + seconds * 1000).toISOString();
}

/** The code a sandbox delivery carried, read from its text the way a developer would. */
function codeIn(item: InboxItem): string {
  const patterns: Record<string, RegExp> = {
    sms: /^(\d{4,10}) is your Dakiya code\. Do not share it\.$/,
    whatsapp: /^(\d{4,10}) is your verification code\./,
    voice: /^Your verification code is ((?:\d, )*\d)\. Your verification code is \1\.$/,
  };
  const match = patterns[item.channel]?.exec(item.text);
  if (!match?.[1]) throw new Error(`no code in ${item.channel} text: ${item.text}`);
  return match[1].replace(/, /g, "");
}

/** A live carrier that records what it is given (the code travels in `otp`) and accepts everything. */
function recordingCarrier(name: string): { carrier: Carrier; sent: OutboundMessage[] } {
  const sent: OutboundMessage[] = [];
  return {
    sent,
    carrier: {
      name,
      async send(message) {
        sent.push(message);
        return { outcome: "accepted", carrierMessageIds: [`${name}-${message.id}`] };
      },
    },
  };
}

describe.each(DIALECTS)("OTP on %s", (dialect) => {
  let database: TestDatabase;
  let clock: TestClock;
  let ctx: AppContext;
  let app: App;
  /** Every log line of the main context, at trace level. */
  const logLines: string[] = [];
  /** Other processes on the same database and clock (other limits, live carriers, a second instance). */
  const others: Array<{ ctx: AppContext; app: App }> = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    clock = new TestClock();
    const log = createLogger("trace", { write: (line: string) => void logLines.push(line) });
    ctx = await openTestContext(database.url, { clock, log });
    app = await buildApp(ctx);
  });

  afterAll(async () => {
    for (const other of others) {
      await other.app.close();
      await other.ctx.close();
    }
    await app?.close();
    await ctx?.close();
    await database?.drop();
  });

  async function openOther(
    options: Parameters<typeof openTestContext>[1] = {},
  ): Promise<{ ctx: AppContext; app: App }> {
    const otherCtx = await openTestContext(database.url, { clock, ...options });
    const other = { ctx: otherCtx, app: await buildApp(otherCtx) };
    others.push(other);
    return other;
  }

  /**
   * An account with a key in `environment`, credits there, the OTP template and sender registered
   * and set in its OTP settings (unless `settings` is null).
   */
  async function account(
    options: { environment?: Environment; credits?: number; settings?: Partial<OtpSettings> | null } = {},
  ) {
    const environment = options.environment ?? "sandbox";
    const created = await createAccountWithKey(ctx, environment, options.credits ?? HUNDRED_RUPEES);
    await registerDlt(ctx, created.accountId, {
      senders: ["DAKIYA"],
      templates: [{ templateId: OTP_TEMPLATE, content: OTP_CONTENT }],
    });
    if (options.settings !== null) {
      await updateOtpSettings(ctx, created.accountId, environment, {
        sms_template_id: OTP_TEMPLATE,
        sms_sender: "DAKIYA",
        ...options.settings,
      });
    }
    return created;
  }

  function send(secret: string, body: Body, options: { target?: App; idempotencyKey?: string } = {}) {
    return (options.target ?? app).inject({
      method: "POST",
      url: "/v2/otp/send",
      payload: JSON.stringify(body),
      headers: {
        "content-type": "application/json",
        ...bearer(secret),
        ...(options.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey }),
      },
    });
  }

  async function sendOk(secret: string, body: Body, target: App = app): Promise<OtpResponse> {
    const response = await send(secret, body, { target });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<OtpResponse>();
  }

  async function verify(secret: string, to: string, code: unknown, target: App = app) {
    return target.inject({
      method: "POST",
      url: "/v2/otp/verify",
      payload: JSON.stringify({ to, code }),
      headers: { "content-type": "application/json", ...bearer(secret) },
    });
  }

  async function verifyOk(
    secret: string,
    to: string,
    code: string,
    target: App = app,
  ): Promise<VerifyResponse> {
    const response = await verify(secret, to, code, target);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<VerifyResponse>();
  }

  function getOtp(secret: string, id: string, target: App = app) {
    return target.inject({
      method: "GET",
      url: `/v2/otp/${encodeURIComponent(id)}`,
      headers: bearer(secret),
    });
  }

  async function otpDetails(secret: string, id: string): Promise<OtpDetails> {
    const response = await getOtp(secret, id);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<OtpDetails>();
  }

  function getSms(secret: string, id: string) {
    return app.inject({ method: "GET", url: `/v2/sms/${encodeURIComponent(id)}`, headers: bearer(secret) });
  }

  /** The sandbox inbox for one number, newest first. */
  async function inboxOf(secret: string, to: string): Promise<InboxItem[]> {
    const response = await app.inject({
      method: "GET",
      url: `/v2/sandbox/messages?to=${encodeURIComponent(to)}&limit=100`,
      headers: bearer(secret),
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: InboxItem[] }>().data;
  }

  /** Runs the worker, then reads the code a delivery message carried from the sandbox inbox. */
  async function deliveredCode(secret: string, to: string, messageId: string | null): Promise<string> {
    await drainQueue(ctx);
    const item = (await inboxOf(secret, to)).find((m) => m.message_id === messageId);
    if (!item) throw new Error(`message ${messageId} is not in the inbox of ${to}`);
    return codeIn(item);
  }

  /** Sends an OTP by SMS to a fresh number and reads its code from the inbox. */
  async function sentOtp(
    secret: string,
    body: Body = {},
  ): Promise<{ otp: OtpResponse; code: string; to: string }> {
    const to = (body.to as string | undefined) ?? nextNumber();
    const otp = await sendOk(secret, { to, ...body });
    return { otp, to, code: await deliveredCode(secret, to, otp.message_id) };
  }

  /** The account's charges and refunds in time order (those of one instant by reason, then message). */
  async function ledgerOf(accountId: string, environment: Environment = "sandbox") {
    const rows = await ctx.db
      .selectFrom("ledger_entries")
      .select(["amount", "reason", "reference"])
      .where("account_id", "=", accountId)
      .where("environment", "=", environment)
      .orderBy("created_at")
      .orderBy("reason")
      .orderBy("reference")
      .execute();
    return rows
      .map((row) => ({ ...row, amount: Number(row.amount) }))
      .filter((e) => e.reason !== "credits_added");
  }

  /** Everything a send could change for an account: balances, ledger, messages, OTPs. */
  async function stateOf(accountId: string) {
    const [balances, ledger, messages, otps] = await Promise.all([
      ctx.db
        .selectFrom("balances")
        .select(["environment", "balance"])
        .where("account_id", "=", accountId)
        .orderBy("environment")
        .execute(),
      ctx.db
        .selectFrom("ledger_entries")
        .select("id")
        .where("account_id", "=", accountId)
        .orderBy("id")
        .execute(),
      ctx.db.selectFrom("messages").select("id").where("account_id", "=", accountId).orderBy("id").execute(),
      ctx.db
        .selectFrom("otps")
        .select(["id", "status", "sends", "attempts"])
        .where("account_id", "=", accountId)
        .orderBy("id")
        .execute(),
    ]);
    return {
      balances: balances.map((row) => `${row.environment}:${Number(row.balance)}`),
      ledger: ledger.map((row) => row.id),
      messages: messages.map((row) => row.id),
      otps: otps.map((row) => `${row.id}:${row.status}:${Number(row.sends)}:${Number(row.attempts)}`),
    };
  }

  /** Every row of every table but the sandbox inbox (which shows codes by contract), as JSON. */
  async function dumpDatabase(): Promise<Record<string, string>> {
    const tables =
      dialect === "sqlite"
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(ctx.db)
        : await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
            ctx.db,
          );
    const dump: Record<string, string> = {};
    for (const { name } of tables.rows) {
      if (name === "sandbox_messages") continue;
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(ctx.db);
      dump[name] = JSON.stringify(rows.rows);
    }
    return dump;
  }

  describe("send", () => {
    it("answers with the contract's fields and delivers the code to the sandbox inbox only", async () => {
      const { accountId, secret } = await account();
      const to = nextNumber();
      const sentAt = clock.now().toISOString();

      const response = await send(secret, { to });
      expect(response.statusCode, response.body).toBe(200);
      const otp = response.json<OtpResponse>();
      expect(otp.id).toMatch(/^otp_[0-9A-Za-z]{16,}$/);
      expect(otp.message_id).toMatch(/^msg_[0-9A-Za-z]{16,}$/);
      expect(otp).toEqual({
        id: otp.id,
        status: "pending",
        environment: "sandbox",
        to,
        channel: "sms",
        expires_at: isoIn(clock, 600),
        resend_available_at: isoIn(clock, 30),
        attempts_remaining: 5,
        sends: 1,
        message_id: otp.message_id,
      });

      clock.advance(1);
      const deliveredAt = clock.now().toISOString();
      await drainQueue(ctx);
      const inbox = await inboxOf(secret, to);
      expect(inbox).toEqual([
        {
          id: expect.stringMatching(/^sbx_/),
          message_id: otp.message_id,
          channel: "sms",
          to,
          text: expect.stringMatching(/^\d{6} is your Dakiya code\. Do not share it\.$/),
          created_at: deliveredAt,
        },
      ]);
      const code = codeIn(inbox[0] as InboxItem);
      expect(response.body).not.toContain(code);

      // The OTP, and the message that carried it, never show the code.
      const fetched = await getOtp(secret, otp.id);
      expect(fetched.statusCode).toBe(200);
      expect(fetched.body).not.toContain(code);
      expect(fetched.json()).toEqual({
        id: otp.id,
        status: "pending",
        environment: "sandbox",
        to,
        channel: "sms",
        expires_at: otp.expires_at,
        attempts_remaining: 5,
        sends: 1,
        created_at: sentAt,
        deliveries: [
          {
            message_id: otp.message_id,
            channel: "sms",
            fallback: false,
            status: "delivered",
            created_at: sentAt,
          },
        ],
      });
      const message = await getSms(secret, otp.message_id as string);
      expect(message.statusCode).toBe(200);
      expect(message.body).not.toContain(code);
      expect(message.json()).toMatchObject({
        id: otp.message_id,
        status: "delivered",
        channel: "sms",
        to,
        sender: "DAKIYA",
        template_id: OTP_TEMPLATE,
        text: "****** is your Dakiya code. Do not share it.",
        segments: 1,
        cost: "0.2500",
      });
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -2500, reason: "sms_charge", reference: otp.message_id },
      ]);

      const approved = await verify(secret, to, code);
      expect(approved.json()).toEqual({ verified: true, reason: "approved", attempts_remaining: 4 });
      expect((await otpDetails(secret, otp.id)).status).toBe("approved");
    });

    it("a generated code takes the account's default length or the request's", async () => {
      const { accountId, secret } = await account({ settings: { length: 8 } });
      const first = await sentOtp(secret);
      expect(first.code).toMatch(/^\d{8}$/);
      const second = await sentOtp(secret, { length: 4 });
      expect(second.code).toMatch(/^\d{4}$/);
      const caller = await sentOtp(secret, { code: "0012345678" });
      expect(caller.code).toBe("0012345678");
      expect((await verifyOk(secret, caller.to, "0012345678")).reason).toBe("approved");
      // A four-digit code still fills the template to one segment.
      const charges = await ledgerOf(accountId);
      expect(charges.map((e) => e.amount)).toEqual([-2500, -2500, -2500]);
    });

    it("never keeps a code in clear: not in the database, a response or a log line", async () => {
      const { secret } = await account();
      const received: Array<{ to: string; channel: string; otpId: string; messageId: string; code: string }> =
        [];
      /** Every response body. */
      const bodies: string[] = [];
      const sends: Body[] = [
        { channel: "sms", length: 10 },
        { channel: "whatsapp", length: 10 },
        { channel: "voice", length: 10 },
        { channel: "sms", code: "7350194628" },
      ];
      for (const [i, body] of sends.entries()) {
        const to = nextNumber();
        const response = await send(secret, { to, ...body }, { idempotencyKey: `clear-${i}` });
        expect(response.statusCode, response.body).toBe(200);
        bodies.push(response.body);
        const otp = response.json<OtpResponse>();
        received.push({
          to,
          channel: otp.channel,
          otpId: otp.id,
          messageId: otp.message_id as string,
          code: "",
        });
      }
      await drainQueue(ctx);
      for (const entry of received) entry.code = await deliveredCode(secret, entry.to, entry.messageId);
      expect(received.map((e) => e.code)[3]).toBe("7350194628");
      for (const entry of received) expect(entry.code).toMatch(/^\d{10}$/);

      // A wrong attempt, a resend of the same code, right attempts: every path a code takes.
      const [sms, whatsapp] = received as [(typeof received)[0], (typeof received)[0]];
      bodies.push((await verify(secret, sms.to, wrong(sms.code))).body);
      clock.advance(30);
      const resend = await send(secret, { to: whatsapp.to, channel: "sms" });
      expect(resend.statusCode, resend.body).toBe(200);
      bodies.push(resend.body);
      expect(await deliveredCode(secret, whatsapp.to, resend.json().message_id)).toBe(whatsapp.code);
      for (const entry of [sms, whatsapp]) bodies.push((await verify(secret, entry.to, entry.code)).body);
      for (const entry of received) {
        bodies.push((await getOtp(secret, entry.otpId)).body);
        const message = await getSms(secret, entry.messageId);
        expect(message.statusCode).toBe(200);
        if (entry.channel !== "voice") bodies.push(message.body);
        else expect(message.body).not.toContain(entry.code);
      }

      const dump = await dumpDatabase();
      expect(Object.keys(dump)).toEqual(
        expect.arrayContaining([
          "messages",
          "otps",
          "otp_deliveries",
          "rate_limit_counters",
          "ledger_entries",
          "idempotency_keys",
        ]),
      );
      expect(dump.idempotency_keys).toContain(received[0]?.otpId);
      const logs = logLines.join("");
      expect(logs).toContain("incoming request");
      for (const { code, channel } of received) {
        const spoken = [...code].join(", ");
        for (const [table, rows] of Object.entries(dump)) {
          expect(rows, `${channel} code in ${table}`).not.toContain(code);
          if (table !== "messages")
            expect(rows, `${channel} code, spoken, in ${table}`).not.toContain(spoken);
        }
        for (const body of bodies) {
          expect(body).not.toContain(code);
          expect(body).not.toContain(spoken);
        }
        expect(logs).not.toContain(code);
        expect(logs).not.toContain(spoken);
      }
    });

    it("never keeps a voice code in clear in its message", async () => {
      const { secret } = await account();
      const voice = await sentOtp(secret, { channel: "voice" });
      const row = await ctx.db
        .selectFrom("messages")
        .select("text")
        .where("id", "=", voice.otp.message_id as string)
        .executeTakeFirstOrThrow();
      expect(row.text).not.toMatch(/\d/);
      const message = (await getSms(secret, voice.otp.message_id as string)).json();
      expect(message.text).not.toMatch(/\d/);
    });
  });

  describe("verify", () => {
    it("approves the right code once, then says already_verified", async () => {
      const { secret } = await account();
      const { otp, to, code } = await sentOtp(secret);
      expect(await verifyOk(secret, to, code)).toEqual({
        verified: true,
        reason: "approved",
        attempts_remaining: 4,
      });
      expect(await verifyOk(secret, to, code)).toEqual({
        verified: false,
        reason: "already_verified",
        attempts_remaining: 4,
      });
      expect((await verifyOk(secret, to, wrong(code))).reason).toBe("already_verified");
      expect(await otpDetails(secret, otp.id)).toMatchObject({ status: "approved", attempts_remaining: 4 });
    });

    it("counts wrong codes down and locks the OTP after max_attempts, even against the right code", async () => {
      const { secret } = await account();
      const { otp, to, code } = await sentOtp(secret);
      for (const remaining of [4, 3, 2, 1, 0]) {
        expect(await verifyOk(secret, to, wrong(code))).toEqual({
          verified: false,
          reason: "incorrect_code",
          attempts_remaining: remaining,
        });
      }
      expect(await verifyOk(secret, to, code)).toEqual({
        verified: false,
        reason: "max_attempts_reached",
        attempts_remaining: 0,
      });
      expect(await otpDetails(secret, otp.id)).toMatchObject({ status: "locked", attempts_remaining: 0 });
    });

    it("approves the right code on the last attempt", async () => {
      const { secret } = await account({ settings: { max_attempts: 3 } });
      const { otp, to, code } = await sentOtp(secret);
      expect(otp.attempts_remaining).toBe(3);
      expect((await verifyOk(secret, to, wrong(code))).attempts_remaining).toBe(2);
      expect((await verifyOk(secret, to, wrong(code))).attempts_remaining).toBe(1);
      expect(await verifyOk(secret, to, code)).toEqual({
        verified: true,
        reason: "approved",
        attempts_remaining: 0,
      });
    });

    it("a code works until expires_at and is expired from then on", async () => {
      const { secret } = await account();
      const early = await sentOtp(secret);
      const late = await sentOtp(secret);
      clock.advance(599);
      expect((await verifyOk(secret, early.to, early.code)).reason).toBe("approved");
      expect(await otpDetails(secret, late.otp.id)).toMatchObject({ status: "pending" });
      clock.advance(1);
      expect(clock.now().toISOString()).toBe(late.otp.expires_at);
      expect(await verifyOk(secret, late.to, late.code)).toEqual({
        verified: false,
        reason: "expired",
        attempts_remaining: 5,
      });
      expect((await verifyOk(secret, late.to, wrong(late.code))).reason).toBe("expired");
      expect(await otpDetails(secret, late.otp.id)).toMatchObject({
        status: "expired",
        attempts_remaining: 5,
      });
    });

    it("not_found for a number that was never sent an OTP", async () => {
      const { secret } = await account();
      expect(await verifyOk(secret, nextNumber(), "123456")).toEqual({
        verified: false,
        reason: "not_found",
        attempts_remaining: 0,
      });
    });

    it.each([
      ["3 digits", "123"],
      ["11 digits", "12345678901"],
      ["letters", "12ab56"],
      ["a number, not a string", 123456],
      ["an empty string", ""],
      ["spaces", "123 456"],
    ])("refuses a code of %s with 400 and uses no attempt", async (_name, code) => {
      const { secret } = await account();
      const { otp, to } = await sentOtp(secret);
      const response = await verify(secret, to, code);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({ code: "invalid_request", param: "code" });
      expect((await otpDetails(secret, otp.id)).attempts_remaining).toBe(5);
    });

    it("refuses a malformed verify request with 400", async () => {
      const { secret } = await account();
      for (const [payload, param] of [
        [{ to: "98765", code: "123456" }, "to"],
        [{ code: "123456" }, "to"],
        [{ to: "+919876543210" }, "code"],
        [{ to: "+919876543210", code: "123456", extra: 1 }, "extra"],
      ] as const) {
        const response = await app.inject({
          method: "POST",
          url: "/v2/otp/verify",
          payload: JSON.stringify(payload),
          headers: { "content-type": "application/json", ...bearer(secret) },
        });
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json().error).toMatchObject({ code: "invalid_request", param });
      }
    });

    it("live and sandbox, and other accounts, never see each other's OTPs", async () => {
      const { carrier, sent } = recordingCarrier("test-smsc");
      const live = await openOther({ liveCarriers: { sms: carrier } });
      const { accountId, secret } = await account();
      const liveKey = await createKey(ctx, { accountId, environment: "live" });
      await updateOtpSettings(ctx, accountId, "live", {
        sms_template_id: OTP_TEMPLATE,
        sms_sender: "DAKIYA",
      });
      await ctx.db
        .updateTable("balances")
        .set({ balance: HUNDRED_RUPEES })
        .where("account_id", "=", accountId)
        .where("environment", "=", "live")
        .execute();
      const stranger = await account();

      const sandboxOtp = await sentOtp(secret);
      // Nothing live was sent to this number: live sees nothing of it.
      expect(await verifyOk(liveKey.secret, sandboxOtp.to, sandboxOtp.code, live.app)).toEqual({
        verified: false,
        reason: "not_found",
        attempts_remaining: 0,
      });
      expect((await getOtp(liveKey.secret, sandboxOtp.otp.id, live.app)).statusCode).toBe(404);
      expect((await verifyOk(stranger.secret, sandboxOtp.to, sandboxOtp.code)).reason).toBe("not_found");
      const strangers = await getOtp(stranger.secret, sandboxOtp.otp.id);
      expect(strangers.statusCode).toBe(404);
      expect(strangers.json().error.code).toBe("not_found");
      expect((await getOtp(secret, "otp_doesnotexist00000000000")).statusCode).toBe(404);

      // A live OTP to the same number: its code goes to the live carrier, and each key sees only its own.
      const liveOtp = await sendOk(liveKey.secret, { to: sandboxOtp.to }, live.app);
      expect(liveOtp.environment).toBe("live");
      expect(liveOtp.id).not.toBe(sandboxOtp.otp.id);
      await drainQueue(live.ctx);
      expect(sent).toHaveLength(1);
      const liveCode = sent[0]?.otp?.code as string;
      expect(sent[0]?.text).toBe(`${liveCode} is your Dakiya code. Do not share it.`);
      expect(await inboxOf(secret, sandboxOtp.to)).toHaveLength(1);
      expect((await getOtp(secret, liveOtp.id)).statusCode).toBe(404);
      expect((await ledgerOf(accountId, "live")).map((e) => e.reference)).toEqual([liveOtp.message_id]);
      expect((await ledgerOf(accountId, "sandbox")).map((e) => e.reference)).toEqual([
        sandboxOtp.otp.message_id,
      ]);
      expect((await verifyOk(secret, sandboxOtp.to, sandboxOtp.code)).reason).toBe("approved");
      expect((await verifyOk(liveKey.secret, sandboxOtp.to, liveCode, live.app)).reason).toBe("approved");
    });

    it("50 concurrent wrong guesses: exactly max_attempts are compared, the rest are refused", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { secret } = await account();
      const { otp, to, code } = await sentOtp(secret);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => verifyOk(secret, to, wrong(code), targets[i % targets.length])),
      );
      const incorrect = results.filter((r) => r.reason === "incorrect_code");
      expect(incorrect.map((r) => r.attempts_remaining).sort()).toEqual([0, 1, 2, 3, 4]);
      expect(results.filter((r) => r.reason === "max_attempts_reached")).toHaveLength(45);
      expect(results.every((r) => !r.verified)).toBe(true);
      expect(await otpDetails(secret, otp.id)).toMatchObject({ status: "locked", attempts_remaining: 0 });
      expect((await verifyOk(secret, to, code)).reason).toBe("max_attempts_reached");
    });

    it("20 concurrent right guesses: exactly one is approved", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { secret } = await account();
      for (let round = 0; round < 5; round++) {
        const { otp, to, code } = await sentOtp(secret);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => verifyOk(secret, to, code, targets[i % targets.length])),
        );
        const approved = results.filter((r) => r.reason === "approved");
        expect(approved, JSON.stringify(results)).toHaveLength(1);
        expect(approved[0]?.verified).toBe(true);
        for (const other of results.filter((r) => r.reason !== "approved")) {
          expect(other.verified).toBe(false);
          expect(["already_verified", "max_attempts_reached"]).toContain(other.reason);
        }
        expect((await otpDetails(secret, otp.id)).status).toBe("approved");
      }
    });
  });

  describe("lifecycle", () => {
    it("refuses a resend inside the cooldown with 429 resend_cooldown, sending and charging nothing", async () => {
      const { accountId, secret } = await account();
      const { otp, to } = await sentOtp(secret);
      clock.advance(10);
      const before = await stateOf(accountId);
      for (const channel of ["sms", "whatsapp", "voice"]) {
        const response = await send(secret, { to, channel });
        expect(response.statusCode, response.body).toBe(429);
        expect(response.headers["retry-after"]).toBe("20");
        expect(response.json().error.code).toBe("resend_cooldown");
      }
      clock.advance(19);
      const last = await send(secret, { to });
      expect(last.statusCode).toBe(429);
      expect(last.headers["retry-after"]).toBe("1");
      expect(await stateOf(accountId)).toEqual(before);
      await drainQueue(ctx);
      expect(await inboxOf(secret, to)).toHaveLength(1);
      expect((await otpDetails(secret, otp.id)).sends).toBe(1);
    });

    it("says retry_after in the body of a 429", async () => {
      const { secret } = await account();
      const { to } = await sentOtp(secret);
      clock.advance(10);
      const response = await send(secret, { to });
      expect(response.statusCode).toBe(429);
      expect(response.json().error).toMatchObject({ code: "resend_cooldown", retry_after: 20 });
    });

    it("after the cooldown resends the same code, on any channel, keeping expiry and attempts used", async () => {
      const { accountId, secret } = await account();
      const first = await sentOtp(secret);
      expect((await verifyOk(secret, first.to, wrong(first.code))).attempts_remaining).toBe(4);
      clock.advance(30);

      const again = await sendOk(secret, { to: first.to, channel: "voice" });
      expect(again).toEqual({
        id: first.otp.id,
        status: "pending",
        environment: "sandbox",
        to: first.to,
        channel: "voice",
        expires_at: first.otp.expires_at,
        resend_available_at: isoIn(clock, 30),
        attempts_remaining: 4,
        sends: 2,
        message_id: expect.stringMatching(/^msg_/),
      });
      expect(again.message_id).not.toBe(first.otp.message_id);
      const spoken = await deliveredCode(secret, first.to, again.message_id);
      expect(spoken).toBe(first.code);

      clock.advance(30);
      const third = await sendOk(secret, { to: first.to, channel: "whatsapp" });
      expect(third).toMatchObject({ id: first.otp.id, sends: 3, expires_at: first.otp.expires_at });
      expect(await deliveredCode(secret, first.to, third.message_id)).toBe(first.code);

      const details = await otpDetails(secret, first.otp.id);
      expect(details.sends).toBe(3);
      expect(details.deliveries.map((d) => [d.message_id, d.channel, d.fallback])).toEqual([
        [first.otp.message_id, "sms", false],
        [again.message_id, "voice", false],
        [third.message_id, "whatsapp", false],
      ]);
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -2500, reason: "sms_charge", reference: first.otp.message_id },
        { amount: -5000, reason: "voice_charge", reference: again.message_id },
        { amount: -3500, reason: "whatsapp_charge", reference: third.message_id },
      ]);
      // The resent code is still the one code, and its expiry did not move.
      clock.advance(600 - 60);
      expect((await verifyOk(secret, first.to, first.code)).reason).toBe("expired");
    });

    it("a caller's code replaces the pending OTP, which is cancelled", async () => {
      const { secret } = await account();
      const first = await sentOtp(secret);
      clock.advance(30);
      const replaced = await sendOk(secret, { to: first.to, code: "20261122" });
      expect(replaced.id).not.toBe(first.otp.id);
      expect(replaced).toMatchObject({ sends: 1, attempts_remaining: 5, expires_at: isoIn(clock, 600) });
      expect(await deliveredCode(secret, first.to, replaced.message_id)).toBe("20261122");
      expect((await otpDetails(secret, first.otp.id)).status).toBe("cancelled");
      if (first.code !== "20261122") {
        expect((await verifyOk(secret, first.to, first.code)).reason).toBe("incorrect_code");
      }
      expect((await verifyOk(secret, first.to, "20261122")).reason).toBe("approved");
    });

    it("checks the pending OTP even when it was created in the same instant as the one before it", async () => {
      const { secret } = await account();
      for (let round = 0; round < 20; round++) {
        const to = nextNumber();
        await sendOk(secret, { to, code: "11111111" });
        expect((await verifyOk(secret, to, "11111111")).reason).toBe("approved");
        await sendOk(secret, { to, code: "22222222" });
        expect((await verifyOk(secret, to, "22222222")).reason, `round ${round}`).toBe("approved");
      }
    });

    it("refuses a caller's new code inside the cooldown, like any resend", async () => {
      const { secret } = await account();
      const to = nextNumber();
      await sendOk(secret, { to, code: "11111111" });
      const early = await send(secret, { to, code: "22222222" });
      expect(early.statusCode).toBe(429);
      expect(early.json().error.code).toBe("resend_cooldown");
      expect((await verifyOk(secret, to, "11111111")).reason).toBe("approved");
    });

    it("after expiry, lock or approval a send starts a new OTP with a new code", async () => {
      const { secret } = await account();
      const ends: Record<string, (to: string, code: string) => Promise<void>> = {
        expired: async () => clock.advance(600),
        locked: async (to, code) => {
          for (let i = 0; i < 5; i++) await verifyOk(secret, to, wrong(code));
        },
        approved: async (to, code) => {
          expect((await verifyOk(secret, to, code)).reason).toBe("approved");
        },
      };
      for (const [status, end] of Object.entries(ends)) {
        const first = await sentOtp(secret);
        await end(first.to, first.code);
        clock.advance(30);
        const next = await sentOtp(secret, { to: first.to });
        expect(next.otp.id, status).not.toBe(first.otp.id);
        expect(next.otp).toMatchObject({ sends: 1, attempts_remaining: 5, expires_at: isoIn(clock, 600) });
        expect((await otpDetails(secret, first.otp.id)).status).toBe(status);
        if (next.code !== first.code) {
          expect((await verifyOk(secret, first.to, first.code)).reason, status).toBe("incorrect_code");
        }
        expect((await verifyOk(secret, first.to, next.code)).reason, status).toBe("approved");
      }
    });

    it("concurrent first sends to one number create one OTP and one charge", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { accountId, secret } = await account();
      const to = nextNumber();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => send(secret, { to }, { target: targets[i % targets.length] })),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
      for (const refused of results.filter((r) => r.statusCode !== 200)) {
        expect(refused.statusCode, refused.body).toBe(429);
        expect(refused.json().error.code).toBe("resend_cooldown");
      }
      const state = await stateOf(accountId);
      expect(state.otps).toHaveLength(1);
      expect(state.messages).toHaveLength(1);
      expect(await ledgerOf(accountId)).toHaveLength(1);
    });

    it("concurrent resends after the cooldown deliver and charge once", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { accountId, secret } = await account();
      const first = await sentOtp(secret);
      clock.advance(30);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          send(secret, { to: first.to }, { target: targets[i % targets.length] }),
        ),
      );
      const sent = results.filter((r) => r.statusCode === 200);
      expect(sent.map((r) => r.json().sends)).toEqual([2]);
      for (const refused of results.filter((r) => r.statusCode !== 200)) {
        expect(refused.json().error.code).toBe("resend_cooldown");
      }
      const details = await otpDetails(secret, first.otp.id);
      expect(details.sends).toBe(2);
      expect(details.deliveries).toHaveLength(2);
      expect(await ledgerOf(accountId)).toHaveLength(2);
    });

    it("sends one OTP at most 5 times, then 429 rate_limited", async () => {
      const { accountId, secret } = await account();
      const first = await sentOtp(secret);
      for (let sends = 2; sends <= 5; sends++) {
        clock.advance(30);
        expect((await sendOk(secret, { to: first.to })).sends).toBe(sends);
      }
      clock.advance(30);
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: first.to });
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe("rate_limited");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(await stateOf(accountId)).toEqual(before);
      // The code still works.
      expect((await verifyOk(secret, first.to, first.code)).reason).toBe("approved");
    });

    it("sends at most 10 OTPs an hour to one number, then 429 rate_limited until the hour has passed", async () => {
      const { accountId, secret } = await account({ settings: { resend_cooldown_seconds: 0 } });
      const to = nextNumber();
      clock.advance((60_000 - (clock.now().getTime() % 60_000)) / 1000); // to the start of a minute
      const firstAt = clock.now().getTime();
      for (let i = 0; i < 10; i++) {
        // Five sends of one OTP, then a new OTP with the caller's code; the first six in one minute.
        const body = i === 5 ? { to, code: "55555555" } : { to };
        expect((await send(secret, body)).statusCode, `send ${i + 1}`).toBe(200);
        clock.advance(10);
      }
      const before = await stateOf(accountId);
      const refused = await send(secret, { to, code: "66666666" });
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe("rate_limited");
      expect(refused.headers["retry-after"]).toBeDefined();
      expect(await stateOf(accountId)).toEqual(before);
      // Another number of the same account is not held back.
      expect((await send(secret, { to: nextNumber() })).statusCode).toBe(200);

      // Sends are counted per minute: the first minute's six leave the hour 61 minutes after it began.
      clock.advance((firstAt + 3599_000 - clock.now().getTime()) / 1000);
      expect((await send(secret, { to, code: "77777777" })).statusCode).toBe(429);
      clock.advance(61);
      for (const code of ["1111111", "2222222", "3333333", "4444444", "5555555", "6666666"]) {
        expect((await send(secret, { to, code })).statusCode).toBe(200);
      }
      expect((await send(secret, { to, code: "88888888" })).statusCode).toBe(429);
      clock.advance(3600);
      expect((await send(secret, { to, code: "99999999" })).statusCode).toBe(200);
    });

    it("honours the operator's OTP_MAX_SENDS_PER_OTP and OTP_MAX_SENDS_PER_NUMBER_PER_HOUR", async () => {
      const limited = await openOther({
        env: { OTP_MAX_SENDS_PER_OTP: "2", OTP_MAX_SENDS_PER_NUMBER_PER_HOUR: "3" },
      });
      const { secret } = await account();
      const to = nextNumber();
      expect((await send(secret, { to }, { target: limited.app })).statusCode).toBe(200);
      clock.advance(30);
      expect((await send(secret, { to }, { target: limited.app })).statusCode).toBe(200);
      clock.advance(30);
      const perOtp = await send(secret, { to }, { target: limited.app });
      expect(perOtp.statusCode, perOtp.body).toBe(429);
      expect(perOtp.json().error.code).toBe("rate_limited");
      expect((await send(secret, { to, code: "1234" }, { target: limited.app })).statusCode).toBe(200);
      clock.advance(30);
      const perNumber = await send(secret, { to, code: "5678" }, { target: limited.app });
      expect(perNumber.statusCode, perNumber.body).toBe(429);
      expect(perNumber.json().error.code).toBe("rate_limited");
      expect(perNumber.headers["retry-after"]).toBeDefined();
      clock.advance(3600);
      expect((await send(secret, { to, code: "5678" }, { target: limited.app })).statusCode).toBe(200);
    });

    it("caps an account's OTP sends per hour across numbers (OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR)", async () => {
      const capped = await openOther({ env: { OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "3" } });
      const { accountId, secret } = await account();
      const neighbour = await account();
      for (let i = 0; i < 3; i++) {
        expect((await send(secret, { to: nextNumber() }, { target: capped.app })).statusCode).toBe(200);
      }
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: nextNumber(), channel: "voice" }, { target: capped.app });
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe("rate_limited");
      expect(refused.headers["retry-after"]).toBeDefined();
      expect(await stateOf(accountId)).toEqual(before);
      // Another account has its own cap.
      expect((await send(neighbour.secret, { to: nextNumber() }, { target: capped.app })).statusCode).toBe(
        200,
      );
      // Sends are counted per minute, so one leaves the hour 60 to 61 minutes after it was made.
      clock.advance(3599);
      expect((await send(secret, { to: nextNumber() }, { target: capped.app })).statusCode).toBe(429);
      clock.advance(61);
      expect((await send(secret, { to: nextNumber() }, { target: capped.app })).statusCode).toBe(200);
    });

    it("concurrent sends cannot pass the per-account cap", async () => {
      const env = { OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "3" };
      const targets =
        dialect === "postgres"
          ? [(await openOther({ env })).app, (await openOther({ env })).app]
          : [(await openOther({ env })).app];
      const { accountId, secret } = await account();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          send(secret, { to: nextNumber() }, { target: targets[i % targets.length] }),
        ),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(3);
      for (const refused of results.filter((r) => r.statusCode !== 200)) {
        expect(refused.json().error.code).toBe("rate_limited");
      }
      expect(await ledgerOf(accountId)).toHaveLength(3);
    });
  });

  describe("channels and charging", () => {
    it("debits each channel's price with a ledger entry for its message, and delivers each channel's text", async () => {
      const { accountId, secret } = await account();
      const sms = await sentOtp(secret, { channel: "sms" });
      const whatsapp = await sentOtp(secret, { channel: "whatsapp" });
      const voice = await sentOtp(secret, { channel: "voice", length: 6 });
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -2500, reason: "sms_charge", reference: sms.otp.message_id },
        { amount: -5000, reason: "voice_charge", reference: voice.otp.message_id },
        { amount: -3500, reason: "whatsapp_charge", reference: whatsapp.otp.message_id },
      ]);
      const balance = await app.inject({ method: "GET", url: "/v2/balance", headers: bearer(secret) });
      expect(balance.json().balance).toBe("98.9000");

      const [whatsappItem] = await inboxOf(secret, whatsapp.to);
      expect(whatsappItem).toMatchObject({ channel: "whatsapp", message_id: whatsapp.otp.message_id });
      expect(whatsappItem?.text).toContain(whatsapp.code);
      expect(whatsappItem?.text).toContain("expires in 10 minutes");

      const [voiceItem] = await inboxOf(secret, voice.to);
      const digits = [...voice.code].join(", ");
      expect(voiceItem).toMatchObject({
        channel: "voice",
        message_id: voice.otp.message_id,
        text: `Your verification code is ${digits}. Your verification code is ${digits}.`,
      });
      for (const { otp, code, to } of [whatsapp, voice]) {
        const message = (await getSms(secret, otp.message_id as string)).json();
        expect(message).toMatchObject({
          channel: otp.channel,
          cost: otp.channel === "voice" ? "0.5000" : "0.3500",
        });
        expect((await verifyOk(secret, to, code)).reason).toBe("approved");
      }
    });

    it("prices with the operator's price list", async () => {
      const priced = await openOther({
        env: { PRICE_WHATSAPP_MESSAGE: "0.1200", PRICE_VOICE_CALL: "1.0000" },
      });
      const { accountId, secret } = await account();
      const whatsapp = await sendOk(secret, { to: nextNumber(), channel: "whatsapp" }, priced.app);
      const voice = await sendOk(secret, { to: nextNumber(), channel: "voice" }, priced.app);
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -10000, reason: "voice_charge", reference: voice.message_id },
        { amount: -1200, reason: "whatsapp_charge", reference: whatsapp.message_id },
      ]);
    });

    it("a live key without a live carrier for the channel → 422 channel_not_configured, nothing charged", async () => {
      const { accountId, secret } = await account({ environment: "live" });
      const before = await stateOf(accountId);
      for (const body of [
        { channel: "sms" },
        { channel: "whatsapp" },
        { channel: "voice" },
        {},
        { channel: "voice", fallback: "sms" },
      ]) {
        const response = await send(secret, { to: nextNumber(), ...body });
        expect(response.statusCode, response.body).toBe(422);
        expect(response.json().error).toMatchObject({ code: "channel_not_configured", param: "channel" });
      }
      expect(await stateOf(accountId)).toEqual(before);
      expect(before.otps).toEqual([]);
    });

    it("a live WhatsApp carrier without the account's WhatsApp template → 422 channel_not_configured", async () => {
      const { carrier, sent } = recordingCarrier("test-whatsapp");
      const live = await openOther({ liveCarriers: { whatsapp: carrier } });
      const { accountId, secret } = await account({ environment: "live" });
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: nextNumber(), channel: "whatsapp" }, { target: live.app });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json().error.code).toBe("channel_not_configured");
      expect(await stateOf(accountId)).toEqual(before);

      await updateOtpSettings(ctx, accountId, "live", { whatsapp_template: "dakiya_otp" });
      const to = nextNumber();
      const otp = await sendOk(secret, { to, channel: "whatsapp" }, live.app);
      await drainQueue(live.ctx);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ id: otp.message_id, channel: "whatsapp", to, environment: "live" });
      expect(sent[0]?.otp).toMatchObject({ whatsappTemplate: "dakiya_otp", expirySeconds: 600 });
      expect((await verifyOk(secret, to, sent[0]?.otp?.code as string, live.app)).reason).toBe("approved");
      expect(await ledgerOf(accountId, "live")).toEqual([
        { amount: -3500, reason: "whatsapp_charge", reference: otp.message_id },
      ]);
    });

    it("SMS without the OTP settings → 422 channel_not_configured; WhatsApp and voice need none in sandbox", async () => {
      const { accountId, secret } = await account({ settings: null });
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: nextNumber() });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json().error).toMatchObject({ code: "channel_not_configured", param: "channel" });
      const asFallback = await send(secret, { to: nextNumber(), channel: "voice", fallback: "sms" });
      expect(asFallback.statusCode).toBe(422);
      expect(asFallback.json().error.code).toBe("channel_not_configured");
      expect(await stateOf(accountId)).toEqual(before);
      expect((await send(secret, { to: nextNumber(), channel: "whatsapp" })).statusCode).toBe(200);
      expect((await send(secret, { to: nextNumber(), channel: "voice" })).statusCode).toBe(200);
    });

    it("refuses bad requests before anything is sent or charged", async () => {
      const { accountId, secret } = await account();
      const before = await stateOf(accountId);
      const cases: Array<[Body, number, string, string]> = [
        [{ to: "+14155552671" }, 422, "unsupported_destination", "to"],
        [{ to: "+447911123456", channel: "voice" }, 422, "unsupported_destination", "to"],
        [{ to: "+915876543210" }, 400, "invalid_request", "to"],
        [{ to: "919876543210" }, 400, "invalid_request", "to"],
        [{}, 400, "invalid_request", "to"],
        [
          { to: "+919876543210", channel: "whatsapp", fallback: "whatsapp" },
          400,
          "invalid_request",
          "fallback",
        ],
        [{ to: "+919876543210", fallback: "sms" }, 400, "invalid_request", "fallback"],
        [{ to: "+919876543210", channel: "email" }, 400, "invalid_request", "channel"],
        [{ to: "+919876543210", code: "123" }, 400, "invalid_request", "code"],
        [{ to: "+919876543210", code: "12345678901" }, 400, "invalid_request", "code"],
        [{ to: "+919876543210", code: "12a456" }, 400, "invalid_request", "code"],
        [{ to: "+919876543210", length: 3 }, 400, "invalid_request", "length"],
        [{ to: "+919876543210", length: 11 }, 400, "invalid_request", "length"],
        [{ to: "+919876543210", priority: "high" }, 400, "invalid_request", "priority"],
      ];
      for (const [body, status, code, param] of cases) {
        const response = await send(secret, body);
        expect(response.statusCode, JSON.stringify(body)).toBe(status);
        expect(response.json().error, JSON.stringify(body)).toMatchObject({ code, param });
      }
      expect(await stateOf(accountId)).toEqual(before);
    });

    it("refuses with 402 when the balance cannot pay, and creates no OTP", async () => {
      const { accountId, secret } = await account({ credits: 3_499 });
      const to = nextNumber();
      const before = await stateOf(accountId);
      const refused = await send(secret, { to, channel: "whatsapp" });
      expect(refused.statusCode, refused.body).toBe(402);
      expect(refused.json().error.code).toBe("insufficient_balance");
      expect(await stateOf(accountId)).toEqual(before);
      expect((await verifyOk(secret, to, "123456")).reason).toBe("not_found");
      // SMS is cheaper, and fits.
      expect((await send(secret, { to })).statusCode).toBe(200);
    });
  });

  describe("fallback", () => {
    it("sends the same code once on the fallback channel when the first never reports delivery", async () => {
      const { accountId, secret } = await account();
      const otp = await sendOk(secret, { to: NO_RECEIPT, channel: "whatsapp", fallback: "sms" });
      expect(otp.channel).toBe("whatsapp");
      const code = await deliveredCode(secret, NO_RECEIPT, otp.message_id);
      expect((await getSms(secret, otp.message_id as string)).json().status).toBe("submitted");

      clock.advance(6);
      expect(await sendDueFallbacks(ctx)).toBe(0);
      clock.advance(1);
      expect(await sendDueFallbacks(ctx)).toBe(1);
      expect(await sendDueFallbacks(ctx)).toBe(0);
      clock.advance(60);
      expect(await sendDueFallbacks(ctx)).toBe(0);

      const details = await otpDetails(secret, otp.id);
      expect(details.channel).toBe("whatsapp");
      expect(details.deliveries.map((d) => [d.channel, d.fallback])).toEqual([
        ["whatsapp", false],
        ["sms", true],
      ]);
      const fallbackId = details.deliveries[1]?.message_id as string;
      expect(await deliveredCode(secret, NO_RECEIPT, fallbackId)).toBe(code);
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -3500, reason: "whatsapp_charge", reference: otp.message_id },
        { amount: -2500, reason: "sms_charge", reference: fallbackId },
      ]);
      expect((await verifyOk(secret, NO_RECEIPT, code)).reason).toBe("approved");
    });

    it("sends no fallback when the first channel was delivered", async () => {
      const { accountId, secret } = await account();
      const to = nextNumber();
      const otp = await sendOk(secret, { to, channel: "voice", fallback: "whatsapp" });
      await drainQueue(ctx);
      expect((await getSms(secret, otp.message_id as string)).json().status).toBe("delivered");
      clock.advance(7);
      expect(await sendDueFallbacks(ctx)).toBe(0);
      await drainQueue(ctx);
      expect((await otpDetails(secret, otp.id)).deliveries).toHaveLength(1);
      expect(await inboxOf(secret, to)).toHaveLength(1);
      expect(await ledgerOf(accountId)).toHaveLength(1);
    });

    it("sends no fallback for an approved OTP", async () => {
      const { accountId, secret } = await account({ settings: { fallback_after_seconds: 20 } });
      const otp = await sendOk(secret, { to: NO_RECEIPT, channel: "sms", fallback: "voice" });
      const code = await deliveredCode(secret, NO_RECEIPT, otp.message_id);
      expect((await verifyOk(secret, NO_RECEIPT, code)).reason).toBe("approved");
      clock.advance(20);
      expect(await sendDueFallbacks(ctx)).toBe(0);
      expect((await otpDetails(secret, otp.id)).deliveries).toHaveLength(1);
      expect(await ledgerOf(accountId)).toHaveLength(1);
    });
  });

  describe("test numbers with a fixed code", () => {
    const REVIEWER = "+919000000001";

    it("deliver nothing, charge nothing, and verify only the fixed code", async () => {
      const { accountId, secret } = await account({ settings: { test_numbers: { [REVIEWER]: "123456" } } });
      const before = await stateOf(accountId);
      const otp = await sendOk(secret, { to: REVIEWER });
      expect(otp).toMatchObject({ message_id: null, sends: 1, attempts_remaining: 5, status: "pending" });
      await drainQueue(ctx);
      expect(await inboxOf(secret, REVIEWER)).toEqual([]);
      const after = await stateOf(accountId);
      expect({ ...after, otps: [] }).toEqual({ ...before, otps: [] });
      expect((await otpDetails(secret, otp.id)).deliveries).toEqual([]);

      expect(await verifyOk(secret, REVIEWER, "654321")).toEqual({
        verified: false,
        reason: "incorrect_code",
        attempts_remaining: 4,
      });
      expect((await verifyOk(secret, REVIEWER, "123456")).reason).toBe("approved");

      // A caller's code does not override the fixed one; the attempt limit still holds.
      clock.advance(1);
      const next = await sendOk(secret, { to: REVIEWER, code: "999999", channel: "voice" });
      expect(next.id).not.toBe(otp.id);
      for (let i = 0; i < 5; i++)
        expect((await verifyOk(secret, REVIEWER, "999999")).reason).toBe("incorrect_code");
      expect((await verifyOk(secret, REVIEWER, "123456")).reason).toBe("max_attempts_reached");
      expect({ ...(await stateOf(accountId)), otps: [] }).toEqual({ ...before, otps: [] });
    });

    it("work for a live key, even without a live carrier", async () => {
      const { accountId, secret } = await account({
        environment: "live",
        settings: { test_numbers: { [REVIEWER]: "0000" } },
      });
      const otp = await sendOk(secret, { to: REVIEWER, channel: "whatsapp" });
      expect(otp).toMatchObject({ environment: "live", message_id: null });
      expect(await ledgerOf(accountId, "live")).toEqual([]);
      expect((await verifyOk(secret, REVIEWER, "0000")).reason).toBe("approved");
      // Any other number is still refused.
      expect((await send(secret, { to: nextNumber() })).statusCode).toBe(422);
    });
  });

  describe("sandbox test numbers", () => {
    it("+919999999933: the delivery fails carrier_rejected and is refunded", async () => {
      const { accountId, secret } = await account();
      const otp = await sendOk(secret, { to: CARRIER_REJECTED });
      await drainQueue(ctx);
      const message = (await getSms(secret, otp.message_id as string)).json();
      expect(message).toMatchObject({ status: "failed", error_code: "carrier_rejected" });
      expect(await ledgerOf(accountId)).toEqual([
        { amount: -2500, reason: "sms_charge", reference: otp.message_id },
        { amount: 2500, reason: "sms_refund", reference: otp.message_id },
      ]);
      expect(await inboxOf(secret, CARRIER_REJECTED)).toEqual([]);
      expect((await otpDetails(secret, otp.id)).deliveries[0]?.status).toBe("failed");
    });

    it("+919999999911 and +919999999922: undelivered on every channel, still charged", async () => {
      const { accountId, secret } = await account();
      const sms = await sendOk(secret, { to: INVALID_NUMBER });
      const whatsapp = await sendOk(secret, { to: DND_BLOCKED, channel: "whatsapp" });
      await drainQueue(ctx);
      clock.advance(30);
      const voice = await sendOk(secret, { to: INVALID_NUMBER, channel: "voice" });
      expect(voice).toMatchObject({ id: sms.id, sends: 2 });
      await drainQueue(ctx);
      expect((await getSms(secret, sms.message_id as string)).json()).toMatchObject({
        status: "undelivered",
        error_code: "invalid_number",
      });
      expect((await getSms(secret, whatsapp.message_id as string)).json()).toMatchObject({
        status: "undelivered",
        error_code: "dnd_blocked",
      });
      expect((await getSms(secret, voice.message_id as string)).json()).toMatchObject({
        status: "undelivered",
        error_code: "invalid_number",
      });
      expect((await ledgerOf(accountId)).map((e) => e.reason)).toEqual([
        "sms_charge",
        "whatsapp_charge",
        "voice_charge",
      ]);
      expect((await otpDetails(secret, sms.id)).deliveries.map((d) => d.status)).toEqual([
        "undelivered",
        "undelivered",
      ]);
    });
  });

  describe("idempotency", () => {
    it("the same Idempotency-Key and body send and charge once and replay the first answer", async () => {
      const { accountId, secret } = await account();
      const to = nextNumber();
      const first = await send(secret, { to }, { idempotencyKey: "otp-1" });
      expect(first.statusCode).toBe(200);
      expect(first.headers["idempotent-replayed"]).toBeUndefined();
      clock.advance(60);
      const again = await send(secret, { to }, { idempotencyKey: "otp-1" });
      expect(again.statusCode).toBe(200);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(again.json()).toEqual(first.json());
      const reused = await send(secret, { to, channel: "voice" }, { idempotencyKey: "otp-1" });
      expect(reused.statusCode).toBe(422);
      expect(reused.json().error.code).toBe("idempotency_key_reused");

      const state = await stateOf(accountId);
      expect(state.otps).toEqual([`${first.json().id}:pending:1:0`]);
      expect(state.messages).toEqual([first.json().message_id]);
      expect(await ledgerOf(accountId)).toHaveLength(1);
    });
  });
});

describe("generated codes", () => {
  function chiSquare(counts: number[], total: number): number {
    const expected = total / counts.length;
    return counts.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
  }

  /** χ² for 9 degrees of freedom at p = 0.001: a uniform source exceeds it once in a thousand runs. */
  const CRITICAL = 27.88;

  it("are uniform: first digit, last digit and every position (χ² over 100,000 codes)", () => {
    const n = 100_000;
    const first = new Array<number>(10).fill(0);
    const last = new Array<number>(10).fill(0);
    const all = new Array<number>(10).fill(0);
    for (let i = 0; i < n; i++) {
      const code = generateCode(6);
      if (code.length !== 6) throw new Error(`code of length ${code.length}: ${code}`);
      first[code.charCodeAt(0) - 48] = (first[code.charCodeAt(0) - 48] ?? 0) + 1;
      last[code.charCodeAt(5) - 48] = (last[code.charCodeAt(5) - 48] ?? 0) + 1;
      for (let p = 0; p < 6; p++) all[code.charCodeAt(p) - 48] = (all[code.charCodeAt(p) - 48] ?? 0) + 1;
    }
    expect(first.reduce((a, b) => a + b)).toBe(n);
    expect(chiSquare(first, n)).toBeLessThan(CRITICAL);
    expect(chiSquare(last, n)).toBeLessThan(CRITICAL);
    expect(chiSquare(all, 6 * n)).toBeLessThan(CRITICAL);
  });

  it.each([4, 10])("have exactly %i digits, leading zeros included", (length) => {
    const codes = Array.from({ length: 5_000 }, () => generateCode(length));
    for (const code of codes) expect(code).toMatch(new RegExp(`^\\d{${length}}$`));
    // A leading zero comes one time in ten: 5,000 codes without one would be a broken generator.
    expect(codes.filter((c) => c.startsWith("0")).length).toBeGreaterThan(300);
    expect(new Set(codes).size).toBeGreaterThan(length === 4 ? 3_000 : 4_990);
  });
});
