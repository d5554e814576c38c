import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getBalance } from "../../src/accounts/ledger.js";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { SmppCarrier } from "../../src/delivery/carriers/smpp.js";
import { sendSms } from "../../src/sms/send.js";
import { type RunningWorker, startWorker } from "../../src/worker.js";
import { openTestContext, testCarriers } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { countQueued, waitFor } from "../helpers/delivery.js";
import { createLiveSender, TEST_ENTITY_ID } from "../helpers/dlt-fixtures.js";
import { startTestSmsc, type TestSmsc } from "../helpers/smsc.js";

const TEMPLATE_ID = "1107161234567890123";
const HINDI_TEMPLATE_ID = "1107161234567890456";
const realClock = { now: () => new Date() };

describe("live SMS over SMPP to a loopback SMSC", () => {
  let database: TestDatabase;
  let smsc: TestSmsc;
  let ctx: AppContext | undefined;
  let worker: RunningWorker | undefined;

  /** A database per test: no test's queue holds another's messages. */
  beforeEach(async () => {
    database = await createTestDatabase("sqlite");
  });

  afterEach(async () => {
    await worker?.stop();
    await ctx?.close();
    await smsc?.stop();
    await database?.drop();
    [worker, ctx] = [undefined, undefined];
  });

  /** A context whose live SMS carrier is SMPP to the test SMSC, with an account that can send. */
  async function setUp(
    env: Record<string, string> = {},
    smscOptions: Parameters<typeof startTestSmsc>[0] = {},
    password = "secret",
  ) {
    smsc = await startTestSmsc(smscOptions);
    ctx = await openTestContext(database.url, {
      clock: realClock,
      env: {
        SMPP_URL: `smpp://dakiya:${password}@127.0.0.1:${smsc.port}`,
        SMPP_TPS: "2000",
        SMPP_WINDOW: "10",
        SMPP_SYSTEM_TYPE: "dakiya",
        ...env,
      },
    });
    const current = ctx;
    const { accountId, principal } = await createLiveSender(current, [
      { templateId: TEMPLATE_ID, content: "Your code is {#code#}. -Dakiya" },
      {
        templateId: HINDI_TEMPLATE_ID,
        content: "नमस्ते {#name#}, आपका ऑर्डर भेज दिया गया है। {#details#} {#more#} {#extra#} धन्यवाद, दाकिया।",
      },
    ]);
    const send = (to = "+919876543210", code = "1234") =>
      sendSms(current, principal, { to, sender: "DAKIYA", template_id: TEMPLATE_ID, variables: { code } });
    const carriers = testCarriers(current);
    worker = startWorker(current, carriers, { pollIntervalMs: 5, batchSize: 50 });
    const carrier = carriers.live.sms as SmppCarrier;
    return { ctx: current, accountId, send, principal, carrier };
  }

  async function messageRow(context: AppContext, id: string) {
    return context.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  }

  it("binds as a transceiver with the configured credentials and reports the bind", async () => {
    const { carrier, ctx } = await setUp();
    await smsc.waitFor(() => smsc.boundSessions === 1);
    expect(smsc.binds[0]).toMatchObject({
      command: "bind_transceiver",
      system_id: "dakiya",
      password: "secret",
      system_type: "dakiya",
      interface_version: 0x34,
      commandStatus: 0,
    });
    await waitFor(async () => carrier.status().bound, 2_000);
    expect(carrier.status()).toEqual({ bound: true, window: 10, in_flight: 0 });
    const app = await buildApp(ctx);
    const ready = await app.inject({ method: "GET", url: "/readyz" });
    expect(ready.json()).toEqual({
      status: "ready",
      carriers: { "sms:smpp": { bound: true, window: 10, in_flight: 0 } },
      routes: [{ name: "default", bound: true, window: 10, in_flight: 0, circuit: "closed" }],
      unrouted: { categories: [], accounts_listed_only: false, senders_listed_only: false },
    });
    await app.close();
  });

  it("binds as transmitter plus receiver when asked", async () => {
    await setUp({ SMPP_BIND: "transmitter+receiver" });
    await smsc.waitFor(() => smsc.boundSessions === 2);
    expect(smsc.binds.map((b) => b.command).sort()).toEqual(["bind_receiver", "bind_transmitter"]);
  });

  it("does not bind with wrong credentials, keeps retrying with backoff, and sends nothing", async () => {
    const { carrier, send, ctx } = await setUp({}, {}, "wrong");
    const message = await send();
    await smsc.waitFor(() => smsc.binds.length >= 2, 5_000);
    expect(smsc.binds.every((b) => b.commandStatus !== 0)).toBe(true);
    expect(carrier.status().bound).toBe(false);
    expect(smsc.submits).toHaveLength(0);
    expect((await messageRow(ctx, message.id)).status).toBe("queued");
  });

  it("puts the DLT TLVs and TON/NPI on every submit_sm", async () => {
    const { send, ctx } = await setUp({ SMPP_TM_ID: "1702000000000000001" });
    const message = await send();
    await waitFor(async () => (await messageRow(ctx, message.id)).status === "submitted", 5_000);
    const [submit] = smsc.submits;
    expect(submit).toMatchObject({
      source_addr: "DAKIYA",
      source_addr_ton: 5,
      source_addr_npi: 0,
      destination_addr: "919876543210",
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      data_coding: 0,
      esm_class: 0,
      registered_delivery: 1,
    });
    expect(submit?.tlvs.get(0x1400)?.toString()).toBe(TEST_ENTITY_ID);
    expect(submit?.tlvs.get(0x1401)?.toString()).toBe(TEMPLATE_ID);
    expect(submit?.tlvs.get(0x1402)?.toString()).toBe("1702000000000000001");
    expect(submit?.payload.toString("latin1")).toBe("Your code is 1234. -Dakiya");
    const row = await messageRow(ctx, message.id);
    expect(row).toMatchObject({ carrier: "smpp" });
  });

  it("uses the configured tags when an SMSC swaps them, and leaves out the TM TLV when unset", async () => {
    const { send, ctx } = await setUp({ SMPP_TLV_ENTITY_ID: "0x1401", SMPP_TLV_TEMPLATE_ID: "0x1400" });
    const message = await send();
    await waitFor(async () => (await messageRow(ctx, message.id)).status === "submitted", 5_000);
    const [submit] = smsc.submits;
    expect(submit?.tlvs.get(0x1401)?.toString()).toBe(TEST_ENTITY_ID);
    expect(submit?.tlvs.get(0x1400)?.toString()).toBe(TEMPLATE_ID);
    expect(submit?.tlvs.has(0x1402)).toBe(false);
  });

  it("sends a 3-part UCS-2 message as 3 submit_sm with one concatenation reference, and tracks every part", async () => {
    const { ctx, principal } = await setUp();
    const message = await sendSms(ctx, principal, {
      to: "+919876543210",
      sender: "DAKIYA",
      template_id: HINDI_TEMPLATE_ID,
      variables: { name: "आशा", details: "क".repeat(30), more: "ख".repeat(30), extra: "ग".repeat(30) },
    });
    expect(message).toMatchObject({ encoding: "ucs2", segments: 3 });
    await waitFor(async () => (await messageRow(ctx, message.id)).status === "submitted", 5_000);

    expect(smsc.submits).toHaveLength(3);
    const reference = smsc.submits[0]?.udh?.[3];
    smsc.submits.forEach((submit, index) => {
      expect(submit.esm_class & 0x40).toBe(0x40);
      expect(submit.data_coding).toBe(8);
      expect([...(submit.udh ?? [])]).toEqual([0x05, 0x00, 0x03, reference, 3, index + 1]);
      expect(submit.payload.length).toBeLessThanOrEqual(134);
    });
    const text = smsc.submits.map((s) => Buffer.from(s.payload).swap16().toString("utf16le")).join("");
    expect(text).toBe(message.text);
    const parts = await ctx.db
      .selectFrom("carrier_messages")
      .select(["carrier_message_id", "part"])
      .where("message_id", "=", message.id)
      .orderBy("part")
      .execute();
    expect(parts.map((p) => p.part)).toEqual([1, 2, 3]);
    expect(parts.map((p) => p.carrier_message_id)).toEqual(smsc.submits.map((s) => s.messageId));
  });

  it("never splits a flag or an emoji with its skin tone across parts, and submits as many parts as it charged", async () => {
    const { ctx, principal, accountId } = await setUp();
    const before = await getBalance(ctx.db, accountId, "live");
    // "नमस्ते आशा, आपका ऑर्डर भेज दिया गया है। " is 40 units: the flag's first half would end part 1
    // at unit 67; then part 2, from 65, would end at 132 between the thumb and its skin tone.
    const message = await sendSms(ctx, principal, {
      to: "+919876543210",
      sender: "DAKIYA",
      template_id: HINDI_TEMPLATE_ID,
      variables: { name: "आशा", details: `${"क".repeat(25)}🇮🇳`, more: `ख${"😀".repeat(29)}`, extra: "👍🏽ग" },
    });
    expect(message.text.indexOf("🇮🇳")).toBe(65);
    expect(message.text.indexOf("👍🏽")).toBe(130);
    expect(message).toMatchObject({ encoding: "ucs2", segments: 3, cost: "0.7500" });
    expect(before - (await getBalance(ctx.db, accountId, "live"))).toBe(3 * 2_500);
    await waitFor(async () => (await messageRow(ctx, message.id)).status === "submitted", 5_000);

    expect(smsc.submits).toHaveLength(message.segments);
    const parts = smsc.submits.map((s) => Buffer.from(s.payload).swap16().toString("utf16le"));
    expect(parts.join("")).toBe(message.text);
    const graphemes = new Intl.Segmenter("und", { granularity: "grapheme" });
    const boundaries = new Set(Array.from(graphemes.segment(message.text), ({ index }) => index));
    let end = 0;
    for (const part of parts.slice(0, -1)) {
      end += part.length;
      expect(boundaries.has(end), `a cut at ${end}`).toBe(true);
    }
    expect(parts[1]?.startsWith("🇮🇳")).toBe(true);
    expect(parts[2]?.startsWith("👍🏽")).toBe(true);
  });

  it("moves messages to delivered and undelivered on delivery receipts, answering each deliver_sm", async () => {
    const { send, ctx } = await setUp();
    const [good, bad, textOnly] = [await send(), await send("+919876500000"), await send("+919876500001")];
    await waitFor(async () => (await countQueued(ctx)) === 0, 5_000);
    const idOf = (to: string) => smsc.submits.find((s) => s.destination_addr === to)?.messageId ?? "";

    await smsc.sendReceipt(idOf("919876543210"), { stat: "DELIVRD", withTlv: true });
    await smsc.sendReceipt(idOf("919876500000"), { stat: "UNDELIV", err: "006", withTlv: true });
    await smsc.sendReceipt(idOf("919876500001"), { stat: "DELIVRD", withTlv: false });
    expect(smsc.receiptAcks.map((a) => a.commandStatus)).toEqual([0, 0, 0]);

    expect(await messageRow(ctx, good.id)).toMatchObject({ status: "delivered" });
    expect(await messageRow(ctx, bad.id)).toMatchObject({ status: "undelivered", error_code: "smsc_006" });
    expect(await messageRow(ctx, textOnly.id)).toMatchObject({ status: "delivered" });
  });

  it("fails and refunds a message the SMSC refuses for good", async () => {
    const { send, ctx, accountId } = await setUp(
      {},
      { answer: (submit) => (submit.destination_addr === "919876500009" ? 0x0b : 0) },
    );
    const before = await getBalance(ctx.db, accountId, "live");
    const message = await send("+919876500009");
    await waitFor(async () => (await messageRow(ctx, message.id)).status === "failed", 5_000);
    expect(await messageRow(ctx, message.id)).toMatchObject({ error_code: "esme_rinvdstadr" });
    expect(await getBalance(ctx.db, accountId, "live")).toBe(before);
  });

  it("slows down on ESME_RTHROTTLED and ESME_RMSGQFUL, and loses nothing", async () => {
    const { send, ctx } = await setUp(
      { SMPP_WINDOW: "1" },
      { answer: (_submit, index) => [0x58, 0x14][index] ?? 0 },
    );
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await send(`+9198765${String(i).padStart(5, "0")}`)).id);
    await waitFor(async () => (await countQueued(ctx)) === 0, 20_000);
    const rows = await ctx.db
      .selectFrom("messages")
      .select(["status", "attempts"])
      .where("id", "in", ids)
      .execute();
    expect(rows.every((r) => r.status === "submitted")).toBe(true);
    expect(rows.filter((r) => r.attempts > 1).length).toBeGreaterThanOrEqual(1);
    const accepted = smsc.submits.filter((s) => s.commandStatus === 0).map((s) => s.destination_addr);
    expect(accepted).toHaveLength(30);
    expect(new Set(accepted).size).toBe(30);
    // After each throttle answer the client holds back for a second before the next submit.
    const [first, second, third] = smsc.submits.map((s) => s.receivedAt);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(900);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(900);
  }, 30_000);

  it("re-binds after the SMSC drops the connection mid-stream, and every one of 500 messages arrives", async () => {
    // 500 a second: the 500 messages, queued at once, take a second to go, and the drop comes
    // while they are going.
    const { send, ctx, carrier } = await setUp({ SMPP_TPS: "500" }, { responseDelayMs: 2 });
    const sent = await Promise.all(
      Array.from({ length: 500 }, (_, i) => send(`+9197${String(i).padStart(8, "0")}`)),
    );
    const ids = sent.map((message) => message.id);
    await smsc.waitFor(() => smsc.submits.length >= 100, 10_000);
    await smsc.dropConnections();
    expect(smsc.submits.length).toBeLessThan(500);
    await smsc.waitFor(() => smsc.connectionsAccepted >= 2, 10_000);
    await waitFor(async () => (await countQueued(ctx)) === 0, 30_000);

    const rows = await ctx.db
      .selectFrom("messages")
      .select(["id", "status"])
      .where("id", "in", ids)
      .execute();
    expect(rows.filter((r) => r.status !== "submitted")).toEqual([]);
    const arrived = new Set(smsc.submits.filter((s) => s.commandStatus === 0).map((s) => s.destination_addr));
    expect(arrived.size).toBe(500);
    expect(carrier.status().bound).toBe(true);
  }, 60_000);
});
