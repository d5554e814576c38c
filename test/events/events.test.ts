import { describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import { claimDueMessages } from "../../src/delivery/claims.js";
import { markSubmitted } from "../../src/delivery/status.js";
import { type EventView, recordEvent } from "../../src/events/outbox.js";
import { purgeExpired } from "../../src/maintenance.js";
import type { MessageView } from "../../src/messages/store.js";
import { expireDueOtps } from "../../src/otp/expiry.js";
import { sendDueFallbacks } from "../../src/otp/fallback.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { applyReceipt } from "../../src/receipts/receipts.js";
import { startWorker } from "../../src/worker.js";
import { testCarriers } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue, waitFor } from "../helpers/delivery.js";
import {
  CARRIER_REJECTED,
  DND_BLOCKED,
  INVALID_NUMBER,
  NO_RECEIPT,
  nextNumber,
  useEventsHarness,
} from "../helpers/events.js";

interface OtpSent {
  id: string;
  message_id: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DIALECTS)("events on %s", (dialect) => {
  const h = useEventsHarness(dialect);

  async function sendOtp(secret: string, body: Record<string, unknown>): Promise<OtpSent> {
    const response = await h.post(secret, "/v2/otp/send", body);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<OtpSent>();
  }

  async function verify(secret: string, to: string, code: string) {
    const response = await h.post(secret, "/v2/otp/verify", { to, code });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ verified: boolean; reason: string }>();
  }

  function typesOf(events: EventView[]) {
    return events.map((event) => event.type);
  }

  describe("messages", () => {
    it("a delivered message: sms.submitted, then sms.delivered carrying the message as GET shows it", async () => {
      const { secret } = await h.account();
      const sent = await h.sendSms(secret, nextNumber(), "order-77");
      await drainQueue(h.ctx);

      const events = await h.eventsAbout(secret, sent.id);
      expect(typesOf(events)).toEqual(["sms.submitted", "sms.delivered"]);
      const [submitted, delivered] = events as [EventView, EventView];
      const final = await h.getOk<MessageView>(secret, `/v2/sms/${sent.id}`);
      expect(delivered.data).toEqual(final);
      expect(delivered.environment).toBe("sandbox");
      expect(delivered.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
      expect(submitted.data).toMatchObject({
        id: sent.id,
        status: "submitted",
        reference: "order-77",
        carrier_message_ids: final.carrier_message_ids,
        delivered_at: null,
      });
      expect(final.carrier_message_ids).toHaveLength(1);
    });

    it("sandbox test numbers: sms.undelivered and sms.failed with their error codes", async () => {
      const { secret } = await h.account();
      const invalid = await h.sendSms(secret, INVALID_NUMBER);
      const dnd = await h.sendSms(secret, DND_BLOCKED);
      const rejected = await h.sendSms(secret, CARRIER_REJECTED);
      const silent = await h.sendSms(secret, NO_RECEIPT);
      await drainQueue(h.ctx);

      const invalidEvents = await h.eventsAbout(secret, invalid.id);
      expect(typesOf(invalidEvents)).toEqual(["sms.submitted", "sms.undelivered"]);
      expect(invalidEvents[1]?.data).toMatchObject({
        status: "undelivered",
        error_code: "invalid_number",
        error_message: "The number does not exist.",
      });
      expect(invalidEvents[1]?.data).toEqual(await h.getOk(secret, `/v2/sms/${invalid.id}`));

      const dndEvents = await h.eventsAbout(secret, dnd.id);
      expect(typesOf(dndEvents)).toEqual(["sms.submitted", "sms.undelivered"]);
      expect(dndEvents[1]?.data).toMatchObject({ error_code: "dnd_blocked" });

      // Never accepted: failed (and refunded), with no sms.submitted before it.
      const rejectedEvents = await h.eventsAbout(secret, rejected.id);
      expect(typesOf(rejectedEvents)).toEqual(["sms.failed"]);
      expect(rejectedEvents[0]?.data).toMatchObject({
        status: "failed",
        error_code: "carrier_rejected",
        carrier_message_ids: [],
      });
      expect(rejectedEvents[0]?.data).toEqual(await h.getOk(secret, `/v2/sms/${rejected.id}`));

      expect(typesOf(await h.eventsAbout(secret, silent.id))).toEqual(["sms.submitted"]);

      const undelivered = await h.allEvents(secret, { type: "sms.undelivered" });
      expect(undelivered.map((event) => event.data.id).sort()).toEqual([invalid.id, dnd.id].sort());
    });

    it("a receipt that changes nothing writes no event", async () => {
      const { secret } = await h.account();
      const sent = await h.sendSms(secret, INVALID_NUMBER);
      await drainQueue(h.ctx);
      const [carrierMessageId] = (await h.getOk<MessageView>(secret, `/v2/sms/${sent.id}`))
        .carrier_message_ids;
      for (const state of ["undelivered", "delivered"] as const) {
        expect(
          await applyReceipt(h.ctx, {
            carrier: "sandbox",
            carrierMessageId: carrierMessageId as string,
            state,
          }),
        ).toBe(true);
      }
      expect(typesOf(await h.eventsAbout(secret, sent.id))).toEqual(["sms.submitted", "sms.undelivered"]);
    });
  });

  describe("OTPs", () => {
    it("send then verify: otp.sent, then otp.verified, and the code is in no event", async () => {
      const { secret } = await h.account();
      const to = nextNumber();
      const code = "90817263";
      const otp = await sendOtp(secret, { to, code });
      await drainQueue(h.ctx);
      expect(await verify(secret, to, code)).toMatchObject({ verified: true, reason: "approved" });

      const events = await h.eventsAbout(secret, otp.id);
      expect(typesOf(events)).toEqual(["otp.sent", "otp.verified"]);
      expect(events[0]?.data).toMatchObject({
        status: "pending",
        to,
        sends: 1,
        deliveries: [{ message_id: otp.message_id, channel: "sms", fallback: false, status: "queued" }],
      });
      expect(events[1]?.data).toEqual(await h.getOk(secret, `/v2/otp/${otp.id}`));
      expect(events[1]?.data).toMatchObject({ status: "approved" });

      // The OTP's message has its own sms.* events, its text masked.
      const messageEvents = await h.eventsAbout(secret, otp.message_id as string);
      expect(typesOf(messageEvents)).toEqual(["sms.submitted", "sms.delivered"]);
      const everything = JSON.stringify(await h.allEvents(secret));
      expect(everything).toContain(otp.id);
      expect(everything).not.toContain(code);
    });

    it("a generated code, resent and sent again on its fallback channel, is in no event either", async () => {
      const { secret } = await h.account();
      const otp = await sendOtp(secret, { to: NO_RECEIPT, channel: "whatsapp", fallback: "sms", length: 10 });
      await drainQueue(h.ctx);
      h.clock.advance(31);
      const resent = await sendOtp(secret, { to: NO_RECEIPT, channel: "voice" });
      expect(resent.id).toBe(otp.id);
      expect(await sendDueFallbacks(h.ctx)).toBe(1);
      await drainQueue(h.ctx);

      const events = await h.eventsAbout(secret, otp.id);
      expect(typesOf(events)).toEqual(["otp.sent", "otp.sent", "otp.sent"]);
      expect(events.map((event) => event.data.sends)).toEqual([1, 2, 2]);
      const deliveries = (events[2]?.data.deliveries ?? []) as Array<{ channel: string; fallback: boolean }>;
      expect(deliveries.map((d) => [d.channel, d.fallback])).toEqual([
        ["whatsapp", false],
        ["voice", false],
        ["sms", true],
      ]);
      // The OTP keeps its first channel; each send's channel is in its deliveries.
      expect(events.map((event) => event.data.channel)).toEqual(["whatsapp", "whatsapp", "whatsapp"]);

      const inbox = await h.getOk<{ data: Array<{ text: string }> }>(
        secret,
        `/v2/sandbox/messages?to=${encodeURIComponent(NO_RECEIPT)}&limit=100`,
      );
      const code = /(\d{10})/.exec(inbox.data.at(-1)?.text ?? "")?.[1];
      expect(code).toMatch(/^\d{10}$/);
      expect(JSON.stringify(await h.allEvents(secret))).not.toContain(code);
    });

    it("a test number with a fixed code emits otp.sent and otp.verified like any OTP", async () => {
      const { accountId, secret } = await h.account();
      const to = nextNumber();
      await updateOtpSettings(h.ctx, accountId, "sandbox", { test_numbers: { [to]: "246810" } }, CLI_ORIGIN);
      const otp = await sendOtp(secret, { to });
      expect(otp.message_id).toBeNull();
      expect(await verify(secret, to, "246810")).toMatchObject({ verified: true });
      const events = await h.eventsAbout(secret, otp.id);
      expect(typesOf(events)).toEqual(["otp.sent", "otp.verified"]);
      expect(events[0]?.data.deliveries).toEqual([]);
      expect(JSON.stringify(events)).not.toContain("246810");
    });

    it("the attempt limit: one otp.failed with reason max_attempts_reached", async () => {
      const { secret } = await h.account();
      const to = nextNumber();
      const otp = await sendOtp(secret, { to, code: "111111" });
      for (let attempt = 0; attempt < 5; attempt++) await verify(secret, to, "222222");
      expect(await verify(secret, to, "111111")).toMatchObject({ reason: "max_attempts_reached" });

      const events = await h.eventsAbout(secret, otp.id);
      expect(typesOf(events)).toEqual(["otp.sent", "otp.failed"]);
      const { reason, ...otpView } = events[1]?.data ?? {};
      expect(reason).toBe("max_attempts_reached");
      expect(otpView).toEqual(await h.getOk(secret, `/v2/otp/${otp.id}`));
      expect(otpView).toMatchObject({ status: "locked", attempts_remaining: 0 });
    });

    it("expiry found by a verify, and by a send: otp.failed with reason expired, once", async () => {
      const { secret } = await h.account();
      const [first, second] = [nextNumber(), nextNumber()];
      const verified = await sendOtp(secret, { to: first, code: "333333" });
      const replaced = await sendOtp(secret, { to: second, code: "444444" });
      h.clock.advance(601);

      expect(await verify(secret, first, "333333")).toMatchObject({ reason: "expired" });
      expect(await verify(secret, first, "333333")).toMatchObject({ reason: "expired" });
      const next = await sendOtp(secret, { to: second });
      expect(next.id).not.toBe(replaced.id);
      // The sweep finds them ended already: no second otp.failed.
      await expireDueOtps(h.ctx);

      for (const otp of [verified, replaced]) {
        const events = await h.eventsAbout(secret, otp.id);
        expect(typesOf(events)).toEqual(["otp.sent", "otp.failed"]);
        expect(events[1]?.data).toMatchObject({ status: "expired", reason: "expired" });
      }
      const secondEvents = (await h.allEvents(secret)).filter((e) => e.data.to === second);
      expect(secondEvents.map((e) => [e.type, e.data.id])).toEqual([
        ["otp.sent", replaced.id],
        ["otp.failed", replaced.id],
        ["otp.sent", next.id],
      ]);
    });

    it("expiry nobody asks about: the sweep ends it with otp.failed, once", async () => {
      const { secret } = await h.account();
      const otp = await sendOtp(secret, { to: nextNumber(), code: "555555" });
      h.clock.advance(599);
      await expireDueOtps(h.ctx);
      expect(typesOf(await h.eventsAbout(secret, otp.id))).toEqual(["otp.sent"]);
      h.clock.advance(2);
      expect(await expireDueOtps(h.ctx)).toBeGreaterThanOrEqual(1);
      expect(await expireDueOtps(h.ctx)).toBe(0);
      await purgeExpired(h.ctx);
      const events = await h.eventsAbout(secret, otp.id);
      expect(typesOf(events)).toEqual(["otp.sent", "otp.failed"]);
      expect(events[1]?.data).toMatchObject({ status: "expired", reason: "expired" });
    });

    it("a running worker sweeps expired OTPs within seconds", async () => {
      const { secret } = await h.account();
      const otp = await sendOtp(secret, { to: nextNumber(), code: "666666" });
      await drainQueue(h.ctx);
      h.clock.advance(601);
      const worker = startWorker(h.ctx, testCarriers(h.ctx), { pollIntervalMs: 10 });
      try {
        await waitFor(async () => (await h.eventsAbout(secret, otp.id)).length === 2, 8_000, 200);
      } finally {
        await worker.stop();
      }
      expect(typesOf(await h.eventsAbout(secret, otp.id))).toEqual(["otp.sent", "otp.failed"]);
    });
  });

  describe("written in the transaction of the change", () => {
    it("an event that cannot be written undoes the change: the message stays queued, with no event", async () => {
      const { secret } = await h.account();
      const sent = await h.sendSms(secret, nextNumber());
      const [claimed] = await claimDueMessages(h.ctx.db, h.ctx.dialect, {
        owner: "test-owner",
        now: h.clock.now().toISOString(),
        leaseUntil: new Date(h.clock.now().getTime() + 30_000).toISOString(),
        limit: 1,
      });
      expect(claimed?.id).toBe(sent.id);
      const lease = { messageId: sent.id, owner: "test-owner" };
      const receipt = { carrier: "sandbox", carrierMessageId: "sbx_injected", state: "delivered" as const };

      // sms.submitted is written, then the receipt's sms.delivered fails: nothing of it stays.
      const restore = await h.failEventInserts("sms.delivered");
      try {
        await expect(markSubmitted(h.ctx, lease, "sandbox", ["sbx_injected"], [receipt])).rejects.toThrow(
          /injected failure/,
        );
      } finally {
        await restore();
      }
      expect(await h.getOk(secret, `/v2/sms/${sent.id}`)).toMatchObject({
        status: "queued",
        carrier_message_ids: [],
      });
      expect(await h.eventsAbout(secret, sent.id)).toEqual([]);

      expect(await markSubmitted(h.ctx, lease, "sandbox", ["sbx_injected"], [receipt])).toBe(true);
      expect(typesOf(await h.eventsAbout(secret, sent.id))).toEqual(["sms.submitted", "sms.delivered"]);
    });

    it("an OTP is not approved unless its otp.verified is written", async () => {
      const { secret } = await h.account();
      const to = nextNumber();
      const otp = await sendOtp(secret, { to, code: "777777" });
      const restore = await h.failEventInserts("otp.verified");
      try {
        const response = await h.post(secret, "/v2/otp/verify", { to, code: "777777" });
        expect(response.statusCode).toBe(500);
      } finally {
        await restore();
      }
      expect(await h.getOk(secret, `/v2/otp/${otp.id}`)).toMatchObject({ status: "pending" });
      expect(await verify(secret, to, "777777")).toMatchObject({ verified: true });
      expect(typesOf(await h.eventsAbout(secret, otp.id))).toEqual(["otp.sent", "otp.verified"]);
    });

    it("a transaction that rolls back leaves no event", async () => {
      const { accountId, secret } = await h.account();
      await expect(
        h.ctx.db.transaction().execute(async (trx) => {
          await recordEvent(trx, h.ctx, {
            accountId,
            environment: "sandbox",
            type: "sms.submitted",
            data: { id: "msg_rolled_back" },
          });
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await h.eventsAbout(secret, "msg_rolled_back")).toEqual([]);
    });
  });

  describe("the feed", () => {
    async function writeEvents(
      ctx: AppContext,
      accountId: string,
      count: number,
      environment: Environment = "sandbox",
    ) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        await ctx.db.transaction().execute(async (trx) => {
          const event = await recordEvent(trx, ctx, {
            accountId,
            environment,
            type: i % 2 === 0 ? "sms.submitted" : "sms.delivered",
            data: { id: `msg_${i}` },
          });
          ids.push(event.id);
        });
      }
      return ids;
    }

    it("pages oldest first with after, limit and has_more, and filters by type", async () => {
      const { accountId, secret } = await h.account();
      const ids = await writeEvents(h.ctx, accountId, 7);

      const first = await h.eventsPage(secret, { limit: 3 });
      expect(first.data.map((e) => e.id)).toEqual(ids.slice(0, 3));
      expect(first.has_more).toBe(true);
      const second = await h.eventsPage(secret, { limit: 3, after: ids[2] });
      expect(second.data.map((e) => e.id)).toEqual(ids.slice(3, 6));
      const last = await h.eventsPage(secret, { limit: 3, after: ids[5] });
      expect(last).toEqual({ data: [expect.objectContaining({ id: ids[6] })], has_more: false });
      expect(await h.eventsPage(secret, { after: ids[6] })).toEqual({ data: [], has_more: false });
      expect((await h.eventsPage(secret)).data).toHaveLength(7);

      const delivered = await h.eventsPage(secret, { type: "sms.delivered", after: ids[0] });
      expect(delivered.data.map((e) => e.id)).toEqual([ids[1], ids[3], ids[5]]);
      expect(delivered.data.every((e) => e.type === "sms.delivered")).toBe(true);
    });

    it("refuses bad queries, and cursors of other accounts and environments are not_found", async () => {
      const mine = await h.account();
      const stranger = await h.account();
      const live = await h.account("live");
      const [myEvent] = await writeEvents(h.ctx, mine.accountId, 1);
      const [strangersEvent] = await writeEvents(h.ctx, stranger.accountId, 1);
      const [liveEvent] = await writeEvents(h.ctx, live.accountId, 1, "live");

      for (const query of [
        "limit=0",
        "limit=101",
        "limit=x",
        "type=sms.queued",
        "since=2026-01-01T00:00:00Z",
      ]) {
        const response = await h.get(mine.secret, `/v2/events?${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(response.json().error.code).toBe("invalid_request");
      }
      for (const after of [strangersEvent, liveEvent, "evt_doesnotexist000000000000"]) {
        const response = await h.get(mine.secret, `/v2/events?after=${after}`);
        expect(response.statusCode).toBe(404);
        expect(response.json().error).toMatchObject({ code: "not_found", param: "after" });
      }
      // Each key sees its own account and environment only.
      expect((await h.allEvents(mine.secret)).map((e) => e.id)).toEqual([myEvent]);
      expect((await h.allEvents(live.secret)).map((e) => e.id)).toEqual([liveEvent]);
      const unauthenticated = await h.app.inject({ method: "GET", url: "/v2/events" });
      expect(unauthenticated.statusCode).toBe(401);
    });

    it("a reader paging while several transactions write sees every committed event exactly once", async () => {
      const { accountId, secret } = await h.account();
      // PostgreSQL: two processes' pools. SQLite: one process, whose writers take turns on its
      // connection (a second connection in this process would block the event loop on the lock).
      const writers = dialect === "postgres" ? [h.ctx, (await h.openOther()).ctx] : [h.ctx, h.ctx];
      const committed = new Set<string>();
      const rolledBack = new Set<string>();
      /** Transactions' first event ids in the order their commits returned. */
      const commitOrder: string[] = [];
      let writing = true;

      async function writer(ctx: AppContext, transactions: number, stream: number) {
        for (let i = 0; i < transactions; i++) {
          const ids: string[] = [];
          const rollback = (i + stream) % 7 === 3;
          try {
            await ctx.db.transaction().execute(async (trx) => {
              for (let k = 0; k <= (i + stream) % 3; k++) {
                const event = await recordEvent(trx, ctx, {
                  accountId,
                  environment: "sandbox",
                  type: "sms.submitted",
                  data: { stream, i, k },
                });
                ids.push(event.id);
                // Some transactions stay open a while, so ones that began later commit first.
                const slow = (i + stream) % 5 === 0 && dialect === "postgres";
                await sleep(slow ? 30 : Math.floor(Math.random() * 4));
              }
              if (rollback) throw new Error("rolled back");
            });
            for (const id of ids) committed.add(id);
            commitOrder.push(ids[0] as string);
          } catch (error) {
            if ((error as Error).message !== "rolled back") throw error;
            for (const id of ids) rolledBack.add(id);
          }
        }
      }

      const seen: string[] = [];
      const reader = (async () => {
        let after: string | undefined;
        const deadline = Date.now() + 20_000;
        while (writing || seen.length < committed.size) {
          if (Date.now() > deadline) throw new Error(`saw ${seen.length} of ${committed.size} events`);
          const page = await h.eventsPage(secret, { after, limit: 7 });
          seen.push(...page.data.map((event) => event.id));
          after = page.data.at(-1)?.id ?? after;
          if (page.data.length === 0) await sleep(2);
        }
      })();
      const streams = writers.flatMap((ctx, process) =>
        [0, 1, 2, 3].map((n) => writer(ctx, 25, process * 4 + n)),
      );
      try {
        await Promise.all(streams);
      } finally {
        writing = false;
      }
      await reader;

      expect(committed.size).toBeGreaterThan(150);
      expect(rolledBack.size).toBeGreaterThan(0);
      expect(new Set(seen).size).toBe(seen.length);
      expect(new Set(seen)).toEqual(committed);
      expect(seen.some((id) => rolledBack.has(id))).toBe(false);
      // Nothing more turns up afterwards.
      expect((await h.eventsPage(secret, { after: seen.at(-1) })).data).toEqual([]);

      if (dialect === "postgres") {
        // The test has teeth: some transaction committed after one that began writing later,
        // so an order by insertion alone would have let the reader's cursor pass it.
        const rows = await h.ctx.db
          .selectFrom("events")
          .select(["id", "txid"])
          .where("id", "in", commitOrder)
          .execute();
        const txidOf = new Map(rows.map((row) => [row.id, Number(row.txid)]));
        const txids = commitOrder.map((id) => txidOf.get(id) as number);
        expect(txids.some((txid, index) => index > 0 && txid < Math.max(...txids.slice(0, index)))).toBe(
          true,
        );
      }
    }, 60_000);

    it("keeps events 30 days", async () => {
      const { accountId, secret } = await h.account();
      const [old] = await writeEvents(h.ctx, accountId, 1);
      h.clock.advance(29 * 86_400);
      const [recent] = await writeEvents(h.ctx, accountId, 1);
      h.clock.advance(2 * 86_400);
      expect((await purgeExpired(h.ctx)).events).toBeGreaterThanOrEqual(1);
      expect((await h.allEvents(secret)).map((e) => e.id)).toEqual([recent]);
      const cursor = await h.get(secret, `/v2/events?after=${old}`);
      expect(cursor.statusCode).toBe(404);
    });

    it("is in the OpenAPI document", async () => {
      const document = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
      const operation = document.paths["/v2/events"]?.get;
      expect(operation).toMatchObject({ tags: ["Events"], summary: expect.any(String) });
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "404"]));
    });
  });
});
