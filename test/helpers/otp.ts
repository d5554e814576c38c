import { sql } from "kysely";
import { beforeAll, expect } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { Dialect, Environment } from "../../src/db/schema.js";
import type { Carrier, OutboundMessage } from "../../src/delivery/carrier.js";
import type { App } from "../../src/http/types.js";
import { createLogger } from "../../src/lib/logger.js";
import { type TestClock, UNLIMITED_REQUESTS } from "./context.js";
import { drainQueue } from "./delivery.js";
import { createSendingAccount, type SendingAccountOptions } from "./dlt-fixtures.js";
import { bearer, sendStateOf } from "./fixtures.js";
import { type InstanceOptions, type TestInstance, useTestInstances } from "./instances.js";

/* Shared by the OTP test files (test/otp-*.test.ts): fixtures, and a harness per dialect. */

/** ₹100 in 1/10,000 INR. */
export const HUNDRED_RUPEES = 1_000_000;

/** Sandbox test numbers of docs/api-reference.md#sandbox. */
export const INVALID_NUMBER = "+919999999911";
export const DND_BLOCKED = "+919999999922";
export const CARRIER_REJECTED = "+919999999933";
export const NO_RECEIPT = "+919999999944";

export type Body = Record<string, unknown>;

export interface OtpResponse {
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

export interface OtpDetails {
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

export interface VerifyResponse {
  verified: boolean;
  reason: string;
  attempts_remaining: number;
}

export interface InboxItem {
  id: string;
  message_id: string;
  channel: string;
  to: string;
  text: string;
  created_at: string;
}

/** A distinct, valid Indian mobile for every call. */
let numbers = 0;
export function nextNumber(): string {
  numbers += 1;
  return `+9198${String(numbers).padStart(8, "0")}`;
}

/** A code of the same length that is certainly not `code`. */
export function wrong(code: string): string {
  return `${code.slice(0, -1)}${code.endsWith("0") ? "1" : "0"}`;
}

export function isoIn(clock: TestClock, seconds: number): string {
  return new Date(clock.now().getTime() + seconds * 1000).toISOString();
}

/** The code a sandbox delivery carried, read from its text the way a developer would. */
export function codeIn(item: InboxItem): string {
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
export function recordingCarrier(name: string): { carrier: Carrier; sent: OutboundMessage[] } {
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

/**
 * Opens a fresh database, context and app for one dialect's describe block (closed after it),
 * and the helpers the OTP tests drive them with. `ctx` and `app` exist from the first beforeAll on.
 */
export function useOtpHarness(dialect: Dialect) {
  /** Every log line of the main context, at trace level. */
  const logLines: string[] = [];
  const instances = useTestInstances(dialect, {
    env: UNLIMITED_REQUESTS,
    log: createLogger("trace", { write: (line: string) => void logLines.push(line) }),
  });
  const { clock } = instances;
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  /** Another process on the same database and clock (other limits, live carriers, a second instance). */
  function openOther(options: InstanceOptions = {}): Promise<TestInstance> {
    return instances.openInstance(options);
  }

  /** A sending account (createSendingAccount), with ₹100 unless `credits` says otherwise. */
  function account(options: SendingAccountOptions & { credits?: number } = {}) {
    return createSendingAccount(ctx, options.credits ?? HUNDRED_RUPEES, options);
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
    const [state, otps] = await Promise.all([
      sendStateOf(ctx.db, accountId),
      ctx.db
        .selectFrom("otps")
        .select(["id", "status", "sends", "attempts"])
        .where("account_id", "=", accountId)
        .orderBy("id")
        .execute(),
    ]);
    return {
      ...state,
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

  return {
    get database() {
      return instances.database;
    },
    get ctx() {
      return ctx;
    },
    get app() {
      return app;
    },
    clock,
    logLines,
    openOther,
    account,
    send,
    sendOk,
    verify,
    verifyOk,
    getOtp,
    otpDetails,
    getSms,
    inboxOf,
    deliveredCode,
    sentOtp,
    ledgerOf,
    stateOf,
    dumpDatabase,
  };
}

export type OtpHarness = ReturnType<typeof useOtpHarness>;
