import { connect, type Socket } from "node:net";
import smpp, { type PDU, type Session } from "smpp";
import { afterEach, describe, expect, it } from "vitest";
import { startBenchSmsc } from "../../bench/smsc.js";
import type { OutboundMessage, Receipt } from "../../src/delivery/carrier.js";
import { createSmppCarrier, type SmppCarrier } from "../../src/delivery/carriers/smpp.js";
import { parseRoutesFile } from "../../src/delivery/carriers/smpp-config.js";
import { formatEvent, type LogFormat } from "../../src/dev-smsc/log.js";
import {
  type DevSmsc,
  type DevSmscEvent,
  type DevSmscOptions,
  startDevSmsc,
} from "../../src/dev-smsc/server.js";
import { peTmChainHash } from "../../src/dlt/tm-chain.js";
import { createLogger } from "../../src/lib/logger.js";
import { waitFor } from "../helpers/delivery.js";
import { mobile, outboundSms } from "../helpers/smpp-routes.js";

/*
 * The development SMSC (`dakiya dev-smsc`, docs/try-live-sms.md) on loopback, with Dakiya's own
 * SMPP carrier binding to it: what it logs of each submit_sm, its answers and its receipts.
 */

const { errors } = smpp;
const ENTITY_ID = "1101456789012345678";
const TEMPLATE_ID = "1107161234567890123";
const CHAIN = ["1702000000000000001", "1702000000000000002"];
const TAGS = { entityId: 0x1400, templateId: 0x1401, tm: 0x1402 };
const HINDI =
  "नमस्ते, आपका ऑर्डर ORD-2026-000123456789 पैक हो गया है और कूरियर को सौंप दिया गया है। यह मंगलवार तक पहुँचेगा। धन्यवाद, दाकिया।";

interface Rig {
  smsc: DevSmsc;
  carrier: SmppCarrier;
  events: DevSmscEvent[];
  receipts: Receipt[];
  send(overrides?: Partial<OutboundMessage>): ReturnType<SmppCarrier["send"]>;
}

let smsc: DevSmsc | undefined;
let carrier: SmppCarrier | undefined;
const sessions: Session[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  await carrier?.close?.();
  for (const session of sessions.splice(0)) session.destroy();
  for (const socket of sockets.splice(0)) socket.destroy();
  await smsc?.stop();
  [carrier, smsc] = [undefined, undefined];
});

/** The SMSC with `options`, and Dakiya's carrier bound to it through a route with `route`'s fields. */
async function start(
  options: Partial<DevSmscOptions> = {},
  route: Record<string, unknown> = {},
): Promise<Rig> {
  const events: DevSmscEvent[] = [];
  const receipts: Receipt[] = [];
  const server = await startDevSmsc({
    systemId: "dakiya",
    password: "secret",
    receiptDelayMs: 100,
    ...options,
    onEvent: (event) => events.push(event),
  });
  smsc = server;
  const routes = parseRoutesFile(
    JSON.stringify([{ name: "dev", url: server.url, tps: 1_000, breaker_failures: 1_000, ...route }]),
  );
  const current = createSmppCarrier(routes, {
    log: createLogger("silent"),
    onReceipt: async (receipt) => {
      receipts.push(receipt);
      return true;
    },
  });
  carrier = current;
  current.start?.();
  await waitFor(async () => current.status().bound, 5_000);
  let sent = 0;
  return {
    smsc: server,
    carrier: current,
    events,
    receipts,
    send: (overrides = {}) => {
      sent += 1;
      return current.send(outboundSms({ id: `msg_dev${sent}`, to: mobile(sent), ...overrides }));
    },
  };
}

function submitEvents(events: DevSmscEvent[]) {
  return events.flatMap((event) => (event.type === "submit_sm" ? [event] : []));
}

