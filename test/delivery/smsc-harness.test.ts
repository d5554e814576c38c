import { once } from "node:events";
import smpp, { type PDU, type Session } from "smpp";
import { afterEach, describe, expect, it } from "vitest";
import { startTestSmsc, type TestSmsc } from "../helpers/smsc.js";

const { errors } = smpp;

// Sending a custom TLV needs a global registration (the library only serialises registered names).
smpp.addTLV("harness_tlv_1400", { id: 0x1400, type: smpp.types.tlv.buffer });
smpp.addTLV("harness_tlv_1401", { id: 0x1401, type: smpp.types.tlv.buffer });

const running: TestSmsc[] = [];
const clients: Session[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(running.splice(0).map((smsc) => smsc.stop()));
});

async function smscUnderTest(options?: Parameters<typeof startTestSmsc>[0]): Promise<TestSmsc> {
  const smsc = await startTestSmsc(options);
  running.push(smsc);
  return smsc;
}

async function connectClient(smsc: TestSmsc): Promise<Session> {
  const client = smpp.connect({ host: "127.0.0.1", port: smsc.port });
  clients.push(client);
  client.on("error", () => {});
  await once(client, "connect");
  return client;
}

function call(client: Session, command: string, params: Record<string, unknown> = {}): Promise<PDU> {
  return new Promise((resolve, reject) => {
    const sent = client.send(new smpp.PDU(command, params), resolve);
    if (!sent) reject(new Error("socket not writable"));
  });
}

async function boundClient(smsc: TestSmsc, command = "bind_transceiver"): Promise<Session> {
  const client = await connectClient(smsc);
  const resp = await call(client, command, {
    system_id: "dakiya",
    password: "secret",
    interface_version: 0x34,
  });
  expect(resp.command_status).toBe(errors.ESME_ROK);
  return client;
}

