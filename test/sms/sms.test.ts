import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import type { Carrier, OutboundMessage } from "../../src/delivery/carrier.js";
import { failMessage } from "../../src/delivery/failures.js";
import type { App } from "../../src/http/types.js";
import { createKey } from "../../src/keys/keys.js";
import type { MessageView } from "../../src/messages/store.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt, TEST_ENTITY_ID, type TemplateSpec } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey, sendStateOf } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/** 19-digit DLT template ids: beyond Number.MAX_SAFE_INTEGER, so a trip through a number would show. */
const OTP = "1107161234567890123";
const INACTIVE = "1107161234567890124";
const GSM_160 = "1107161234567890125";
const EURO = "1107161234567890126";
const HINDI = "1107161234567890127";
const HINDI_70 = "1107161234567890128";
const LONG_GSM = "1107161234567890129";
const LONG_UCS2 = "1107161234567890130";

/** Every account gets these: DAKIYA may send OTP; OTHERS is registered but not allowed for it. */
const STANDARD_REGISTRY = {
  senders: ["DAKIYA", "OTHERS"],
  templates: [
    { templateId: OTP, content: "Hi {#name#}, {#otp#} is your Dakiya login code. Do not share it." },
    { templateId: INACTIVE, content: "Your order {#order#} has shipped.", status: "inactive" },
  ] satisfies TemplateSpec[],
};

/** Templates whose rendered length sits on the encoding and segment boundaries. */
const ENCODING_TEMPLATES: TemplateSpec[] = [
  // "Code 123456 " is 12 characters: with a 6-digit otp the text is exactly 160, with 7 it is 161.
  { templateId: GSM_160, content: `Code {#otp#} ${"x".repeat(148)}` },
  // € is in the GSM extension table and costs two septets: 79 + 1 of them are exactly 160.
  { templateId: EURO, content: `${"€".repeat(79)}{#v#}` },
  { templateId: HINDI, content: "नमस्ते {#name#}, आपका Dakiya कोड {#otp#} है।" },
  // 64 + a 6-digit otp = 70 UTF-16 units (one UCS-2 SMS); a 7-digit otp makes 71.
  { templateId: HINDI_70, content: `${"क".repeat(64)}{#otp#}` },
  // 1525 + 5 = 1530 septets = 10 parts of 153; one more needs an 11th part.
  { templateId: LONG_GSM, content: `${"a".repeat(1525)}{#v#}` },
  // 665 + 5 = 670 units = 10 parts of 67; one more needs an 11th part.
  { templateId: LONG_UCS2, content: `${"क".repeat(665)}{#v#}` },
];

const TO = "+919876543210";
const VALID = {
  to: TO,
  sender: "DAKIYA",
  template_id: OTP,
  variables: { name: "Asha", otp: "4821" },
} as const;
const VALID_TEXT = "Hi Asha, 4821 is your Dakiya login code. Do not share it.";

/** ₹100 in 1/10,000 INR. */
const HUNDRED_RUPEES = 1_000_000;

type Body = Record<string, unknown>;

function without(body: Body, field: string): Body {
  const { [field]: _dropped, ...rest } = body;
  return rest;
}

/** A live SMS carrier that records what it is given and accepts everything. */
function recordingCarrier(): { carrier: Carrier; sent: OutboundMessage[] } {
  const sent: OutboundMessage[] = [];
  const carrier: Carrier = {
    name: "test-smsc",
    async send(message) {
      sent.push(message);
      return { outcome: "accepted", carrierMessageIds: [`smsc-${message.id}`] };
    },
  };
  return { carrier, sent };
}