/** The one JSON object the --json log prints for an event. */
function logged(event: DevSmscEvent | undefined, format: Partial<LogFormat> = {}): Record<string, unknown> {
  if (event === undefined) throw new Error("no such event");
  const line = formatEvent(event, { json: true, tags: TAGS, ...format });
  expect(line).not.toContain("\n");
  return JSON.parse(line) as Record<string, unknown>;
}

/** A raw SMPP session with the `smpp` library, not bound. */
async function rawSession(port: number): Promise<Session> {
  const session = smpp.connect({ host: "127.0.0.1", port });
  sessions.push(session);
  session.on("error", () => {});
  await new Promise<void>((resolve) => session.once("connect", () => resolve()));
  return session;
}

function request(session: Session, command: string, params: Record<string, unknown> = {}): Promise<PDU> {
  return new Promise((resolve, reject) => {
    const sent = session.send(new smpp.PDU(command, params), resolve);
    if (!sent) reject(new Error(`${command} could not be sent`));
  });
}

describe("the development SMSC's log", () => {
  it("logs a submit_sm with its decoded GSM-7 text, its header and the DLT TLVs", async () => {
    const rig = await start();
    const text = "Code 4821 for Dakiya: use {it} in 10 min, €5 off [x] ~ ok @home";
    expect(
      await rig.send({ text, tmChain: CHAIN, priority: "otp", expiresAt: inSeconds(600) }),
    ).toMatchObject({
      outcome: "accepted",
    });
    const [event] = submitEvents(rig.events);
    const record = logged(event, { tmChain: CHAIN });
    expect(record).toMatchObject({
      event: "submit_sm",
      number: 1,
      destination: "919700000001",
      source: "DAKIYA",
      data_coding: 0,
      encoding: "gsm7",
      text,
      udh: null,
      entity_id: ENTITY_ID,
      template_id: TEMPLATE_ID,
      tm: peTmChainHash(ENTITY_ID, CHAIN),
      tm_matches_chain: true,
      priority_flag: 1,
      registered_delivery: 1,
      status: "ESME_ROK",
    });
    expect(record.validity_period).toMatch(/^00000000095\d000R$|^000000001000000R$/);
    expect(record.message_id).toMatch(/^[0-9a-f]{6}-1$/);

    const line = formatEvent(event as DevSmscEvent, { json: false, tags: TAGS, tmChain: CHAIN });
    expect(line).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} submit_sm #1 session 1: to 919700000001 from DAKIYA /);
    expect(line).toContain(" data_coding 0 (gsm7) ");
    expect(line).toContain(
      ` entity ${ENTITY_ID} template ${TEMPLATE_ID} tm ${peTmChainHash(ENTITY_ID, CHAIN)} (the PE–TM chain hash) `,
    );
    expect(line).toContain(" priority 1 → ESME_ROK id ");
    expect(line.endsWith(`: ${JSON.stringify(text)}`)).toBe(true);
    expect(line).not.toContain("\n");
  });

  it("says when the TM TLV is not the chain hash it was told of, and when a TLV is missing", async () => {
    const rig = await start();
    await rig.send({ tmChain: ["1702000000000000009"] });
    await rig.send({ tmChain: undefined });
    const [wrong, none] = submitEvents(rig.events);
    expect(logged(wrong, { tmChain: CHAIN })).toMatchObject({ tm_matches_chain: false });
    expect(formatEvent(wrong as DevSmscEvent, { json: false, tags: TAGS, tmChain: CHAIN })).toContain(
      `(NOT the PE–TM chain hash of entity ${ENTITY_ID} and ${CHAIN.join(",")})`,
    );
    expect(logged(none)).toMatchObject({ tm: null, entity_id: ENTITY_ID });
    expect(logged(none)).not.toHaveProperty("tm_matches_chain");
    expect(formatEvent(none as DevSmscEvent, { json: false, tags: TAGS })).toContain(" tm (none) ");
  });

  it("logs each part of a long UCS-2 message with its UDH part i/n and its text", async () => {
    const rig = await start();
    expect(await rig.send({ text: HINDI, encoding: "ucs2", segments: 2 })).toMatchObject({
      outcome: "accepted",
    });
    const records = submitEvents(rig.events).map((event) => logged(event));
    expect(records).toHaveLength(2);
    const [first, second] = records.map((r) => r.udh as { reference: number; part: number; parts: number });
    expect(first).toEqual({ reference: expect.any(Number), part: 1, parts: 2 });
    expect(second).toEqual({ reference: first?.reference, part: 2, parts: 2 });
    expect(records.every((r) => r.data_coding === 8 && r.encoding === "ucs2")).toBe(true);
    expect(records.map((r) => r.text).join("")).toBe(HINDI);
    const line = formatEvent(submitEvents(rig.events)[1] as DevSmscEvent, { json: false, tags: TAGS });
    expect(line).toContain(" data_coding 8 (ucs2) part 2/2 (ref ");
  });

  it("reads the DLT TLVs under the tags it is told, as a route that swaps them sends them", async () => {
    const swapped = { entityId: 0x1401, templateId: 0x1400, tm: 0x1500 };
    const rig = await start(
      {},
      { tlv_entity_id: "0x1401", tlv_template_id: "0x1400", tlv_tm: "0x1500", tm_id: "1702000000000000001" },
    );
    await rig.send();
    const [event] = submitEvents(rig.events);
    expect(logged(event, { tags: swapped })).toMatchObject({
      entity_id: ENTITY_ID,
      template_id: TEMPLATE_ID,
      tm: "1702000000000000001",
    });
    // Read under the default tags, the same submit has its ids the other way round and no TM.
    expect(logged(event)).toMatchObject({ entity_id: TEMPLATE_ID, template_id: ENTITY_ID, tm: null });
  });
});