describe("test SMSC harness", () => {
  it("accepts a bind with the right credentials and refuses (then closes) a wrong one", async () => {
    const smsc = await smscUnderTest();
    expect(smsc.url).toBe(`smpp://dakiya:secret@127.0.0.1:${smsc.port}`);

    const good = await connectClient(smsc);
    const ok = await call(good, "bind_transceiver", {
      system_id: "dakiya",
      password: "secret",
      system_type: "DAKIYA",
      interface_version: 0x34,
    });
    expect(ok.command).toBe("bind_transceiver_resp");
    expect(ok.command_status).toBe(errors.ESME_ROK);
    expect(ok.system_id).toBe("TESTSMSC");

    const bad = await connectClient(smsc);
    const closed = once(bad, "close");
    const refused = await call(bad, "bind_transmitter", { system_id: "dakiya", password: "wrong" });
    expect(refused.command).toBe("bind_transmitter_resp");
    expect(refused.command_status).toBe(errors.ESME_RBINDFAIL);
    await closed;

    expect(smsc.binds).toMatchObject([
      { command: "bind_transceiver", system_id: "dakiya", password: "secret", system_type: "DAKIYA" },
      {
        command: "bind_transmitter",
        system_id: "dakiya",
        password: "wrong",
        commandStatus: errors.ESME_RBINDFAIL,
      },
    ]);
    expect(smsc.binds[0]?.interface_version).toBe(0x34);
    await smsc.waitFor(() => smsc.sessions === 1);
    expect(smsc.boundSessions).toBe(1);
  });

  it("refuses submit_sm before a bind", async () => {
    const smsc = await smscUnderTest();
    const client = await connectClient(smsc);
    const resp = await call(client, "submit_sm", { destination_addr: "919812345678", short_message: "hi" });
    expect(resp.command_status).toBe(errors.ESME_RINVBNDSTS);
    expect(smsc.submits).toHaveLength(0);
  });

  it("answers enquire_link and unbind", async () => {
    const smsc = await smscUnderTest();
    const client = await boundClient(smsc);
    expect((await call(client, "enquire_link")).command).toBe("enquire_link_resp");
    expect((await call(client, "enquire_link")).command).toBe("enquire_link_resp");
    expect(smsc.enquireLinks).toBe(2);
    const closed = once(client, "close");
    expect((await call(client, "unbind")).command).toBe("unbind_resp");
    await closed;
    expect(smsc.unbinds).toBe(1);
  });

  it("records a submit_sm with addresses, TON/NPI and raw vendor TLVs", async () => {
    const smsc = await smscUnderTest();
    const client = await boundClient(smsc, "bind_transmitter");
    const entityId = Buffer.from("1101234567890123456", "ascii");
    const templateId = Buffer.from("1107160000000012345", "ascii");
    const resp = await call(client, "submit_sm", {
      source_addr_ton: 5,
      source_addr_npi: 0,
      source_addr: "DAKIYA",
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: "919812345678",
      registered_delivery: 1,
      data_coding: 0,
      short_message: Buffer.from("Your OTP is 123456", "ascii"),
      harness_tlv_1400: entityId,
      harness_tlv_1401: templateId,
    });
    expect(resp.command_status).toBe(errors.ESME_ROK);
    expect(resp.message_id).toBe("smsc-1");

    expect(smsc.submits).toHaveLength(1);
    const submit = smsc.submits[0];
    expect(submit).toMatchObject({
      source_addr: "DAKIYA",
      source_addr_ton: 5,
      source_addr_npi: 0,
      destination_addr: "919812345678",
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      esm_class: 0,
      data_coding: 0,
      registered_delivery: 1,
      commandStatus: errors.ESME_ROK,
      messageId: "smsc-1",
      responded: true,
      udh: undefined,
    });
    expect(submit?.short_message.toString("ascii")).toBe("Your OTP is 123456");
    expect(submit?.tlvs.get(0x1400)).toEqual(entityId);
    expect(submit?.tlvs.get(0x1401)).toEqual(templateId);
    expect(submit?.tlvs.has(0x1402)).toBe(false);
    expect(smsc.errors).toEqual([]);
  });

  it("keeps the exact bytes of a UCS-2 part with a UDH", async () => {
    const smsc = await smscUnderTest();
    const client = await boundClient(smsc);
    const udh = Buffer.from([0x05, 0x00, 0x03, 0x7a, 0x03, 0x01]);
    const text = Buffer.from("नमस्ते 😀", "utf16le").swap16(); // UCS-2 big-endian
    const bytes = Buffer.concat([udh, text]);
    const resp = await call(client, "submit_sm", {
      destination_addr: "919812345678",
      esm_class: 0x40,
      data_coding: 0x08,
      short_message: bytes,
    });
    expect(resp.command_status).toBe(errors.ESME_ROK);

    const submit = smsc.submits[0];
    expect(submit?.esm_class).toBe(0x40);
    expect(submit?.data_coding).toBe(0x08);
    expect(submit?.short_message).toEqual(bytes);
    expect(submit?.udh).toEqual(udh);
    expect(submit?.payload).toEqual(text);
    // What the library itself makes of it: IEs without the UDHL byte, text decoded as UCS-2.
    const decoded = submit?.pdu.short_message as { udh?: Buffer[]; message: unknown } | undefined;
    expect(decoded?.udh).toEqual([udh.subarray(1)]);
    expect(decoded?.message).toBe("नमस्ते 😀");
  });

  it("answers scripted statuses without a message_id", async () => {
    const smsc = await smscUnderTest({
      answer: (_submit, index) => (index < 2 ? errors.ESME_RTHROTTLED : errors.ESME_ROK),
    });
    const client = await boundClient(smsc);
    const params = { destination_addr: "919812345678", data_coding: 0, short_message: Buffer.from("x") };
    const first = await call(client, "submit_sm", params);
    const second = await call(client, "submit_sm", params);
    const third = await call(client, "submit_sm", params);
    expect(first.command_status).toBe(errors.ESME_RTHROTTLED);
    expect(first.message_id).toBeUndefined();
    expect(second.command_status).toBe(errors.ESME_RTHROTTLED);
    expect(third.command_status).toBe(errors.ESME_ROK);
    expect(third.message_id).toBe("smsc-3");
    expect(smsc.submits.map((s) => [s.commandStatus, s.messageId])).toEqual([
      [errors.ESME_RTHROTTLED, undefined],
      [errors.ESME_RTHROTTLED, undefined],
      [errors.ESME_ROK, "smsc-3"],
    ]);
  });

  it("delays submit_sm_resp by responseDelayMs", async () => {
    const smsc = await smscUnderTest({ responseDelayMs: 80 });
    const client = await boundClient(smsc);
    const started = Date.now();
    const resp = await call(client, "submit_sm", { destination_addr: "1", short_message: Buffer.from("x") });
    expect(resp.command_status).toBe(errors.ESME_ROK);
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
  });

  it("sends a delivery receipt and records the client's deliver_sm_resp", async () => {
    const smsc = await smscUnderTest();
    const client = await boundClient(smsc);
    const received: PDU[] = [];
    client.on("deliver_sm", (pdu) => {
      received.push(pdu);
      client.send(pdu.response());
    });
    await call(client, "submit_sm", {
      source_addr_ton: 5,
      source_addr: "DAKIYA",
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: "919812345678",
      registered_delivery: 1,
      short_message: Buffer.from("x"),
    });

    const ack = await smsc.sendReceipt("smsc-1", { stat: "DELIVRD", withTlv: true });
    expect(ack).toMatchObject({ messageId: "smsc-1", commandStatus: errors.ESME_ROK });
    expect(smsc.receiptAcks).toEqual([ack]);

    const receipt = received[0];
    expect(receipt?.esm_class).toBe(0x04);
    expect(receipt?.source_addr).toBe("919812345678");
    expect(receipt?.destination_addr).toBe("DAKIYA");
    expect(receipt?.receipted_message_id).toBe("smsc-1");
    expect(receipt?.message_state).toBe(2);
    const text = (receipt?.short_message as { message: string } | undefined)?.message;
    expect(text).toBe(
      "id:smsc-1 sub:001 dlvrd:001 submit date:2611221200 done date:2611221201 stat:DELIVRD err:000 text:",
    );

    await smsc.sendReceipt("smsc-1", { stat: "UNDELIV", err: "006" });
    const plain = received[1];
    expect(plain?.receipted_message_id).toBeUndefined();
    expect((plain?.short_message as { message: string } | undefined)?.message).toContain(
      "stat:UNDELIV err:006",
    );
  });

  it("rejects sendReceipt when no receiver is bound", async () => {
    const smsc = await smscUnderTest();
    await boundClient(smsc, "bind_transmitter");
    await expect(smsc.sendReceipt("smsc-1", { stat: "DELIVRD" })).rejects.toThrow(/no open session/);
  });

  it("drops connections abruptly and keeps listening", async () => {
    const smsc = await smscUnderTest();
    const client = await boundClient(smsc);
    const closed = once(client, "close");
    await smsc.dropConnections();
    await closed;
    expect(smsc.sessions).toBe(0);

    await boundClient(smsc);
    expect(smsc.sessions).toBe(1);
    expect(smsc.connectionsAccepted).toBe(2);
  });
});
