import { describe, expect, it } from "vitest";
import { type ClaimedMessage, claimDueMessages, LaneClaimer } from "../../src/delivery/claims.js";
import { expireUnsentMessages, releaseDueScheduled } from "../../src/delivery/schedule.js";
import type { MessageView } from "../../src/messages/store.js";
import { PRIORITY_LANE, WINDOWED_LANE } from "../../src/messages/traffic.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { nextNumber, useEventsHarness } from "../helpers/events.js";

/* Priority lanes, validity, scheduling, cancellation and the promotional window (docs/sms.md#mixed-traffic). */

const PROMO_TEMPLATE_ID = "1107169900000000001";
const PROMO_SENDER = "560001";
const HOUR = 3600;

describe.each(DIALECTS)("mixed traffic on %s", (dialect) => {
  const h = useEventsHarness(dialect);

  function sms(overrides: Record<string, unknown> = {}) {
    return {
      to: nextNumber(),
      sender: "DAKIYA",
      template_id: SMS_TEMPLATE_ID,
      variables: { ref: "A-77" },
      ...overrides,
    };
  }

  function promo(overrides: Record<string, unknown> = {}) {
    return sms({
      sender: PROMO_SENDER,
      template_id: PROMO_TEMPLATE_ID,
      variables: { offer: "20%" },
      ...overrides,
    });
  }

  async function promoAccount() {
    const account = await h.account();
    await registerDlt(h.ctx, account.accountId, {
      senders: [PROMO_SENDER],
      templates: [
        { templateId: PROMO_TEMPLATE_ID, content: "Flat {#offer#} off today.", category: "promotional" },
      ],
    });
    return account;
  }

  async function sendOk(secret: string, body: unknown): Promise<MessageView> {
    const response = await h.post(secret, "/v2/sms/send", body);
    expect(response.statusCode, response.body).toBe(202);
    return response.json<MessageView>();
  }

  async function balance(secret: string): Promise<string> {
    return (await h.getOk<{ balance: string }>(secret, "/v2/balance")).balance;
  }

  /** 10:00 UTC on the day after the test clock's: 15:30 in India, inside the promotional window. */
  function atIndiaTime(hours: number, minutes = 0): void {
    const now = h.clock.now();
    const target =
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, hours, minutes) - 330 * 60_000;
    h.clock.advance((target - now.getTime()) / 1000);
  }

  describe("priority", () => {
    it("is transactional for a single send, bulk for a batch item and a promotional template, and only steps down", async () => {
      const { secret } = await promoAccount();
      expect((await sendOk(secret, sms())).priority).toBe("transactional");
      expect((await sendOk(secret, sms({ priority: "bulk" }))).priority).toBe("bulk");
      expect((await sendOk(secret, promo())).priority).toBe("bulk");

      const up = await h.post(secret, "/v2/sms/send", promo({ priority: "transactional" }));
      expect(up.statusCode).toBe(400);
      expect(up.json().error).toMatchObject({ code: "invalid_request", param: "priority" });

      const batch = await h.post(secret, "/v2/sms/batch", {
        messages: [sms(), sms({ priority: "otp" })],
      });
      expect(batch.statusCode, batch.body).toBe(202);
      const [item, refused] = batch.json().data;
      expect(item.priority).toBe("bulk");
      expect(refused.error).toMatchObject({ code: "invalid_request", param: "priority" });
    });

    it("claims the highest lane first, oldest first within one, and leaves the windowed lane outside the window", async () => {
      const { secret, accountId } = await promoAccount();
      const bulk = await sendOk(secret, sms({ priority: "bulk" }));
      const windowed = await sendOk(secret, promo());
      const transactional = await sendOk(secret, sms());
      const otp = await h.post(secret, "/v2/otp/send", { to: nextNumber() });
      expect(otp.statusCode, otp.body).toBe(200);
      const now = h.clock.now().toISOString();
      // A lease over already, so that the second claim takes the same messages again.
      const leaseUntil = new Date(h.clock.now().getTime() - 1).toISOString();
      const claim = (lanes?: { first: number; last: number }) =>
        claimDueMessages(h.ctx.db, h.ctx.dialect, {
          owner: "test",
          now,
          leaseUntil,
          limit: 1000,
          ...(lanes ? { lanes } : {}),
        });
      const ours = (rows: ClaimedMessage[]) => rows.filter((row) => row.account_id === accountId);
      const outside = ours(await claim({ first: 0, last: WINDOWED_LANE - 1 }));
      expect(outside.map((row) => row.id)).toEqual([otp.json().message_id, transactional.id, bulk.id]);
      const all = ours(await claim());
      expect(all.map((row) => row.id)).toEqual([
        otp.json().message_id,
        transactional.id,
        bulk.id,
        windowed.id,
      ]);
      expect(all.map((row) => row.priority)).toEqual([
        PRIORITY_LANE.otp,
        PRIORITY_LANE.transactional,
        PRIORITY_LANE.bulk,
        WINDOWED_LANE,
      ]);
    });

    it("gives bulk at least a tenth of the claims while higher lanes keep the queue full", async () => {
      const { secret } = await h.account();
      const items = (priority?: string) =>
        Array.from({ length: 200 }, () => sms(priority ? { priority } : {}));
      // Batch items are bulk; the higher lane comes from single sends' default.
      const bulkBatch = await h.post(secret, "/v2/sms/batch", { messages: items() });
      expect(bulkBatch.json().accepted).toBe(200);
      for (let i = 0; i < 200; i++) await sendOk(secret, sms());
      const claimer = new LaneClaimer((limit, lanes) => {
        const now = h.clock.now().toISOString();
        return claimDueMessages(h.ctx.db, h.ctx.dialect, {
          owner: "test",
          now,
          leaseUntil: now,
          limit,
          lanes,
        });
      });
      let bulk = 0;
      let higher = 0;
      for (let round = 0; round < 10; round++) {
        for (const row of await claimer.take(10, true)) {
          if (row.priority >= PRIORITY_LANE.bulk) bulk += 1;
          else higher += 1;
        }
        // The lease ends at once: claimed rows are left alone only by status, so end them.
        await h.ctx.db
          .updateTable("messages")
          .set({ status: "submitted" })
          .where("lease_owner", "=", "test")
          .execute();
      }
      expect(higher + bulk).toBe(100);
      expect(bulk).toBeGreaterThanOrEqual(9);
      expect(bulk).toBeLessThanOrEqual(15);
    });
  });

  describe("validity", () => {
    it("refuses a validity_seconds out of range and charges nothing", async () => {
      const { secret } = await h.account();
      for (const validity of [59, 259_201, 1.5]) {
        const response = await h.post(secret, "/v2/sms/send", sms({ validity_seconds: validity }));
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().error.code).toBe("invalid_request");
      }
      expect(await balance(secret)).toBe("100.0000");
    });

    it("ends a message unsent at its expiry failed, expired and refunded, with sms.failed", async () => {
      const { secret } = await h.account();
      const message = await sendOk(secret, sms({ validity_seconds: 60 }));
      expect(message.expires_at).toBe(new Date(h.clock.now().getTime() + 60_000).toISOString());
      expect(await balance(secret)).toBe("99.7500");
      expect(await expireUnsentMessages(h.ctx)).toBe(0);
      h.clock.advance(61);
      expect(await expireUnsentMessages(h.ctx)).toBe(1);
      const ended = await h.getOk<MessageView>(secret, `/v2/sms/${message.id}`);
      expect(ended).toMatchObject({ status: "failed", error_code: "expired" });
      expect(await balance(secret)).toBe("100.0000");
      const events = await h.eventsAbout(secret, message.id);
      expect(events.map((event) => event.type)).toEqual(["sms.failed"]);
      expect(await expireUnsentMessages(h.ctx)).toBe(0);
      expect(await balance(secret)).toBe("100.0000");
    });

    it("gives an OTP's SMS the code's expiry", async () => {
      const { secret } = await h.account();
      const otp = await h.post(secret, "/v2/otp/send", { to: nextNumber() });
      const message = await h.getOk<MessageView>(secret, `/v2/sms/${otp.json().message_id}`);
      expect(message.priority).toBe("otp");
      expect(message.expires_at).toBe(otp.json().expires_at);
    });
  });

  describe("scheduling", () => {
    it("accepts and charges a send_at ahead as scheduled, lists it, and queues it at its time", async () => {
      const { secret } = await h.account();
      const sendAt = new Date(h.clock.now().getTime() + HOUR * 1000).toISOString();
      const message = await sendOk(secret, sms({ send_at: sendAt }));
      expect(message).toMatchObject({ status: "scheduled", send_at: sendAt });
      expect(message.expires_at).toBe(new Date(Date.parse(sendAt) + 86_400_000).toISOString());
      expect(await balance(secret)).toBe("99.7500");
      const scheduled = await h.getOk<{ data: MessageView[] }>(secret, "/v2/sms?status=scheduled");
      expect(scheduled.data.map((m) => m.id)).toEqual([message.id]);

      expect(await releaseDueScheduled(h.ctx)).toBe(0);
      await drainQueue(h.ctx);
      expect((await h.getOk<MessageView>(secret, `/v2/sms/${message.id}`)).status).toBe("scheduled");
      h.clock.advance(HOUR);
      expect(await releaseDueScheduled(h.ctx)).toBe(1);
      await drainQueue(h.ctx);
      expect((await h.getOk<MessageView>(secret, `/v2/sms/${message.id}`)).status).toBe("delivered");
    });

    it("refuses a send_at in the past, beyond 30 days or malformed, and changes nothing", async () => {
      const { secret } = await h.account();
      const now = h.clock.now().getTime();
      for (const sendAt of [
        new Date(now - 1000).toISOString(),
        new Date(now + 31 * 86_400_000).toISOString(),
        "tomorrow at nine",
      ]) {
        const response = await h.post(secret, "/v2/sms/send", sms({ send_at: sendAt }));
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().error).toMatchObject({ code: "invalid_request" });
      }
      expect(await balance(secret)).toBe("100.0000");
    });

    it("cancels a scheduled or queued message with its refund and event, once; not one handed to a carrier", async () => {
      const { secret } = await h.account();
      const other = await h.account();
      const sendAt = new Date(h.clock.now().getTime() + HOUR * 1000).toISOString();
      const scheduled = await sendOk(secret, sms({ send_at: sendAt }));
      const queued = await sendOk(secret, sms());
      expect(await balance(secret)).toBe("99.5000");

      expect((await h.post(other.secret, `/v2/sms/${scheduled.id}/cancel`, {})).statusCode).toBe(404);
      for (const message of [scheduled, queued]) {
        const cancelled = await h.post(secret, `/v2/sms/${message.id}/cancel`, {});
        expect(cancelled.statusCode, cancelled.body).toBe(200);
        expect(cancelled.json()).toMatchObject({ id: message.id, status: "cancelled" });
        expect(cancelled.json().cancelled_at).toBe(h.clock.now().toISOString());
        const again = await h.post(secret, `/v2/sms/${message.id}/cancel`, {});
        expect(again.statusCode).toBe(409);
        expect(again.json().error.code).toBe("not_cancellable");
        expect((await h.eventsAbout(secret, message.id)).map((event) => event.type)).toEqual([
          "sms.cancelled",
        ]);
      }
      expect(await balance(secret)).toBe("100.0000");

      const delivered = await sendOk(secret, sms());
      await drainQueue(h.ctx);
      const late = await h.post(secret, `/v2/sms/${delivered.id}/cancel`, {});
      expect(late.statusCode).toBe(409);
      expect(late.json().error.message).toMatch(/delivered/);
      expect(await balance(secret)).toBe("99.7500");
    });

    it("lets exactly one of a cancel and a claim racing for each message win", async () => {
      const { secret } = await h.account();
      const batch = await h.post(secret, "/v2/sms/batch", {
        messages: Array.from({ length: 40 }, () => sms()),
      });
      const ids: string[] = batch.json().data.map((m: MessageView) => m.id);
      // PostgreSQL: another instance's pool, so the statements really run at once. SQLite has one
      // writer, and two instances in one thread would wait on each other's lock synchronously.
      const other = dialect === "postgres" ? await h.openOther() : h;
      const now = h.clock.now().toISOString();
      const leaseUntil = new Date(h.clock.now().getTime() + 30_000).toISOString();
      const [claimed, ...cancels] = await Promise.all([
        claimDueMessages(other.ctx.db, other.ctx.dialect, { owner: "racer", now, leaseUntil, limit: 40 }),
        ...ids.map((id) => h.post(secret, `/v2/sms/${id}/cancel`, {})),
      ]);
      const claimedIds = new Set(claimed.map((row) => row.id));
      const outcomes = ids.map(
        (id, index) => `${claimedIds.has(id) ? "claimed" : "-"} ${cancels[index]?.statusCode}`,
      );
      expect(outcomes.filter((o) => o !== "claimed 409" && o !== "- 200")).toEqual([]);
      const refunded = cancels.filter((response) => response.statusCode === 200).length;
      expect(Number(await balance(secret))).toBeCloseTo(100 - (40 - refunded) * 0.25, 4);
    });
  });

  describe("the promotional window", () => {
    it("holds promotional traffic accepted at night until 09:00 India time; transactional goes at once", async () => {
      const { secret } = await promoAccount();
      atIndiaTime(22, 30);
      const held = await sendOk(secret, promo());
      const opening = new Date(h.clock.now().getTime() + 10.5 * HOUR * 1000).toISOString();
      expect(held).toMatchObject({ status: "scheduled", send_at: opening, priority: "bulk" });
      const transactional = await sendOk(secret, sms());
      expect(transactional.status).toBe("queued");

      const short = await h.post(secret, "/v2/sms/send", promo({ validity_seconds: HOUR }));
      expect(short.statusCode).toBe(400);
      expect(short.json().error.param).toBe("validity_seconds");

      await drainQueue(h.ctx);
      expect((await h.getOk<MessageView>(secret, `/v2/sms/${held.id}`)).status).toBe("scheduled");
      h.clock.advance(10.5 * HOUR);
      expect(await releaseDueScheduled(h.ctx)).toBeGreaterThanOrEqual(1);
      await drainQueue(h.ctx);
      expect((await h.getOk<MessageView>(secret, `/v2/sms/${held.id}`)).status).toBe("delivered");
    });

    it("leaves queued promotional messages waiting when the window closes, and sends them when it opens", async () => {
      const { secret } = await promoAccount();
      atIndiaTime(20, 59);
      const queued = await sendOk(secret, promo());
      expect(queued.status).toBe("queued");
      h.clock.advance(120);
      await drainQueue(h.ctx, {}, 1_000).catch(() => undefined);
      expect((await h.getOk<MessageView>(secret, `/v2/sms/${queued.id}`)).status).toBe("queued");
      h.clock.advance(12 * HOUR);
      await drainQueue(h.ctx);
      expect((await h.getOk<MessageView>(secret, `/v2/sms/${queued.id}`)).status).toBe("delivered");
    });
  });
});