describe("the development SMSC's receipts", () => {
  it("sends a DELIVRD receipt after the delay, which Dakiya's carrier takes as delivered", async () => {
    const rig = await start({ receiptDelayMs: 400 });
    const sentAt = Date.now();
    const result = await rig.send();
    expect(result).toMatchObject({ outcome: "accepted" });
    const id = result.outcome === "accepted" ? result.carrierMessageIds[0] : undefined;
    await waitFor(async () => rig.receipts.length === 1, 5_000);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(400);
    expect(rig.receipts[0]).toMatchObject({ carrierMessageId: id, state: "delivered" });
    expect(rig.events.find((e) => e.type === "receipt")).toEqual({
      type: "receipt",
      session: 1,
      messageId: id,
      stat: "DELIVRD",
      err: "000",
    });
    await waitFor(async () => rig.smsc.receiptsAcked === 1, 2_000);
    expect(rig.smsc.receiptsPending).toBe(0);
  });

  it("writes the standard receipt text with receipted_message_id and message_state", async () => {
    const server = await startDevSmsc({ systemId: "dakiya", password: "secret", receiptDelayMs: 50 });
    smsc = server;
    const session = await rawSession(server.port);
    expect(
      (await request(session, "bind_transceiver", { system_id: "dakiya", password: "secret" }))
        .command_status,
    ).toBe(0);
    const receipt = new Promise<PDU>((resolve) =>
      session.on("deliver_sm", (pdu: PDU) => {
        session.send(pdu.response());
        resolve(pdu);
      }),
    );
    const resp = await request(session, "submit_sm", {
      source_addr_ton: 5,
      source_addr: "DAKIYA",
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: "919876543210",
      registered_delivery: 1,
      short_message: Buffer.from("Hello from the test harness, a long one"),
    });
    const id = String(resp.message_id);
    const pdu = await receipt;
    expect(pdu).toMatchObject({
      esm_class: 0x04,
      source_addr: "919876543210",
      source_addr_ton: 1,
      destination_addr: "DAKIYA",
      dest_addr_ton: 5,
      receipted_message_id: id,
      message_state: 2,
    });
    const text = (pdu.short_message as { message: string }).message;
    expect(text).toMatch(
      new RegExp(
        `^id:${id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:Hello from the test $`,
      ),
    );
    await waitFor(async () => server.receiptsAcked === 1, 2_000);
  });

  it("with a receipt error, answers REJECTD err:CODE, which Dakiya names as the operator's rejection", async () => {
    const rig = await start({ receiptError: "623" });
    await rig.send();
    await waitFor(async () => rig.receipts.length === 1, 5_000);
    expect(rig.receipts[0]).toMatchObject({
      state: "rejected",
      errorCode: "dlt_header_not_registered",
      errorMessage:
        "The operator rejected the message: its header is not registered, active or linked to the entity on DLT. The SMSC reported REJECTD with error 623.",
    });
  });

  it("sends no receipt to a submit that asks for none", async () => {
    const server = await startDevSmsc({ systemId: "dakiya", password: "secret", receiptDelayMs: 0 });
    smsc = server;
    const session = await rawSession(server.port);
    await request(session, "bind_transceiver", { system_id: "dakiya", password: "secret" });
    const resp = await request(session, "submit_sm", {
      destination_addr: "919876543210",
      short_message: "hi",
    });
    expect(resp.command_status).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.receiptsSent).toBe(0);
    expect(server.receiptsPending).toBe(0);
  });

  it("holds a receipt while no session can receive it, and sends it on the next bind", async () => {
    const server = await startDevSmsc({ systemId: "dakiya", password: "secret", receiptDelayMs: 50 });
    smsc = server;
    const transmitter = await rawSession(server.port);
    await request(transmitter, "bind_transmitter", { system_id: "dakiya", password: "secret" });
    const resp = await request(transmitter, "submit_sm", {
      destination_addr: "919876543210",
      registered_delivery: 1,
      short_message: "hi",
    });
    await waitFor(async () => server.receiptsPending === 1 && server.receiptsSent === 0, 2_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.receiptsSent).toBe(0);
    const receiver = await rawSession(server.port);
    const receipt = new Promise<PDU>((resolve) => receiver.on("deliver_sm", resolve));
    await request(receiver, "bind_receiver", { system_id: "dakiya", password: "secret" });
    expect((await receipt).receipted_message_id).toBe(resp.message_id);
  });
});

