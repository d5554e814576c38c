import { connect } from "node:net";
import fc from "fast-check";
import smpp, { type PDU } from "smpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeSubmitSm, type SubmitSmFields } from "../../src/delivery/carriers/submit-sm.js";
import { MalformedPdu, parseSubmitSm } from "../../src/dev-smsc/pdu.js";
import { type DevSmsc, startDevSmsc } from "../../src/dev-smsc/server.js";
import { concatenatedPart, decodeText, encodingOf, splitUdh } from "../../src/dev-smsc/submit-view.js";

/* The development SMSC's reading of PDUs from their bytes: what Dakiya writes reads back whole, and nothing read breaks it. */

const latin1 = (max: number) =>
  fc.string({ unit: fc.integer({ min: 1, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: max });
const byte = fc.integer({ min: 0, max: 0xff });

const submitFields: fc.Arbitrary<SubmitSmFields> = fc.record({
  sourceAddr: latin1(20),
  sourceTon: byte,
  sourceNpi: byte,
  destinationAddr: latin1(20),
  destTon: byte,
  destNpi: byte,
  esmClass: byte,
  priorityFlag: byte,
  validityPeriod: latin1(16),
  registeredDelivery: byte,
  dataCoding: byte,
  shortMessage: fc.uint8Array({ maxLength: 255 }).map((bytes) => Buffer.from(bytes)),
  tlvs: fc
    .uniqueArray(fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.uint8Array({ maxLength: 70 })), {
      selector: ([tag]) => tag,
      maxLength: 5,
    })
    .map((entries) => new Map(entries.map(([tag, value]) => [tag, Buffer.from(value)]))),
});

describe("parseSubmitSm", () => {
  it("reads back every field of a submit_sm as Dakiya's carrier encodes it", () => {
    fc.assert(
      fc.property(submitFields, fc.integer({ min: 0, max: 0x7fffffff }), (fields, sequence) => {
        const submit = parseSubmitSm(encodeSubmitSm(fields, sequence));
        expect(submit).toMatchObject({
          sequence,
          serviceType: "",
          sourceAddr: fields.sourceAddr,
          sourceTon: fields.sourceTon,
          sourceNpi: fields.sourceNpi,
          destinationAddr: fields.destinationAddr,
          destTon: fields.destTon,
          destNpi: fields.destNpi,
          esmClass: fields.esmClass,
          priorityFlag: fields.priorityFlag,
          scheduleDeliveryTime: "",
          validityPeriod: fields.validityPeriod,
          registeredDelivery: fields.registeredDelivery,
          dataCoding: fields.dataCoding,
        });
        expect(submit.shortMessage.equals(fields.shortMessage)).toBe(true);
        expect([...submit.tlvs].map(([tag, value]) => [tag, [...value]])).toEqual(
          [...fields.tlvs].map(([tag, value]) => [tag, [...value]]),
        );
      }),
    );
  });

  it("throws only MalformedPdu on bytes that hold no submit_sm, and never reads past the PDU", () => {
    const header = Buffer.from([0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1]);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (body) => {
        const pdu = Buffer.concat([header, body]);
        try {
          const submit = parseSubmitSm(pdu);
          expect(submit.shortMessage.length).toBeLessThanOrEqual(body.length);
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedPdu);
        }
      }),
    );
    // A cut short PDU: each field names itself.
    const whole = encodeSubmitSm(fieldsOf({ tlvs: new Map([[0x1400, Buffer.from("1101")]]) }));
    expect(() => parseSubmitSm(whole.subarray(0, whole.length - 2))).toThrow(
      "TLV 0x1400 runs past the end of the PDU",
    );
    expect(() => parseSubmitSm(whole.subarray(0, 21))).toThrow("source_addr has no terminating NUL");
  });
});