describe.each(DIALECTS)("SMS send and delivery on %s", (dialect) => {
  /** Other processes on the same database: one with a live SMS carrier, one with its own price list. */
  const instances = useTestInstances(dialect);
  const { clock, openInstance: openOther } = instances;
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  /** An account with a key in `environment`, credits there, and the standard DLT registry. */
  async function account(
    environment: Environment = "sandbox",
    credits = HUNDRED_RUPEES,
    extra: TemplateSpec[] = [],
  ) {
    const created = await createAccountWithKey(ctx, environment, credits);
    await registerDlt(ctx, created.accountId, {
      senders: STANDARD_REGISTRY.senders,
      templates: [...STANDARD_REGISTRY.templates, ...extra],
    });
    return created;
  }

  function send(secret: string, body: Body, options: { target?: App; idempotencyKey?: string } = {}) {
    return (options.target ?? app).inject({
      method: "POST",
      url: "/v2/sms/send",
      payload: JSON.stringify(body),
      headers: {
        "content-type": "application/json",
        ...bearer(secret),
        ...(options.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey }),
      },
    });
  }

  function getSms(secret: string, id: string, target: App = app) {
    return target.inject({
      method: "GET",
      url: `/v2/sms/${encodeURIComponent(id)}`,
      headers: bearer(secret),
    });
  }

  function inbox(secret: string, query: Record<string, string | number> = {}) {
    const search = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return app.inject({
      method: "GET",
      url: `/v2/sandbox/messages${search ? `?${search}` : ""}`,
      headers: bearer(secret),
    });
  }

  async function balanceOf(secret: string): Promise<string> {
    const response = await app.inject({ method: "GET", url: "/v2/balance", headers: bearer(secret) });
    expect(response.statusCode).toBe(200);
    return response.json().balance;
  }

  async function ledgerOf(accountId: string, environment: Environment) {
    const rows = await ctx.db
      .selectFrom("ledger_entries")
      .select(["amount", "balance_after", "reason", "reference"])
      .where("account_id", "=", accountId)
      .where("environment", "=", environment)
      .execute();
    return rows.map((row) => ({
      ...row,
      amount: Number(row.amount),
      balance_after: Number(row.balance_after),
    }));
  }

  /** Everything a send could change for an account: both balances, the ledger, its messages. */
  function stateOf(accountId: string) {
    return sendStateOf(ctx.db, accountId);
  }

  async function messageRow(id: string) {
    return ctx.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async function sendOk(secret: string, body: Body, target: App = app): Promise<MessageView> {
    const response = await send(secret, body, { target });
    expect(response.statusCode, response.body).toBe(202);
    return response.json<MessageView>();
  }

  describe("the happy path", () => {
    it("queues, charges once, delivers through the sandbox and shows it in the inbox", async () => {
      const { accountId, secret } = await account();
      const queuedAt = clock.now().toISOString();

      const response = await send(secret, { ...VALID, reference: "order-77" });
      expect(response.statusCode).toBe(202);
      const message = response.json<MessageView>();
      expect(message.id).toMatch(/^msg_[0-9A-Za-z]{16,}$/);
      expect(message).toEqual({
        id: message.id,
        status: "queued",
        environment: "sandbox",
        channel: "sms",
        to: TO,
        sender: "DAKIYA",
        template_id: OTP,
        reference: "order-77",
        text: VALID_TEXT,
        encoding: "gsm7",
        segments: 1,
        cost: "0.2500",
        currency: "INR",
        error_code: null,
        error_message: null,
        carrier_error: null,
        carrier_message_ids: [],
        route: null,
        priority: "transactional",
        expires_at: new Date(clock.now().getTime() + 86_400_000).toISOString(),
        send_at: null,
        created_at: queuedAt,
        submitted_at: null,
        delivered_at: null,
        undelivered_at: null,
        failed_at: null,
        cancelled_at: null,
        campaign_id: null,
      });

      const charges = (await ledgerOf(accountId, "sandbox")).filter((e) => e.reason !== "credits_added");
      expect(charges).toEqual([
        { amount: -2500, balance_after: HUNDRED_RUPEES - 2500, reason: "sms_charge", reference: message.id },
      ]);
      expect(await balanceOf(secret)).toBe("99.7500");

      clock.advance(5);
      const deliveredAt = clock.now().toISOString();
      await drainQueue(ctx);

      const fetched = await getSms(secret, message.id);
      expect(fetched.statusCode).toBe(200);
      const delivered = fetched.json<MessageView>();
      expect(delivered.carrier_message_ids).toHaveLength(1);
      expect(delivered.carrier_message_ids[0]).toMatch(/^sbx_/);
      expect(delivered).toEqual({
        ...message,
        status: "delivered",
        submitted_at: deliveredAt,
        delivered_at: deliveredAt,
        carrier_message_ids: delivered.carrier_message_ids,
      });
      // Delivery neither charges nor refunds anything more.
      expect(await balanceOf(secret)).toBe("99.7500");

      // A second message, later: the inbox is newest first.
      const other = "+919812345678";
      const second = await sendOk(secret, { ...VALID, to: other, variables: { name: "Ravi", otp: "1234" } });
      clock.advance(5);
      const secondAt = clock.now().toISOString();
      await drainQueue(ctx);

      const all = await inbox(secret);
      expect(all.statusCode).toBe(200);
      expect(all.json()).toEqual({
        data: [
          {
            id: expect.stringMatching(/^sbx_/),
            message_id: second.id,
            channel: "sms",
            to: other,
            text: "Hi Ravi, 1234 is your Dakiya login code. Do not share it.",
            created_at: secondAt,
          },
          {
            id: delivered.carrier_message_ids[0],
            message_id: message.id,
            channel: "sms",
            to: TO,
            text: VALID_TEXT,
            created_at: deliveredAt,
          },
        ],
      });

      const filtered = await inbox(secret, { to: TO });
      expect(filtered.json().data.map((m: { message_id: string }) => m.message_id)).toEqual([message.id]);
      const limited = await inbox(secret, { limit: 1 });
      expect(limited.json().data.map((m: { message_id: string }) => m.message_id)).toEqual([second.id]);

      for (const limit of [0, 101, "ten"]) {
        const refused = await inbox(secret, { limit });
        expect(refused.statusCode, `limit=${limit}`).toBe(400);
        expect(refused.json().error).toMatchObject({ code: "invalid_request", param: "limit" });
      }
      const unencodedPlus = await app.inject({
        method: "GET",
        url: `/v2/sandbox/messages?to=${TO}`,
        headers: bearer(secret),
      });
      expect(unencodedPlus.json().data.map((m: { message_id: string }) => m.message_id)).toEqual([
        message.id,
      ]);
      const foreign = await inbox(secret, { to: "+14155552671" });
      expect(foreign.json()).toEqual({ data: [] });
      const badTo = await inbox(secret, { to: "12345" });
      expect(badTo.statusCode).toBe(400);
      expect(badTo.json().error).toMatchObject({ code: "invalid_request", param: "to" });
    });

    it("accepts a 30-character variable and a 64-character reference", async () => {
      const { secret } = await account();
      const message = await sendOk(secret, {
        ...VALID,
        variables: { name: "A".repeat(30), otp: "4821" },
        reference: "r".repeat(64),
      });
      expect(message.text).toBe(`Hi ${"A".repeat(30)}, 4821 is your Dakiya login code. Do not share it.`);
      expect(message.reference).toBe("r".repeat(64));
      // No reference → null, not missing.
      expect((await sendOk(secret, VALID)).reference).toBeNull();
    });
  });

  describe("checks of a send, in the contract's order", () => {
    let refused: { accountId: string; secret: string };

    beforeAll(async () => {
      refused = await account();
    });

    const cases: Array<[string, Body, number, string, string | undefined]> = [
      ["`to` without a plus", { ...VALID, to: "919876543210" }, 400, "invalid_request", "to"],
      ["`to` with letters", { ...VALID, to: "+91987654321O" }, 400, "invalid_request", "to"],
      ["`to` too short", { ...VALID, to: "+9198" }, 400, "invalid_request", "to"],
      ["`to` empty", { ...VALID, to: "" }, 400, "invalid_request", "to"],
      ["`to` with spaces", { ...VALID, to: "+91 98765 43210" }, 400, "invalid_request", "to"],
      ["+91 with a first digit 5", { ...VALID, to: "+915876543210" }, 400, "invalid_request", "to"],
      ["+91 with 9 digits", { ...VALID, to: "+91987654321" }, 400, "invalid_request", "to"],
      ["+91 with 11 digits", { ...VALID, to: "+9198765432101" }, 400, "invalid_request", "to"],
      ["`to` not a string", { ...VALID, to: 919876543210 }, 400, "invalid_request", "to"],
      ["a US number", { ...VALID, to: "+14155552671" }, 422, "unsupported_destination", "to"],
      ["a UK mobile", { ...VALID, to: "+447911123456" }, 422, "unsupported_destination", "to"],
      ["an unknown sender", { ...VALID, sender: "NOSUCH" }, 422, "unknown_sender", "sender"],
      [
        "an unknown template",
        { ...VALID, template_id: "1107000000000000000" },
        422,
        "unknown_template",
        "template_id",
      ],
      [
        "a deactivated template",
        { ...VALID, template_id: INACTIVE, variables: { order: "A1" } },
        422,
        "template_inactive",
        "template_id",
      ],
      [
        "a registered sender the template does not allow",
        { ...VALID, sender: "OTHERS" },
        422,
        "template_sender_mismatch",
        "sender",
      ],
      [
        "a missing variable",
        { ...VALID, variables: { name: "Asha" } },
        422,
        "missing_variable",
        "variables.otp",
      ],
      ["no variables at all", without(VALID, "variables"), 422, "missing_variable", "variables.name"],
      [
        "an extra variable",
        { ...VALID, variables: { ...VALID.variables, coupon: "X" } },
        422,
        "unknown_variable",
        "variables.coupon",
      ],
      [
        "a 31-character value",
        { ...VALID, variables: { name: "A".repeat(31), otp: "4821" } },
        422,
        "variable_too_long",
        "variables.name",
      ],
      [
        "a 31-character Devanagari value",
        { ...VALID, variables: { name: "क".repeat(31), otp: "4821" } },
        422,
        "variable_too_long",
        "variables.name",
      ],
      [
        "a number as a value",
        { ...VALID, variables: { name: "Asha", otp: 4821 } },
        400,
        "invalid_request",
        "variables.otp",
      ],
      [
        "null as a value",
        { ...VALID, variables: { name: null, otp: "4821" } },
        400,
        "invalid_request",
        "variables.name",
      ],
      ["variables not an object", { ...VALID, variables: ["Asha"] }, 400, "invalid_request", "variables"],
      ["an unknown top-level field", { ...VALID, priority: "high" }, 400, "invalid_request", "priority"],
      ["no `to`", without(VALID, "to"), 400, "invalid_request", "to"],
      ["no `sender`", without(VALID, "sender"), 400, "invalid_request", "sender"],
      ["no `template_id`", without(VALID, "template_id"), 400, "invalid_request", "template_id"],
      [
        "a 65-character reference",
        { ...VALID, reference: "r".repeat(65) },
        400,
        "invalid_request",
        "reference",
      ],
      // Two faults at once: the earlier check in the contract's order wins.
      [
        "bad `to` and an unknown sender",
        { ...VALID, to: "98765", sender: "NOSUCH" },
        400,
        "invalid_request",
        "to",
      ],
      [
        "a foreign number and an unknown sender",
        { ...VALID, to: "+14155552671", sender: "NOSUCH" },
        422,
        "unsupported_destination",
        "to",
      ],
      [
        "an unknown sender and an unknown template",
        { ...VALID, sender: "NOSUCH", template_id: "1107000000000000000" },
        422,
        "unknown_sender",
        "sender",
      ],
      [
        "an unknown template and a sender it could not allow",
        { ...VALID, sender: "OTHERS", template_id: "1107000000000000000" },
        422,
        "unknown_template",
        "template_id",
      ],
      [
        "a deactivated template and a sender it does not allow",
        { ...VALID, sender: "OTHERS", template_id: INACTIVE, variables: {} },
        422,
        "template_inactive",
        "template_id",
      ],
      [
        "a sender the template does not allow and a missing variable",
        { ...VALID, sender: "OTHERS", variables: {} },
        422,
        "template_sender_mismatch",
        "sender",
      ],
      [
        "an extra variable and a missing one",
        { ...VALID, variables: { coupon: "X", name: "Asha" } },
        422,
        "missing_variable",
        "variables.otp",
      ],
      [
        "a too-long value and an extra variable",
        { ...VALID, variables: { name: "A".repeat(31), otp: "4821", coupon: "X" } },
        422,
        "unknown_variable",
        "variables.coupon",
      ],
    ];

    const table = cases.map(([name, body, status, code, param]) => ({ name, body, status, code, param }));

    it.each(table)(
      "$name → $status $code, nothing charged or stored",
      async ({ body, status, code, param }) => {
        const before = await stateOf(refused.accountId);
        const response = await send(refused.secret, body);
        expect(response.statusCode, response.body).toBe(status);
        const { error } = response.json();
        expect(error.code).toBe(code);
        expect(error.param).toBe(param);
        expect(error.request_id).toBe(response.headers["x-request-id"]);
        const after = await stateOf(refused.accountId);
        expect(after).toEqual(before);
        expect(after.messages).toEqual([]);
      },
    );
  });

  describe("encoding, segments and price", () => {
    let encoding: { accountId: string; secret: string };

    beforeAll(async () => {
      encoding = await account("sandbox", HUNDRED_RUPEES, ENCODING_TEMPLATES);
    });

    async function charged(messageId: string): Promise<number[]> {
      const entries = await ledgerOf(encoding.accountId, "sandbox");
      return entries.filter((e) => e.reference === messageId).map((e) => e.amount);
    }

    it.each([
      ["exactly 160 GSM characters → 1 segment, 0.2500", GSM_160, { otp: "123456" }, "gsm7", 1, "0.2500"],
      ["161 GSM characters → 2 segments, 0.5000", GSM_160, { otp: "1234567" }, "gsm7", 2, "0.5000"],
      ["79 € and a letter = 159 septets → 1 segment", EURO, { v: "a" }, "gsm7", 1, "0.2500"],
      ["80 € = 160 septets → 1 segment", EURO, { v: "€" }, "gsm7", 1, "0.2500"],
      ["81 € = 162 septets → 2 segments", EURO, { v: "€€" }, "gsm7", 2, "0.5000"],
      ["exactly 70 UCS-2 units → 1 segment", HINDI_70, { otp: "123456" }, "ucs2", 1, "0.2500"],
      ["71 UCS-2 units → 2 segments, 0.5000", HINDI_70, { otp: "1234567" }, "ucs2", 2, "0.5000"],
      ["1530 septets → 10 segments, 2.5000", LONG_GSM, { v: "12345" }, "gsm7", 10, "2.5000"],
      ["670 UCS-2 units → 10 segments, 2.5000", LONG_UCS2, { v: "12345" }, "ucs2", 10, "2.5000"],
    ])("%s", async (_name, templateId, variables, expectedEncoding, segments, cost) => {
      const message = await sendOk(encoding.secret, {
        to: TO,
        sender: "DAKIYA",
        template_id: templateId,
        variables,
      });
      expect(message).toMatchObject({ encoding: expectedEncoding, segments, cost });
      expect(await charged(message.id)).toEqual([-2500 * segments]);
    });

    it("renders a Hindi template as UCS-2 with the text intact", async () => {
      const message = await sendOk(encoding.secret, {
        to: TO,
        sender: "DAKIYA",
        template_id: HINDI,
        variables: { name: "आशा", otp: "4821" },
      });
      expect(message).toMatchObject({
        text: "नमस्ते आशा, आपका Dakiya कोड 4821 है।",
        encoding: "ucs2",
        segments: 1,
        cost: "0.2500",
      });
    });

    it.each([
      ["GSM-7", LONG_GSM],
      ["UCS-2", LONG_UCS2],
    ])(
      "refuses a %s text that needs 11 parts with message_too_long, nothing charged",
      async (_name, templateId) => {
        const before = await stateOf(encoding.accountId);
        const response = await send(encoding.secret, {
          to: TO,
          sender: "DAKIYA",
          template_id: templateId,
          variables: { v: "123456" },
        });
        expect(response.statusCode).toBe(422);
        expect(response.json().error.code).toBe("message_too_long");
        expect(await stateOf(encoding.accountId)).toEqual(before);
      },
    );

    it("prices with the operator's PRICE_SMS_SEGMENT", async () => {
      const priced = await openOther({ env: { PRICE_SMS_SEGMENT: "0.1000" } });
      const message = await sendOk(
        encoding.secret,
        { to: TO, sender: "DAKIYA", template_id: GSM_160, variables: { otp: "1234567" } },
        priced.app,
      );
      expect(message).toMatchObject({ segments: 2, cost: "0.2000" });
      expect(await charged(message.id)).toEqual([-2000]);
    });
  });

  describe("balance", () => {
    it("refuses with 402 when the balance cannot pay for one message", async () => {
      const { accountId, secret } = await account("sandbox", 2_499);
      const before = await stateOf(accountId);
      const response = await send(secret, VALID);
      expect(response.statusCode).toBe(402);
      expect(response.json().error.code).toBe("insufficient_balance");
      expect(response.json().error.param).toBeUndefined();
      expect(await stateOf(accountId)).toEqual(before);
      expect(before.messages).toEqual([]);
      expect(await balanceOf(secret)).toBe("0.2499");
    });

    it("sends exactly as many messages as the balance pays for", async () => {
      const { accountId, secret } = await account("sandbox", 2_500);
      const first = await send(secret, VALID);
      expect(first.statusCode).toBe(202);
      expect(await balanceOf(secret)).toBe("0.0000");
      const second = await send(secret, VALID);
      expect(second.statusCode).toBe(402);
      expect(second.json().error.code).toBe("insufficient_balance");
      const state = await stateOf(accountId);
      expect(state.messages).toEqual([first.json().id]);
      expect(state.ledger).toHaveLength(2); // the credit and the one charge
    });

    it("refuses a two-segment message when only one segment is paid for", async () => {
      const { accountId, secret } = await account("sandbox", 4_999, ENCODING_TEMPLATES);
      const before = await stateOf(accountId);
      const response = await send(secret, {
        to: TO,
        sender: "DAKIYA",
        template_id: GSM_160,
        variables: { otp: "1234567" },
      });
      expect(response.statusCode).toBe(402);
      expect(await stateOf(accountId)).toEqual(before);
    });
  });

  describe("live keys", () => {
    it("without a live SMS carrier → 422 channel_not_configured, nothing charged", async () => {
      const { accountId, secret } = await account("live");
      const before = await stateOf(accountId);
      const response = await send(secret, VALID);
      expect(response.statusCode).toBe(422);
      expect(response.json().error.code).toBe("channel_not_configured");
      expect(await stateOf(accountId)).toEqual(before);
      expect(before.messages).toEqual([]);
    });

    it("with a live carrier: charges the live balance and delivers to that carrier, not the sandbox", async () => {
      const { carrier, sent } = recordingCarrier();
      const live = await openOther({ liveCarriers: { sms: carrier } });
      const { accountId, secret } = await account("live");
      const sandboxKey = await createKey(ctx, { accountId, environment: "sandbox" }, CLI_ORIGIN);
      await ctx.db
        .updateTable("balances")
        .set({ balance: 50_000 })
        .where("account_id", "=", accountId)
        .where("environment", "=", "sandbox")
        .execute();

      const message = await sendOk(secret, { ...VALID, reference: "live-1" }, live.app);
      expect(message).toMatchObject({ environment: "live", status: "queued", cost: "0.2500" });
      expect(await ledgerOf(accountId, "live")).toContainEqual({
        amount: -2500,
        balance_after: HUNDRED_RUPEES - 2500,
        reason: "sms_charge",
        reference: message.id,
      });
      expect(await balanceOf(secret)).toBe("99.7500");
      expect(await balanceOf(sandboxKey.secret)).toBe("5.0000");
      expect(await ledgerOf(accountId, "sandbox")).toEqual([]);

      clock.advance(1);
      await drainQueue(live.ctx);
      expect(sent).toEqual([
        {
          id: message.id,
          accountId,
          environment: "live",
          channel: "sms",
          to: TO,
          sender: "DAKIYA",
          templateId: OTP,
          entityId: TEST_ENTITY_ID,
          text: VALID_TEXT,
          encoding: "gsm7",
          segments: 1,
          priority: "transactional",
          category: "transactional",
          expiresAt: message.expires_at,
        },
      ]);
      const fetched = (await getSms(secret, message.id, live.app)).json<MessageView>();
      expect(fetched).toMatchObject({
        status: "submitted",
        submitted_at: clock.now().toISOString(),
        delivered_at: null,
        carrier_message_ids: [`smsc-${message.id}`],
      });
      expect((await messageRow(message.id))?.carrier).toBe("test-smsc");
      const inSandbox = await ctx.db
        .selectFrom("sandbox_messages")
        .select("id")
        .where("message_id", "=", message.id)
        .execute();
      expect(inSandbox).toEqual([]);
      expect((await inbox(sandboxKey.secret)).json()).toEqual({ data: [] });
    });
  });

  describe("sandbox test numbers through the worker", () => {
    it("rehearse undelivered, failed (refunded once) and no-receipt outcomes", async () => {
      const { accountId, secret } = await account();
      const numbers = ["+919999999911", "+919999999922", "+919999999933", "+919999999944"] as const;
      const ids: string[] = [];
      for (const to of numbers) ids.push((await sendOk(secret, { ...VALID, to })).id);
      const [invalidNumber, dnd, rejected, silent] = ids as [string, string, string, string];
      expect(await balanceOf(secret)).toBe("99.0000");

      clock.advance(2);
      const at = clock.now().toISOString();
      await drainQueue(ctx);

      const view = async (id: string) => (await getSms(secret, id)).json<MessageView>();
      expect(await view(invalidNumber)).toMatchObject({
        status: "undelivered",
        error_code: "invalid_number",
        error_message: expect.any(String),
        submitted_at: at,
        undelivered_at: at,
        delivered_at: null,
      });
      expect(await view(dnd)).toMatchObject({
        status: "undelivered",
        error_code: "dnd_blocked",
        undelivered_at: at,
      });
      expect(await view(rejected)).toMatchObject({
        status: "failed",
        error_code: "carrier_rejected",
        error_message: expect.any(String),
        failed_at: at,
        submitted_at: null,
        carrier_message_ids: [],
      });
      expect(await view(silent)).toMatchObject({
        status: "submitted",
        submitted_at: at,
        delivered_at: null,
        undelivered_at: null,
      });

      // Only the failed message is refunded, once; undelivered ones reached the carrier and stay paid.
      const refunds = async () =>
        (await ledgerOf(accountId, "sandbox")).filter((e) => e.reason === "sms_refund");
      expect(await refunds()).toEqual([
        { amount: 2500, balance_after: expect.any(Number), reason: "sms_refund", reference: rejected },
      ]);
      const charges = (await ledgerOf(accountId, "sandbox")).filter((e) => e.reason === "sms_charge");
      expect(charges.map((e) => e.reference).sort()).toEqual([...ids].sort());
      expect(await balanceOf(secret)).toBe("99.2500");

      // Nothing refunds it a second time: another worker round, or failing it again directly.
      clock.advance(3600);
      await drainQueue(ctx);
      expect(await failMessage(ctx, rejected, { code: "carrier_rejected", message: "again" })).toBe(false);
      expect(await failMessage(ctx, invalidNumber, { code: "late", message: "late" })).toBe(false);
      expect(await refunds()).toHaveLength(1);
      expect(await balanceOf(secret)).toBe("99.2500");
      expect((await view(silent)).status).toBe("submitted");
      expect((await view(invalidNumber)).status).toBe("undelivered");

      // The rejected message never reached the inbox; the others did.
      const delivered = (await inbox(secret)).json().data.map((m: { message_id: string }) => m.message_id);
      expect(delivered.sort()).toEqual([invalidNumber, dnd, silent].sort());
    });
  });

  describe("isolation", () => {
    it("a message is visible only to its account and environment", async () => {
      const a = await account();
      const aLive = await createKey(ctx, { accountId: a.accountId, environment: "live" }, CLI_ORIGIN);
      const b = await account();
      const message = await sendOk(a.secret, VALID);

      expect((await getSms(a.secret, message.id)).statusCode).toBe(200);
      for (const [who, secret, id] of [
        ["the live key of the same account", aLive.secret, message.id],
        ["another account", b.secret, message.id],
        ["an unknown id", a.secret, "msg_doesnotexist000000000"],
      ] as const) {
        const response = await getSms(secret, id);
        expect(response.statusCode, who).toBe(404);
        expect(response.json().error.code, who).toBe("not_found");
      }

      const liveInbox = await inbox(aLive.secret);
      expect(liveInbox.statusCode).toBe(404);
      expect(liveInbox.json().error.code).toBe("not_found");

      const theirs = await sendOk(b.secret, VALID);
      await drainQueue(ctx);
      const ofA = (await inbox(a.secret, { to: TO }))
        .json()
        .data.map((m: { message_id: string }) => m.message_id);
      const ofB = (await inbox(b.secret, { to: TO }))
        .json()
        .data.map((m: { message_id: string }) => m.message_id);
      expect(ofA).toEqual([message.id]);
      expect(ofB).toEqual([theirs.id]);
    });
  });

  describe("idempotency", () => {
    it("a repeated Idempotency-Key sends and charges once and replays the first answer", async () => {
      const { accountId, secret } = await account();
      const first = await send(secret, VALID, { idempotencyKey: "send-1" });
      expect(first.statusCode).toBe(202);
      expect(first.headers["idempotent-replayed"]).toBeUndefined();
      const again = await send(secret, VALID, { idempotencyKey: "send-1" });
      expect(again.statusCode).toBe(202);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(again.json()).toEqual(first.json());

      const reused = await send(secret, { ...VALID, to: "+919812345678" }, { idempotencyKey: "send-1" });
      expect(reused.statusCode).toBe(422);
      expect(reused.json().error.code).toBe("idempotency_key_reused");

      const state = await stateOf(accountId);
      expect(state.messages).toEqual([first.json().id]);
      expect((await ledgerOf(accountId, "sandbox")).filter((e) => e.reason === "sms_charge")).toHaveLength(1);
      expect(await balanceOf(secret)).toBe("99.7500");
    });
  });
});