describe("the development SMSC's answers", () => {
  it("throttles every Nth submit_sm, which Dakiya's carrier retries later", async () => {
    const rig = await start({ throttleEvery: 2 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await rig.send());
    expect(results.map((r) => r.outcome)).toEqual(["accepted", "retryable", "accepted", "retryable"]);
    expect(results[1]).toMatchObject({ errorCode: "esme_rthrottled" });
    expect(submitEvents(rig.events).map((e) => logged(e).status)).toEqual([
      "ESME_ROK",
      "ESME_RTHROTTLED",
      "ESME_ROK",
      "ESME_RTHROTTLED",
    ]);
    expect(logged(submitEvents(rig.events)[1])).toMatchObject({ message_id: null });
    expect(rig.smsc.submits).toBe(2);
  });

  it("rejects every submit_sm with the status it is given, which fails the message for good", async () => {
    const rig = await start({ reject: { status: errors.ESME_RINVDSTADR } });
    const result = await rig.send();
    expect(result).toMatchObject({ outcome: "permanent", errorCode: "esme_rinvdstadr" });
    expect(logged(submitEvents(rig.events)[0])).toMatchObject({
      status: "ESME_RINVDSTADR",
      message_id: null,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(rig.smsc.receiptsSent).toBe(0);
  });

  it("rejects every Nth submit_sm, throttling first where both fall", async () => {
    const rig = await start({ throttleEvery: 4, reject: { status: 0x45, every: 2 } });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await rig.send()).outcome);
    expect(outcomes).toEqual(["accepted", "permanent", "accepted", "retryable"]);
    expect(submitEvents(rig.events).map((e) => logged(e).status)).toEqual([
      "ESME_ROK",
      "ESME_RSUBMITFAIL",
      "ESME_ROK",
      "ESME_RTHROTTLED",
    ]);
  });

  it("drops each session N seconds after its bind; Dakiya binds again and the receipt still comes", async () => {
    const rig = await start({ dropAfterMs: 600, receiptDelayMs: 700 });
    const result = await rig.send();
    expect(result).toMatchObject({ outcome: "accepted" });
    await waitFor(async () => rig.events.some((e) => e.type === "dropped"), 3_000);
    await waitFor(async () => rig.receipts.length === 1, 5_000);
    expect(rig.receipts[0]).toMatchObject({ state: "delivered" });
    await waitFor(async () => rig.carrier.status().bound, 5_000);
    const binds = rig.events.filter((e) => e.type === "bind");
    expect(binds.length).toBeGreaterThanOrEqual(2);
    expect(rig.events.find((e) => e.type === "dropped")).toEqual({
      type: "dropped",
      session: 1,
      afterMs: 600,
    });
    expect(
      formatEvent(rig.events.find((e) => e.type === "dropped") as DevSmscEvent, { json: false, tags: TAGS }),
    ).toMatch(/session 1: dropped 0.6 s after its bind/);
  });

  it("refuses a wrong system_id or password, answers enquire_link, and closes on unbind", async () => {
    const events: DevSmscEvent[] = [];
    const server = await startDevSmsc({
      systemId: "dakiya",
      password: "secret",
      onEvent: (e) => events.push(e),
    });
    smsc = server;
    const wrongId = await rawSession(server.port);
    expect(
      (await request(wrongId, "bind_transceiver", { system_id: "other", password: "secret" })).command_status,
    ).toBe(errors.ESME_RINVSYSID);
    const wrongPassword = await rawSession(server.port);
    expect(
      (await request(wrongPassword, "bind_transmitter", { system_id: "dakiya", password: "nope" }))
        .command_status,
    ).toBe(errors.ESME_RINVPASWD);
    expect(server.refusedBinds).toBe(2);
    const session = await rawSession(server.port);
    const bound = await request(session, "bind_transceiver", { system_id: "dakiya", password: "secret" });
    expect(bound).toMatchObject({ command_status: 0, system_id: "DAKIYADEV" });
    expect(
      (await request(session, "bind_transceiver", { system_id: "dakiya", password: "secret" }))
        .command_status,
    ).toBe(errors.ESME_RALYBND);
    expect((await request(session, "enquire_link")).command).toBe("enquire_link_resp");
    expect(server.boundSessions).toBe(1);
    const closed = new Promise<void>((resolve) => session.once("close", () => resolve()));
    expect((await request(session, "unbind")).command).toBe("unbind_resp");
    await closed;
    await waitFor(async () => server.boundSessions === 0, 2_000);
    // Each refused bind closes its session, as the unbind does.
    await waitFor(async () => events.filter((e) => e.type === "closed").length === 3, 2_000);
    const told = events.filter((e) => e.type !== "closed");
    expect(told.map((e) => `${e.type}:${"status" in e ? e.status : ""}`)).toEqual([
      `bind:${errors.ESME_RINVSYSID}`,
      `bind:${errors.ESME_RINVPASWD}`,
      "bind:0",
      `bind:${errors.ESME_RALYBND}`,
      "unbind:",
    ]);
    expect(formatEvent(told[1] as DevSmscEvent, { json: false, tags: TAGS })).toMatch(
      /session 2: bind_transmitter as "dakiya": refused ESME_RINVPASWD$/,
    );
    // The password tried is never logged.
    expect(events.map((e) => formatEvent(e, { json: true, tags: TAGS })).join("\n")).not.toContain("nope");
  });

  it("answers a submit_sm before a bind, or on a receiver bind, ESME_RINVBNDSTS; an unknown command generic_nack", async () => {
    const server = await startDevSmsc({ systemId: "dakiya", password: "secret" });
    smsc = server;
    const unbound = await rawSession(server.port);
    const submit = { destination_addr: "919876543210", short_message: "hi" };
    expect((await request(unbound, "submit_sm", submit)).command_status).toBe(errors.ESME_RINVBNDSTS);
    const receiver = await rawSession(server.port);
    await request(receiver, "bind_receiver", { system_id: "dakiya", password: "secret" });
    expect((await request(receiver, "submit_sm", submit)).command_status).toBe(errors.ESME_RINVBNDSTS);
    const nack = await request(receiver, "query_sm", { message_id: "1" });
    expect(nack).toMatchObject({ command: "generic_nack", command_status: errors.ESME_RINVCMDID });
    expect(server.submits).toBe(0);
  });

  it("answers a PDU of impossible length generic_nack ESME_RINVCMDLEN and closes the session", async () => {
    const server = await startDevSmsc({ systemId: "dakiya", password: "secret" });
    smsc = server;
    const socket = connect(server.port, "127.0.0.1");
    sockets.push(socket);
    const received: Buffer[] = [];
    socket.on("data", (chunk) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const header = Buffer.alloc(16);
    header.writeUInt32BE(8, 0);
    header.writeUInt32BE(0x15, 4);
    header.writeUInt32BE(7, 12);
    socket.write(header);
    await closed;
    const answer = Buffer.concat(received);
    expect(answer.length).toBe(16);
    expect([answer.readUInt32BE(4), answer.readUInt32BE(8), answer.readUInt32BE(12)]).toEqual([
      0x80000000, 0x02, 7,
    ]);
  });
});

describe("the development SMSC's sessions", () => {
  it("answers nothing after an unbind, even what came in the same write", async () => {
    const server = await startDevSmsc({ systemId: "dakiya", password: "secret" });
    smsc = server;
    const socket = connect(server.port, "127.0.0.1");
    sockets.push(socket);
    const received: Buffer[] = [];
    socket.on("data", (chunk) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const header = (command: number, sequence: number) => {
      const pdu = Buffer.alloc(16);
      pdu.writeUInt32BE(16, 0);
      pdu.writeUInt32BE(command, 4);
      pdu.writeUInt32BE(sequence, 12);
      return pdu;
    };
    socket.write(Buffer.concat([header(0x15, 1), header(0x06, 2), header(0x15, 3)]));
    await closed;
    const answers = Buffer.concat(received);
    expect(answers.length).toBe(32);
    expect([answers.readUInt32BE(4), answers.readUInt32BE(12)]).toEqual([0x80000015, 1]);
    expect([answers.readUInt32BE(20), answers.readUInt32BE(28)]).toEqual([0x80000006, 2]);
  });
});

describe("the bench's SMSC", () => {
  it("is the development SMSC, quiet, telling the scenario of each accepted submit and counting receipts", async () => {
    const seen: Array<[string, number]> = [];
    const server = await startBenchSmsc({
      systemId: "bench",
      password: "secret",
      receiptDelayMs: 20,
      onSubmit: (destination, at) => seen.push([destination, at]),
    });
    smsc = server;
    const routes = parseRoutesFile(JSON.stringify([{ name: "bench", url: server.url }]));
    const current = createSmppCarrier(routes, { log: createLogger("silent"), onReceipt: async () => true });
    carrier = current;
    current.start?.();
    expect(await current.send(outboundSms({ to: "+919812345678" }))).toMatchObject({ outcome: "accepted" });
    expect(seen).toEqual([["919812345678", expect.any(Number)]]);
    expect(server.submits).toBe(1);
    expect(server.firstSubmitAt).toBe(seen[0]?.[1]);
    await waitFor(async () => server.receiptsAcked === 1 && server.receiptsPending === 0, 2_000);
    expect(server.receiptsSent).toBe(1);
    expect(server.boundSessions).toBe(1);
  });
});

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
