import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getBalance, sumLedger } from "../../src/accounts/ledger.js";
import type { AppContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import type { Carrier, OutboundMessage, SendResult } from "../../src/delivery/carrier.js";
import { createSandboxCarrier, SANDBOX_CARRIER } from "../../src/delivery/carriers/sandbox.js";
import { type ClaimedMessage, claimDueMessages } from "../../src/delivery/claims.js";
import { failMessage } from "../../src/delivery/failures.js";
import { type Acceptance, acceptancesInBursts, markSubmitted } from "../../src/delivery/status.js";
import { type MessageView, toMessageView } from "../../src/messages/store.js";
import { applyReceipt, applyReceipts, receiptsInBursts } from "../../src/receipts/receipts.js";
import { sendSms } from "../../src/sms/send.js";
import { startWorker } from "../../src/worker.js";
import { openTestContext, TestClock, testCarriers } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { countQueued, drainQueue, waitFor } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { createAccountWithKey } from "../helpers/fixtures.js";
import { killProcess, startWorkerProcess } from "../helpers/server-process.js";

const TEMPLATE_ID = "1107161234567890123";

/** An account that can send: credits in `environment`, a sender and a one-variable template. */
async function sendingAccount(ctx: AppContext, environment: Environment, credits = 100_000_000) {
  const { accountId, keyId } = await createAccountWithKey(ctx, environment, credits);
  await registerDlt(ctx, accountId, {
    templates: [{ templateId: TEMPLATE_ID, content: "Your code is {#code#}. -Dakiya" }],
  });
  const principal = { accountId, environment, keyId };
  const send = (to = "+919876543210", code = "1234") =>
    sendSms(ctx, principal, { to, sender: "DAKIYA", template_id: TEMPLATE_ID, variables: { code } });
  return { accountId, send };
}

/** A live carrier in the test: answers from a script and records every message it is given. */
class ScriptedCarrier implements Carrier {
  readonly name = "scripted";
  readonly sent: OutboundMessage[] = [];
  private counter = 0;

  constructor(
    private readonly answer: (message: OutboundMessage, attempt: number) => SendResult | Promise<SendResult>,
  ) {}

  async send(message: OutboundMessage): Promise<SendResult> {
    this.sent.push(message);
    return this.answer(message, this.sent.filter((m) => m.id === message.id).length);
  }

  nextId(): string {
    this.counter += 1;
    return `smsc-${this.counter}-${Math.random().toString(36).slice(2)}`;
  }
}

/** What the worker hands a carrier for a queued SMS (no OTP: nothing sealed). */
function sandboxOutbound(row: ClaimedMessage): OutboundMessage {
  return {
    id: row.id,
    accountId: row.account_id,
    environment: row.environment,
    channel: row.channel,
    to: row.recipient,
    sender: row.sender,
    templateId: row.template_id,
    entityId: row.entity_id,
    text: row.text,
    encoding: row.encoding,
    segments: row.segments,
    priority: "transactional",
    category: "transactional",
    expiresAt: row.expires_at,
  };
}

async function messageRow(ctx: AppContext, id: string) {
  return ctx.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** The carrier's ids of a message's parts, in part order. */
async function carrierPartIds(ctx: AppContext, messageId: string): Promise<string[]> {
  const parts = await ctx.db
    .selectFrom("carrier_messages")
    .select("carrier_message_id")
    .where("message_id", "=", messageId)
    .orderBy("part")
    .execute();
  return parts.map((part) => part.carrier_message_id);
}

/** An account's events in feed order, their data parsed. */
async function feedOf(ctx: AppContext, accountId: string) {
  const events = await ctx.db
    .selectFrom("events")
    .select(["type", "data", "seq"])
    .where("account_id", "=", accountId)
    .orderBy("txid")
    .orderBy("seq")
    .execute();
  return events.map(({ type, data, seq }) => ({
    type,
    seq: Number(seq),
    data: JSON.parse(data) as MessageView,
  }));
}

describe.each(DIALECTS)("the delivery queue on %s", (dialect) => {
  /** Each test gets its own database, so no test's queue holds another's messages. */
  let database: TestDatabase;
  const contexts: AppContext[] = [];

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });

  afterEach(async () => {
    for (const ctx of contexts.splice(0)) await ctx.close();
    await database?.drop();
  });

  async function open(options: Parameters<typeof openTestContext>[1] = {}): Promise<AppContext> {
    const ctx = await openTestContext(database.url, options);
    contexts.push(ctx);
    return ctx;
  }

  /** A live account whose carrier accepts every message in two parts, for the receipt tests. */
  async function twoPartLiveAccount() {
    const carrier: ScriptedCarrier = new ScriptedCarrier(() => ({
      outcome: "accepted",
      carrierMessageIds: [carrier.nextId(), carrier.nextId()],
    }));
    const ctx = await open({ liveCarriers: { sms: carrier } });
    return { ctx, ...(await sendingAccount(ctx, "live")) };
  }

  it("retries a retryable answer after a backoff, then records the acceptance", async () => {
    const clock = new TestClock();
    const carrier: ScriptedCarrier = new ScriptedCarrier((_m, attempt) =>
      attempt === 1
        ? { outcome: "retryable", errorCode: "throttled", errorMessage: "Throttled by the SMSC." }
        : { outcome: "accepted", carrierMessageIds: [carrier.nextId()] },
    );
    const ctx = await open({ clock, liveCarriers: { sms: carrier } });
    const { send } = await sendingAccount(ctx, "live");
    const message = await send();

    const worker = startWorker(ctx, testCarriers(ctx), { pollIntervalMs: 5 });
    await waitFor(async () => (await messageRow(ctx, message.id)).attempts === 1, 5_000);
    const waiting = await messageRow(ctx, message.id);
    expect(waiting).toMatchObject({ status: "queued", error_code: "throttled", lease_owner: null });
    expect(Date.parse(waiting.next_attempt_at ?? "")).toBeGreaterThan(clock.now().getTime());
    expect(carrier.sent).toHaveLength(1);

    clock.advance(2);
    await waitFor(async () => (await messageRow(ctx, message.id)).status === "submitted", 5_000);
    await worker.stop();
    const submitted = await messageRow(ctx, message.id);
    expect(submitted).toMatchObject({ carrier: "scripted", attempts: 2, error_code: null });
    expect(carrier.sent).toHaveLength(2);
  });

  it("fails and refunds once on a permanent error, a thrown carrier error retries", async () => {
    const carrier: ScriptedCarrier = new ScriptedCarrier((message) => {
      if (message.to === "+919876500001") throw new Error("socket hang up");
      return { outcome: "permanent", errorCode: "invalid_destination", errorMessage: "ESME_RINVDSTADR" };
    });
    const clock = new TestClock();
    const ctx = await open({ clock, liveCarriers: { sms: carrier } });
    const { accountId, send } = await sendingAccount(ctx, "live", 1_000_000);
    const rejected = await send("+919876500000");
    const flaky = await send("+919876500001");

    const worker = startWorker(ctx, testCarriers(ctx), { pollIntervalMs: 5 });
    await waitFor(async () => (await messageRow(ctx, rejected.id)).status === "failed", 5_000);
    await waitFor(async () => (await messageRow(ctx, flaky.id)).attempts === 1, 5_000);
    await worker.stop();

    expect(await messageRow(ctx, flaky.id)).toMatchObject({ status: "queued", error_code: "carrier_error" });
    expect(await messageRow(ctx, rejected.id)).toMatchObject({ error_code: "invalid_destination" });
    expect(await failMessage(ctx, rejected.id, { code: "again", message: "again" })).toBe(false);
    const refunds = await ctx.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("reason", "=", "sms_refund")
      .execute();
    expect(refunds.map((r) => [Number(r.amount), r.reference])).toEqual([[2_500, rejected.id]]);
    expect(await getBalance(ctx.db, accountId, "live")).toBe(1_000_000 - 2_500);
    expect(await sumLedger(ctx.db, accountId, "live")).toBe(1_000_000 - 2_500);
  });

  it("gives up after the last attempt: failed, refunded", async () => {
    const carrier: ScriptedCarrier = new ScriptedCarrier(() => ({
      outcome: "retryable",
      errorCode: "throttled",
      errorMessage: "x",
    }));
    const ctx = await open({ liveCarriers: { sms: carrier } });
    const { accountId, send } = await sendingAccount(ctx, "live", 10_000);
    const message = await send();
    await drainQueue(ctx, { maxAttempts: 1 });
    expect(await messageRow(ctx, message.id)).toMatchObject({ status: "failed", error_code: "throttled" });
    expect(await getBalance(ctx.db, accountId, "live")).toBe(10_000);
  });

  it("lets another worker take a message whose lease ran out, and ignores the late owner", async () => {
    const clock = new TestClock();
    const carrier: ScriptedCarrier = new ScriptedCarrier(() => ({
      outcome: "accepted",
      carrierMessageIds: [carrier.nextId()],
    }));
    const ctx = await open({ clock, liveCarriers: { sms: carrier } });
    const { send } = await sendingAccount(ctx, "live");
    const message = await send();
    const claim = {
      now: clock.now().toISOString(),
      leaseUntil: new Date(clock.now().getTime() + 30_000).toISOString(),
    };
    const [claimed] = await claimDueMessages(ctx.db, ctx.dialect, { owner: "wkr_dead", limit: 10, ...claim });
    expect(claimed?.id).toBe(message.id);
    expect(await claimDueMessages(ctx.db, ctx.dialect, { owner: "wkr_other", limit: 10, ...claim })).toEqual(
      [],
    );

    clock.advance(31);
    await drainQueue(ctx);
    expect(await messageRow(ctx, message.id)).toMatchObject({ status: "submitted" });
    expect(carrier.sent).toHaveLength(1);
    const late = await markSubmitted(ctx, { messageId: message.id, owner: "wkr_dead" }, "scripted", [
      "late-1",
    ]);
    expect(late).toBe(false);
  });

  it("writes the sandbox inbox entry only with the acceptance that holds the lease", async () => {
    const clock = new TestClock();
    const ctx = await open({ clock });
    const { send } = await sendingAccount(ctx, "sandbox");
    const message = await send();
    const claimAs = async (owner: string) => {
      const [row] = await claimDueMessages(ctx.db, ctx.dialect, {
        owner,
        limit: 10,
        now: clock.now().toISOString(),
        leaseUntil: new Date(clock.now().getTime() + 30_000).toISOString(),
      });
      if (row?.id !== message.id) throw new Error(`${owner} could not claim the message`);
      return row;
    };
    /** One worker's delivery: the sandbox's answer, then recording it under that worker's lease. */
    const deliverAs = async (owner: string, row: ClaimedMessage) => {
      const result = await createSandboxCarrier().send(sandboxOutbound(row));
      if (result.outcome !== "accepted") throw new Error(`not accepted: ${JSON.stringify(result)}`);
      const { carrierMessageIds, receipts, inbox } = result;
      const lease = { messageId: row.id, owner };
      return markSubmitted(ctx, lease, SANDBOX_CARRIER, carrierMessageIds, receipts, inbox);
    };
    const inbox = () =>
      ctx.db.selectFrom("sandbox_messages").selectAll().where("message_id", "=", message.id).execute();

    const slow = await claimAs("wkr_slow");
    clock.advance(31);
    const other = await claimAs("wkr_other");
    // The slow worker's send comes back after its lease went to another: its update loses.
    expect(await deliverAs("wkr_slow", slow)).toBe(false);
    expect(await inbox()).toEqual([]);
    expect(await messageRow(ctx, message.id)).toMatchObject({ status: "queued", lease_owner: "wkr_other" });

    expect(await deliverAs("wkr_other", other)).toBe(true);
    // Once more, now that the message is no longer queued.
    expect(await deliverAs("wkr_slow", slow)).toBe(false);
    const [part] = await ctx.db
      .selectFrom("carrier_messages")
      .select("carrier_message_id")
      .where("message_id", "=", message.id)
      .execute();
    expect(await inbox()).toEqual([
      {
        id: part?.carrier_message_id,
        account_id: slow.account_id,
        message_id: message.id,
        channel: "sms",
        recipient: message.to,
        text: message.text,
        created_at: clock.now().toISOString(),
      },
    ]);
    expect(await messageRow(ctx, message.id)).toMatchObject({ status: "delivered" });
  });

  it("records acceptances that come back together in one batch, each as it would alone", async () => {
    const clock = new TestClock();
    const ctx = await open({ clock });
    const first = await sendingAccount(ctx, "sandbox");
    const second = await sendingAccount(ctx, "sandbox");
    const messages = [
      await first.send("+919876500001"),
      await second.send("+919876500002"),
      await first.send("+919876500003"),
      await first.send("+919876500004"),
      await second.send("+919876500005"),
    ];
    const claimed = await claimDueMessages(ctx.db, ctx.dialect, {
      owner: "wkr_batch",
      limit: 10,
      now: clock.now().toISOString(),
      leaseUntil: new Date(clock.now().getTime() + 30_000).toISOString(),
    });
    expect(claimed).toHaveLength(5);
    const rows = new Map(claimed.map((row) => [row.id, row]));
    const acceptanceOf = async (id: string, owner = "wkr_batch"): Promise<Acceptance> => {
      const result = await createSandboxCarrier().send(sandboxOutbound(rows.get(id) as ClaimedMessage));
      if (result.outcome !== "accepted") throw new Error(`not accepted: ${JSON.stringify(result)}`);
      const { outcome: _, ...accepted } = result;
      return { message: rows.get(id) as ClaimedMessage, owner, carrier: SANDBOX_CARRIER, ...accepted };
    };
    const [a, b, c, d, e] = messages.map((message) => message.id) as [string, string, string, string, string];
    const accept = acceptancesInBursts(ctx);
    const answers = await Promise.all([
      accept(await acceptanceOf(a)),
      accept(await acceptanceOf(b)),
      // Not this worker's lease, and a second acceptance of a message: neither is recorded.
      accept(await acceptanceOf(c, "wkr_other")),
      accept(await acceptanceOf(d)),
      accept(await acceptanceOf(d)),
      accept(await acceptanceOf(e)),
    ]);
    expect(answers).toEqual([true, true, false, true, false, true]);

    for (const id of [a, b, d, e]) {
      expect(await messageRow(ctx, id)).toMatchObject({
        status: "delivered",
        lease_owner: null,
        sealed: null,
      });
    }
    expect(await messageRow(ctx, c)).toMatchObject({ status: "queued", lease_owner: "wkr_batch" });
    const partsOf = await ctx.db.selectFrom("carrier_messages").select(["message_id", "status"]).execute();
    expect(partsOf.map((part) => part.message_id).sort()).toEqual([a, b, d, e].sort());
    const inbox = await ctx.db.selectFrom("sandbox_messages").select("message_id").execute();
    expect(inbox.map((entry) => entry.message_id).sort()).toEqual([a, b, d, e].sort());

    // Each account's feed: submitted then delivered per message, in the order they were accepted.
    for (const [account, ids] of [
      [first.accountId, [a, d]],
      [second.accountId, [b, e]],
    ] as const) {
      const events = await feedOf(ctx, account);
      expect(events.map((event) => [event.type, event.data.id])).toEqual(
        ids.flatMap((id) => [
          ["sms.submitted", id],
          ["sms.delivered", id],
        ]),
      );
      // Each event shows the message as the database holds it after the acceptance.
      for (const [index, id] of ids.entries()) {
        const stored = toMessageView(await messageRow(ctx, id), await carrierPartIds(ctx, id));
        const [submitted, delivered] = events.slice(2 * index, 2 * index + 2).map((event) => event.data);
        expect(delivered).toEqual(stored);
        expect(submitted).toEqual({ ...stored, status: "submitted", delivered_at: null });
      }
      const seqs = events.map((event) => event.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
    }
  });

  it("writes a batch's acceptances one by one when the batch fails, so that a bad one fails alone", async () => {
    const clock = new TestClock();
    const ctx = await open({ clock });
    const { send } = await sendingAccount(ctx, "sandbox");
    const [good, bad] = [await send("+919876500011"), await send("+919876500012")];
    const claimed = await claimDueMessages(ctx.db, ctx.dialect, {
      owner: "wkr_batch",
      limit: 10,
      now: clock.now().toISOString(),
      leaseUntil: new Date(clock.now().getTime() + 30_000).toISOString(),
    });
    // A carrier message id already recorded for another message: its part cannot be stored.
    await ctx.db
      .insertInto("carrier_messages")
      .values({
        carrier: SANDBOX_CARRIER,
        carrier_message_id: "sbx_taken",
        message_id: good.id,
        part: 9,
        status: "submitted",
        error_code: null,
        updated_at: clock.now().toISOString(),
      })
      .execute();
    const accept = acceptancesInBursts(ctx);
    const acceptance = (messageId: string, carrierMessageId: string): Acceptance => ({
      message: claimed.find((row) => row.id === messageId) as ClaimedMessage,
      owner: "wkr_batch",
      carrier: SANDBOX_CARRIER,
      carrierMessageIds: [carrierMessageId],
    });
    const [goodAnswer, badAnswer] = await Promise.allSettled([
      accept(acceptance(good.id, "sbx_fresh")),
      accept(acceptance(bad.id, "sbx_taken")),
    ]);
    expect(goodAnswer).toEqual({ status: "fulfilled", value: true });
    expect(badAnswer.status).toBe("rejected");
    expect(await messageRow(ctx, good.id)).toMatchObject({ status: "submitted" });
    expect(await messageRow(ctx, bad.id)).toMatchObject({ status: "queued", lease_owner: "wkr_batch" });
  });

  it("marks a multi-part message delivered when every part is, undelivered when one is not", async () => {
    const carrier: ScriptedCarrier = new ScriptedCarrier(() => ({
      outcome: "accepted",
      carrierMessageIds: [carrier.nextId(), carrier.nextId(), carrier.nextId()],
    }));
    const ctx = await open({ liveCarriers: { sms: carrier } });
    const { send } = await sendingAccount(ctx, "live");
    const [whole, broken] = [await send(), await send()];
    await drainQueue(ctx);
    const parts = (id: string) => carrierPartIds(ctx, id);

    const wholeParts = await parts(whole.id);
    expect(wholeParts).toHaveLength(3);
    for (const [i, id] of wholeParts.entries()) {
      expect(await messageRow(ctx, whole.id)).toMatchObject({ status: "submitted" });
      await applyReceipt(ctx, { carrier: "scripted", carrierMessageId: id, state: "delivered" });
      if (i < 2) expect((await messageRow(ctx, whole.id)).status).toBe("submitted");
    }
    expect(await messageRow(ctx, whole.id)).toMatchObject({ status: "delivered" });

    const [first, second] = await parts(broken.id);
    await applyReceipt(ctx, { carrier: "scripted", carrierMessageId: first ?? "", state: "delivered" });
    await applyReceipt(ctx, {
      carrier: "scripted",
      carrierMessageId: second ?? "",
      state: "undelivered",
      errorCode: "dnd_blocked",
    });
    expect(await messageRow(ctx, broken.id)).toMatchObject({
      status: "undelivered",
      error_code: "dnd_blocked",
    });
    expect(
      await applyReceipt(ctx, { carrier: "scripted", carrierMessageId: "unknown", state: "delivered" }),
    ).toBe(false);
  });

  it("applies a burst of receipts as one by one: each message delivered once, its event in the order of completion", async () => {
    const { ctx, accountId, send } = await twoPartLiveAccount();
    const [a, b, c] = [await send(), await send(), await send()];
    await drainQueue(ctx);
    const partsOf = (id: string) => carrierPartIds(ctx, id);
    const [a1, a2] = await partsOf(a.id);
    const [b1, b2] = await partsOf(b.id);
    const [c1] = await partsOf(c.id);
    const delivered = (carrierMessageId = "") => ({
      carrier: "scripted",
      carrierMessageId,
      state: "delivered" as const,
    });

    const burst = [a1, b1, b2, c1, a2, "unknown", b2].map((id) => delivered(id));
    expect(await applyReceipts(ctx, burst)).toEqual([true, true, true, true, true, false, true]);
    expect(await messageRow(ctx, a.id)).toMatchObject({ status: "delivered" });
    expect(await messageRow(ctx, b.id)).toMatchObject({ status: "delivered" });
    expect(await messageRow(ctx, c.id)).toMatchObject({ status: "submitted" });
    const deliveredEvents = (await feedOf(ctx, accountId)).filter((event) => event.type === "sms.delivered");
    // b was completed by the burst's third receipt, a by its fifth; the duplicate changes nothing.
    expect(deliveredEvents.map(({ data }) => data.id)).toEqual([b.id, a.id]);
    expect(deliveredEvents[1]?.data).toMatchObject({
      status: "delivered",
      carrier_message_ids: [a1, a2],
    });

    // A report of non-delivery makes the burst go in order: the last part decides, as alone.
    const [c2] = (await partsOf(c.id)).slice(1);
    const mixed = [
      { ...delivered(c2), state: "undelivered" as const, errorCode: "dnd_blocked" },
      delivered(c2),
    ];
    expect(await applyReceipts(ctx, mixed)).toEqual([true, true]);
    expect(await messageRow(ctx, c.id)).toMatchObject({ status: "undelivered", error_code: "dnd_blocked" });
  });

  it("property: bursts of receipts end messages, parts and events as the same receipts one by one", async () => {
    const { ctx, accountId, send } = await twoPartLiveAccount();
    const report = fc.record({
      message: fc.nat(2),
      part: fc.nat(1),
      state: fc.oneof(
        { weight: 4, arbitrary: fc.constant("delivered" as const) },
        { weight: 1, arbitrary: fc.constant("undelivered" as const) },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(report, { maxLength: 8 }), fc.nat(8), async (reports, split) => {
        const inBurst = [await send(), await send(), await send()];
        const alone = [await send(), await send(), await send()];
        await drainQueue(ctx);
        const partsOf = async (id: string) =>
          ctx.db
            .selectFrom("carrier_messages")
            .select(["carrier_message_id", "status"])
            .where("message_id", "=", id)
            .orderBy("part")
            .execute();
        const receiptsFor = async (messages: Array<{ id: string }>) => {
          const parts = await Promise.all(messages.map(({ id }) => partsOf(id)));
          return reports.map(({ message, part, state }) => ({
            carrier: "scripted",
            carrierMessageId: parts[message]?.[part]?.carrier_message_id ?? "",
            state,
          }));
        };
        // Two bursts, so that some receipts find their message already finished.
        const receipts = await receiptsFor(inBurst);
        const burstAnswers = [
          ...(await applyReceipts(ctx, receipts.slice(0, split))),
          ...(await applyReceipts(ctx, receipts.slice(split))),
        ];
        const aloneAnswers: boolean[] = [];
        for (const receipt of await receiptsFor(alone)) aloneAnswers.push(await applyReceipt(ctx, receipt));
        expect(burstAnswers).toEqual(aloneAnswers);
        const events = (await feedOf(ctx, accountId)).filter(
          ({ type }) => type === "sms.delivered" || type === "sms.undelivered",
        );
        const outcome = async ({ id }: { id: string }) => ({
          status: (await messageRow(ctx, id)).status,
          parts: (await partsOf(id)).map((part) => part.status),
          events: events.filter(({ data }) => data.id === id).map(({ type }) => type),
        });
        for (const [index, message] of inBurst.entries()) {
          expect(await outcome(message)).toEqual(await outcome(alone[index] as { id: string }));
        }
      }),
      { numRuns: 20 },
    );
  });

  it("writes receipts that come in together in one burst, each answered for itself", async () => {
    const carrier: ScriptedCarrier = new ScriptedCarrier(() => ({
      outcome: "accepted",
      carrierMessageIds: [carrier.nextId()],
    }));
    const ctx = await open({ liveCarriers: { sms: carrier } });
    const { send } = await sendingAccount(ctx, "live");
    const messages = [await send(), await send(), await send()];
    await drainQueue(ctx);
    const ids = (await Promise.all(messages.map(({ id }) => carrierPartIds(ctx, id)))).flat();
    const receive = receiptsInBursts(ctx);
    const answers = await Promise.all(
      [...ids, "unknown"].map((carrierMessageId) =>
        receive({ carrier: "scripted", carrierMessageId, state: "delivered" }),
      ),
    );
    expect(answers).toEqual([true, true, true, false]);
    for (const { id } of messages) expect(await messageRow(ctx, id)).toMatchObject({ status: "delivered" });
  });

  it.skipIf(dialect !== "postgres")(
    "two workers on two connection pools never send the same message twice",
    async () => {
      const sent: string[] = [];
      const sharedCarrier = () =>
        new ScriptedCarrier(async (message) => {
          sent.push(message.id);
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          return { outcome: "accepted", carrierMessageIds: [`${message.id}-part`] };
        });
      const first = await open({ clock: { now: () => new Date() }, liveCarriers: { sms: sharedCarrier() } });
      const second = await open({ clock: { now: () => new Date() }, liveCarriers: { sms: sharedCarrier() } });
      const { send } = await sendingAccount(first, "live");
      const ids = new Set<string>();
      for (let i = 0; i < 400; i++) ids.add((await send(`+9198765${String(i).padStart(5, "0")}`)).id);

      const workers = [
        startWorker(first, testCarriers(first), { batchSize: 20, pollIntervalMs: 5 }),
        startWorker(second, testCarriers(second), { batchSize: 20, pollIntervalMs: 5 }),
      ];
      await waitFor(async () => (await countQueued(first)) === 0, 20_000);
      await Promise.all(workers.map((w) => w.stop()));

      expect(sent).toHaveLength(400);
      expect(new Set(sent)).toEqual(ids);
      const owners = await first.db
        .selectFrom("messages")
        .select("status")
        .where("id", "in", [...ids])
        .execute();
      expect(owners.every((row) => row.status === "submitted")).toBe(true);
    },
    30_000,
  );
});

describe("a worker process killed mid-batch", () => {
  let database: TestDatabase;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
  });

  afterAll(async () => {
    await killProcess(worker);
    await database?.drop();
  });

  function spawnWorker(): ChildProcess {
    return startWorkerProcess(database.url, {
      WORKER_LEASE_SECONDS: "1",
      WORKER_BATCH_SIZE: "25",
      WORKER_POLL_INTERVAL_MS: "20",
    });
  }

  it("loses no accepted message: a restarted worker finishes them", async () => {
    const ctx = await openTestContext(database.url, { clock: { now: () => new Date() } });
    try {
      const { send } = await sendingAccount(ctx, "sandbox");
      const total = 1500;
      const ids: string[] = [];
      for (let i = 0; i < total; i++)
        ids.push((await send(`+9198${String(i).padStart(8, "0")}`, String(i))).id);
      const delivered = async () =>
        Number(
          (
            await ctx.db
              .selectFrom("messages")
              .select((eb) => eb.fn.countAll<number | string>().as("n"))
              .where("status", "=", "delivered")
              .executeTakeFirstOrThrow()
          ).n,
        );

      worker = spawnWorker();
      await waitFor(async () => (await delivered()) >= 100, 20_000, 5);
      worker.kill("SIGKILL");
      await once(worker, "exit");
      const atKill = await delivered();
      expect(atKill).toBeLessThan(total);

      worker = spawnWorker();
      await waitFor(async () => (await delivered()) === total, 30_000);
      worker.kill("SIGTERM");
      expect((await once(worker, "exit"))[0]).toBe(0);

      const inbox = await ctx.db.selectFrom("sandbox_messages").select("message_id").execute();
      // Exactly one inbox entry per message: none for a send whose acceptance the kill lost.
      expect(inbox).toHaveLength(total);
      expect(new Set(inbox.map((row) => row.message_id))).toEqual(new Set(ids));
      expect(await countQueued(ctx)).toBe(0);
    } finally {
      await ctx.close();
    }
  }, 90_000);
});
