import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { OTP_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import {
  type Body,
  codeIn,
  type InboxItem,
  isoIn,
  nextNumber,
  type OtpResponse,
  useOtpHarness,
  wrong,
} from "../helpers/otp.js";

/* Sending an OTP: the response, the delivered code, no code kept in clear, idempotent sends. */

describe.each(DIALECTS)("OTP send on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const {
    clock,
    logLines,
    account,
    send,
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
  } = harness;
  let ctx: AppContext;
  beforeAll(() => {
    ({ ctx } = harness);
  });

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
        template_id: OTP_TEMPLATE_ID,
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
      const { accountId, secret } = await account({ otpSettings: { length: 8 } });
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
      expect(logs).toContain("request completed");
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
