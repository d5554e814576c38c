import { afterEach, describe, expect, it } from "vitest";
import { getBalance } from "../../src/accounts/ledger.js";
import type { AppContext } from "../../src/context.js";
import { getMessageDetail } from "../../src/dashboard/messages.js";
import type { Dialect } from "../../src/db/schema.js";
import { claimDueMessages } from "../../src/delivery/claims.js";
import { recordAcceptances, recordCarriedPart } from "../../src/delivery/status.js";
import { isoAfter, isoNow } from "../../src/lib/clock.js";
import { getMessage } from "../../src/messages/store.js";
import { applyReceipt, applyReceipts } from "../../src/receipts/receipts.js";
import { sendSms } from "../../src/sms/send.js";
import { type RunningWorker, startWorker } from "../../src/worker.js";
import { openTestContext, TEST_SECRET, testCarriers } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { createLiveSender } from "../helpers/dlt-fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { type ReceivedSubmit, startTestSmsc, type TestSmsc, type TestSmscOptions } from "../helpers/smsc.js";

/*
 * A long SMS goes to the SMSC as one submit_sm per part. A part the SMSC accepted went out: it is
 * kept (its id, its receipt), never submitted again, and paid for; a part that never left is
 * refunded (docs/routes.md, docs/money.md).
 */

const LONG_TEMPLATE_ID = "1107161234567890777";
const LONG_CONTENT =
  "Dear customer, your order {#order#} has been packed and handed to our courier partner. " +
  "It reaches you by {#day#}. Track it at any time in the Dakiya app or call us. Thank you. -Dakiya";
const PART_PRICE = 2_500;
const realClock = { now: () => new Date() };
const { ESME_RTHROTTLED, ESME_RINVDSTADR } = { ESME_RTHROTTLED: 0x58, ESME_RINVDSTADR: 0x0b };

/** The part number in a submit's concatenation header (1-based), 1 for a single SMS. */
function partOf(submit: ReceivedSubmit): number {
  return submit.udh?.[5] ?? 1;
}

/** How many times the SMSC saw each part, by part number. */
function submitsByPart(smsc: TestSmsc): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const submit of smsc.submits) counts[partOf(submit)] = (counts[partOf(submit)] ?? 0) + 1;
  return counts;
}

/** An account with ₹10,000 of live credits and a template whose messages take 2 SMS parts. */
async function sendingAccount(ctx: AppContext) {
  const { accountId, principal } = await createLiveSender(ctx, [
    { templateId: LONG_TEMPLATE_ID, content: LONG_CONTENT },
  ]);
  const send = async () => {
    const message = await sendSms(ctx, principal, {
      to: "+919876543210",
      sender: "DAKIYA",
      template_id: LONG_TEMPLATE_ID,
      variables: { order: "ORD-2026-000123456789", day: "Tuesday, 24 November 2026" },
    });
    expect(message.segments).toBe(2);
    return message;
  };
  return { accountId, principal, send };
}

async function eventsOf(ctx: AppContext, messageId: string) {
  const rows = await ctx.db
    .selectFrom("events")
    .select(["type", "data"])
    .where("type", "in", ["sms.submitted", "sms.delivered", "sms.undelivered", "sms.failed"])
    .orderBy("txid")
    .orderBy("seq")
    .execute();
  return rows
    .map((row) => ({ type: row.type, data: JSON.parse(row.data) as Record<string, unknown> }))
    .filter((event) => event.data.id === messageId);
}

async function ledgerOf(ctx: AppContext, messageId: string) {
  const rows = await ctx.db
    .selectFrom("ledger_entries")
    .select(["reason", "amount"])
    .where("reference", "=", messageId)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => ({ reason: row.reason, amount: Number(row.amount) }));
}