describe("the text of a submit_sm", () => {
  it("splits off the UDH only with esm_class 0x40, and reads the part of an 8-bit or 16-bit reference", () => {
    const udh8 = Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x03, 0x02]);
    const withUdh = parseSubmitSm(
      encodeSubmitSm(fieldsOf({ esmClass: 0x40, shortMessage: Buffer.concat([udh8, Buffer.from("abc")]) })),
    );
    const { udh, payload } = splitUdh(withUdh);
    expect(payload.toString()).toBe("abc");
    expect(concatenatedPart(udh)).toEqual({ reference: 0x2a, part: 2, parts: 3 });
    // Another IE first, then the 16-bit reference.
    const udh16 = Buffer.from([0x0a, 0x24, 0x01, 0x00, 0x08, 0x04, 0x12, 0x34, 0x02, 0x01]);
    expect(concatenatedPart(udh16)).toEqual({ reference: 0x1234, part: 1, parts: 2 });
    // A UDH that claims more than it holds names no part.
    expect(concatenatedPart(Buffer.from([0x05, 0x00, 0x03, 0x2a]))).toBeNull();
    const without = parseSubmitSm(
      encodeSubmitSm(fieldsOf({ shortMessage: Buffer.concat([udh8, Buffer.from("abc")]) })),
    );
    expect(splitUdh(without).udh).toBeUndefined();
    expect(splitUdh(without).payload.length).toBe(9);
  });

  it("reads message_payload when short_message is empty", () => {
    const submit = parseSubmitSm(
      encodeSubmitSm(
        fieldsOf({ shortMessage: Buffer.alloc(0), tlvs: new Map([[0x0424, Buffer.from("long text")]]) }),
      ),
    );
    expect(splitUdh(submit).payload.toString()).toBe("long text");
  });

  it("decodes by data_coding: GSM 03.38 septets, ASCII, Latin-1, UCS-2 big-endian, else hex", () => {
    expect(decodeText(Buffer.from([0x00, 0x1b, 0x65, 0x41]), encodingOf(0))).toBe("@€A");
    expect(decodeText(Buffer.from("caf\u00e9", "latin1"), encodingOf(3))).toBe("café");
    expect(decodeText(Buffer.from("hi"), encodingOf(1))).toBe("hi");
    expect(decodeText(Buffer.from("नमस्ते 😀", "utf16le").swap16(), encodingOf(8))).toBe("नमस्ते 😀");
    expect(decodeText(Buffer.from([0x00, 0x41, 0x00]), encodingOf(8))).toBe("A\uFFFD");
    expect(decodeText(Buffer.from([0xde, 0xad]), encodingOf(4))).toBe("dead");
    expect(encodingOf(0xf0)).toBe("gsm7");
    expect(encodingOf(0xf4)).toBe("binary");
  });
});

describe("the development SMSC given garbage", () => {
  let smsc: DevSmsc;
  beforeAll(async () => {
    smsc = await startDevSmsc({ systemId: "dakiya", password: "secret" });
  });
  afterAll(async () => {
    await smsc.stop();
  });

  it("answers or closes whatever bytes arrive, and still binds the next session", {
    timeout: 60_000,
  }, async () => {
    // Valid headers with random bodies for the commands it knows, and random bytes.
    const command = fc.constantFrom(0x1, 0x2, 0x4, 0x6, 0x9, 0x15, 0x80000005, 0x103);
    const pdu = fc.tuple(command, fc.uint8Array({ maxLength: 120 })).map(([id, body]) => {
      const header = Buffer.alloc(16);
      header.writeUInt32BE(16 + body.length, 0);
      header.writeUInt32BE(id, 4);
      header.writeUInt32BE(1, 12);
      return Buffer.concat([header, body]);
    });
    const stream = fc.array(
      fc.oneof(
        pdu,
        fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    );
    await fc.assert(
      fc.asyncProperty(stream, async (chunks) => {
        const socket = connect(smsc.port, "127.0.0.1");
        socket.on("error", () => {});
        socket.on("data", () => {});
        await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
        for (const chunk of chunks) socket.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 10));
        socket.destroy();
      }),
      { numRuns: 60 },
    );
    const session = smpp.connect({ host: "127.0.0.1", port: smsc.port });
    session.on("error", () => {});
    const bound = await new Promise<PDU>((resolve) =>
      session.once("connect", () =>
        session.bind_transceiver({ system_id: "dakiya", password: "secret" }, resolve),
      ),
    );
    expect(bound.command_status).toBe(0);
    session.destroy();
  });
});

function fieldsOf(overrides: Partial<SubmitSmFields> = {}): SubmitSmFields {
  return {
    sourceAddr: "DAKIYA",
    sourceTon: 5,
    sourceNpi: 0,
    destinationAddr: "919876543210",
    destTon: 1,
    destNpi: 1,
    esmClass: 0,
    priorityFlag: 0,
    validityPeriod: "",
    registeredDelivery: 1,
    dataCoding: 0,
    shortMessage: Buffer.from("hello"),
    tlvs: new Map(),
    ...overrides,
  };
}