describe.each(DIALECTS)("a long SMS over SMPP, part by part, on %s", (dialect: Dialect) => {
  let database: TestDatabase | undefined;
  let smsc: TestSmsc | undefined;
  let ctx: AppContext | undefined;
  let worker: RunningWorker | undefined;
  const servers: ServerProcess[] = [];

  afterEach(async () => {
    for (const server of servers.splice(0)) await server.kill();
    await worker?.stop();
    await ctx?.close();
    await smsc?.stop();
    await database?.drop();
    [worker, ctx, smsc, database] = [undefined, undefined, undefined, undefined];
  });

  /** A loopback SMSC answering as `smscOptions` say, and a worker sending live SMS to it. */
  async function setUp(smscOptions: TestSmscOptions, maxAttempts = 8) {
    database = await createTestDatabase(dialect);
    smsc = await startTestSmsc(smscOptions);
    ctx = await openTestContext(database.url, {
      clock: realClock,
      env: { SMPP_URL: smsc.url, SMPP_TPS: "2000", SMPP_WINDOW: "10" },
    });
    const account = await sendingAccount(ctx);
    worker = startWorker(ctx, testCarriers(ctx), { pollIntervalMs: 5, batchSize: 10, maxAttempts });
    return { ctx, smsc, ...account };
  }

  it("keeps part 1 when the SMSC refuses part 2 for good: undelivered, charged for part 1, part 2 refunded", async () => {
    const { ctx, smsc, accountId, principal, send } = await setUp({
      answer: (submit) => (partOf(submit) === 2 ? ESME_RINVDSTADR : 0),
    });
    const before = await getBalance(ctx.db, accountId, "live");
    const message = await send();
    await waitFor(async () => (await getMessage(ctx, principal, message.id)).status !== "queued", 10_000);

    expect(submitsByPart(smsc)).toEqual({ 1: 1, 2: 1 });
    const [first] = smsc.submits;
    const ended = await getMessage(ctx, principal, message.id);
    expect(ended).toMatchObject({
      status: "undelivered",
      error_code: "esme_rinvdstadr",
      carrier_message_ids: [first?.messageId],
      cost: "0.2500",
      route: "default",
      submitted_at: null,
      failed_at: null,
    });
    expect(ended.error_message).toBe(
      "The SMSC refused part 2 of 2: ESME_RINVDSTADR. Part 1 of 2 went out and is charged; the rest, never sent, was refunded.",
    );
    expect(ended.undelivered_at).not.toBeNull();
    expect(await getBalance(ctx.db, accountId, "live")).toBe(before - PART_PRICE);
    expect(await ledgerOf(ctx, message.id)).toEqual([
      { reason: "sms_charge", amount: -2 * PART_PRICE },
      { reason: "sms_refund", amount: PART_PRICE },
    ]);
    const detail = await getMessageDetail(ctx, principal, message.id);
    expect(detail.refund).toEqual({ amount: "0.2500", refunded_at: ended.undelivered_at });

    // Part 1's receipt still matches its message: acknowledged and kept on the part, and the
    // message, ended, stays as it is.
    const ack = await smsc.sendReceipt(first?.messageId ?? "", { stat: "DELIVRD", withTlv: true });
    expect(ack.commandStatus).toBe(0);
    const part = await ctx.db
      .selectFrom("carrier_messages")
      .select(["message_id", "status"])
      .where("carrier_message_id", "=", first?.messageId ?? "")
      .executeTakeFirstOrThrow();
    expect(part).toEqual({ message_id: message.id, status: "delivered" });
    expect((await getMessage(ctx, principal, message.id)).status).toBe("undelivered");

    const events = await eventsOf(ctx, message.id);
    expect(events.map((event) => event.type)).toEqual(["sms.undelivered"]);
    expect(events[0]?.data).toMatchObject({
      status: "undelivered",
      cost: "0.2500",
      carrier_message_ids: [first?.messageId],
    });
  });

  it("sends only part 2 again after the SMSC throttled it, and charges the message whole", async () => {
    const { ctx, smsc, accountId, principal, send } = await setUp({
      answer: (_submit, index) => (index === 1 ? ESME_RTHROTTLED : 0),
    });
    const before = await getBalance(ctx.db, accountId, "live");
    const message = await send();
    await smsc.waitFor(() => smsc.submits.length >= 2 && smsc.submits[1]?.responded === true, 10_000);
    // Part 1 was kept before part 2 left: the waiting message already shows its id.
    const waiting = await getMessage(ctx, principal, message.id);
    expect(waiting).toMatchObject({ status: "queued", carrier_message_ids: ["smsc-1"] });

    await waitFor(async () => (await getMessage(ctx, principal, message.id)).status !== "queued", 10_000);
    expect(smsc.submits.map(partOf)).toEqual([1, 2, 2]);
    const reference = smsc.submits[0]?.udh?.[3];
    expect(smsc.submits.map((submit) => submit.udh?.[3])).toEqual([reference, reference, reference]);
    const submitted = await getMessage(ctx, principal, message.id);
    expect(submitted).toMatchObject({
      status: "submitted",
      carrier_message_ids: ["smsc-1", "smsc-3"],
      cost: "0.5000",
      route: "default",
    });
    const text = smsc.submits
      .filter((submit) => submit.commandStatus === 0)
      .map((submit) => submit.payload.toString("latin1"))
      .join("");
    expect(text.length).toBeGreaterThan(160);

    for (const id of ["smsc-1", "smsc-3"]) {
      expect((await smsc.sendReceipt(id, { stat: "DELIVRD", withTlv: true })).commandStatus).toBe(0);
    }
    expect((await getMessage(ctx, principal, message.id)).status).toBe("delivered");
    expect(await getBalance(ctx.db, accountId, "live")).toBe(before - 2 * PART_PRICE);
    expect(await ledgerOf(ctx, message.id)).toEqual([{ reason: "sms_charge", amount: -2 * PART_PRICE }]);
    const events = await eventsOf(ctx, message.id);
    expect(events.map((event) => event.type)).toEqual(["sms.submitted", "sms.delivered"]);
    expect(events[0]?.data).toMatchObject({ status: "submitted", carrier_message_ids: ["smsc-1", "smsc-3"] });
  });

  it("gives up on part 2 after the tries run out, sending part 1 once: undelivered, part 2 refunded", async () => {
    const { ctx, smsc, accountId, principal, send } = await setUp(
      { answer: (submit) => (partOf(submit) === 2 ? ESME_RTHROTTLED : 0) },
      2,
    );
    const before = await getBalance(ctx.db, accountId, "live");
    const message = await send();
    await waitFor(async () => (await getMessage(ctx, principal, message.id)).status !== "queued", 15_000);
    expect(smsc.submits.map(partOf)).toEqual([1, 2, 2]);
    expect(await getMessage(ctx, principal, message.id)).toMatchObject({
      status: "undelivered",
      error_code: "esme_rthrottled",
      error_message:
        "The SMSC answered ESME_RTHROTTLED. Part 1 of 2 went out and is charged; the rest, never sent, was refunded.",
      carrier_message_ids: ["smsc-1"],
      cost: "0.2500",
    });
    expect(await getBalance(ctx.db, accountId, "live")).toBe(before - PART_PRICE);
    expect((await eventsOf(ctx, message.id)).map((event) => event.type)).toEqual(["sms.undelivered"]);
  });

  it("ends the message undelivered once the rest is accepted when part 1 was reported undelivered meanwhile", async () => {
    const { ctx, smsc, principal, send } = await setUp({
      answer: (_submit, index) => (index === 1 ? ESME_RTHROTTLED : 0),
    });
    const message = await send();
    await smsc.waitFor(() => smsc.submits.length >= 2 && smsc.submits[1]?.responded === true, 10_000);
    const ack = await smsc.sendReceipt("smsc-1", { stat: "UNDELIV", err: "006", withTlv: true });
    expect(ack.commandStatus).toBe(0);
    expect((await getMessage(ctx, principal, message.id)).status).toBe("queued");

    await waitFor(async () => (await getMessage(ctx, principal, message.id)).status !== "queued", 10_000);
    expect(smsc.submits.map(partOf)).toEqual([1, 2, 2]);
    expect(await getMessage(ctx, principal, message.id)).toMatchObject({
      status: "undelivered",
      error_code: "smsc_006",
      carrier_message_ids: ["smsc-1", "smsc-3"],
      cost: "0.5000",
    });
    const events = await eventsOf(ctx, message.id);
    expect(events.map((event) => event.type)).toEqual(["sms.submitted", "sms.undelivered"]);
  });

  it("after a crash between parts, the worker that takes over sends only the part not yet accepted", {
    timeout: 60_000,
  }, async () => {
    database = await createTestDatabase(dialect);
    // The first answer to part 2 is lost: the server is killed while it waits for it.
    const loopback = await startTestSmsc({ withhold: (_submit, index) => index === 1 });
    smsc = loopback;
    ctx = await openTestContext(database.url, { clock: realClock, env: { SMPP_URL: loopback.url } });
    const current = ctx;
    const { accountId, principal, send } = await sendingAccount(current);
    const before = await getBalance(current.db, accountId, "live");
    const server = await startServerProcess({
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      SMPP_URL: loopback.url,
      SMPP_SUBMIT_TIMEOUT_SECONDS: "60",
      WORKER_LEASE_SECONDS: "1",
      WORKER_POLL_INTERVAL_MS: "50",
    });
    servers.push(server);
    const message = await send();
    await loopback.waitFor(() => loopback.submits.length === 2, 30_000);
    await server.kill();

    // Another worker claims the message once the dead one's lease has run out.
    worker = startWorker(current, testCarriers(current), { pollIntervalMs: 20, leaseSeconds: 1 });
    await waitFor(async () => (await getMessage(current, principal, message.id)).status !== "queued", 20_000);
    // Part 1 once; part 2, whose answer was lost, again.
    expect(loopback.submits.map(partOf)).toEqual([1, 2, 2]);
    const reference = loopback.submits[0]?.udh?.[3];
    expect(loopback.submits.map((submit) => submit.udh?.[3])).toEqual([reference, reference, reference]);
    expect(await getMessage(current, principal, message.id)).toMatchObject({
      status: "submitted",
      carrier_message_ids: ["smsc-1", "smsc-3"],
      cost: "0.5000",
    });
    expect(await getBalance(current.db, accountId, "live")).toBe(before - 2 * PART_PRICE);
  });

  it("a receipt for part 1 racing the acceptance of part 2 leaves the message as both say", {
    timeout: 60_000,
  }, async () => {
    database = await createTestDatabase(dialect);
    // Live SMS is configured, but no worker sends: the test plays the worker and the receipts.
    const current = await openTestContext(database.url, {
      clock: realClock,
      env: { SMPP_URL: "smpp://dakiya:secret@127.0.0.1:2775" },
    });
    ctx = current;
    const { principal, send } = await sendingAccount(current);
    const route = { name: "default", receiptCarrier: "smpp:default" };
    const owner = "wkr_race";
    const rounds = 40;
    const messages = [];
    for (let i = 0; i < rounds; i++) messages.push(await send());
    const claimed = await claimDueMessages(current.db, current.dialect, {
      owner,
      now: isoNow(current.clock),
      leaseUntil: isoAfter(current.clock, 300),
      limit: rounds,
    });
    expect(claimed).toHaveLength(rounds);
    const deadline = Date.now() + 30_000;
    await Promise.all(
      claimed.map(async (message, round) => {
        const lease = { messageId: message.id, owner };
        const [first, second] = [`p1-${round}`, `p2-${round}`];
        const part = { part: 1, carrierMessageId: first, receiptCarrier: route.receiptCarrier };
        expect(await recordCarriedPart(current, lease, "smpp", part, route)).toBe(true);
        // Half the rounds report part 1 delivered (in a burst, as receipts come), half undelivered.
        const state = round % 2 === 0 ? "delivered" : "undelivered";
        const receipt = {
          carrier: route.receiptCarrier,
          carrierMessageId: first,
          state,
          errorCode: "smsc_006",
        } as const;
        const [accepted] = await Promise.all([
          recordAcceptances(current, [
            { message, owner, carrier: "smpp", carrierMessageIds: [first, second], recordedParts: 1, route },
          ]),
          state === "delivered" ? applyReceipts(current, [receipt]) : applyReceipt(current, receipt),
        ]);
        expect(accepted).toEqual([true]);
        expect(Date.now()).toBeLessThan(deadline);
        // Part 2 has no receipt: delivered would be wrong; part 1 undelivered makes it undelivered.
        const view = await getMessage(current, principal, message.id);
        expect(view).toMatchObject({
          status: state === "delivered" ? "submitted" : "undelivered",
          carrier_message_ids: [first, second],
        });
        const events = await eventsOf(current, message.id);
        expect(events.map((event) => event.type)).toEqual(
          state === "delivered" ? ["sms.submitted"] : ["sms.submitted", "sms.undelivered"],
        );
      }),
    );
  });
});
