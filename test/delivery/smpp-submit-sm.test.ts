import fc from "fast-check";
import smpp from "smpp";
import { describe, expect, it } from "vitest";
import {
  encodeSubmitSm,
  relativeValidity,
  type SubmitSmFields,
  submitSmPdu,
} from "../../src/delivery/carriers/submit-sm.js";

// The reference: the `smpp` library's own encoder, given the same fields by name.
function tlvName(tag: number): string {
  const name = `reference_tlv_${tag.toString(16)}`;
  smpp.addTLV(name, { id: tag, type: smpp.types.tlv.buffer });
  return name;
}

function libraryBytes(fields: SubmitSmFields, sequenceNumber: number): Buffer {
  const params: Record<string, unknown> = {
    sequence_number: sequenceNumber,
    source_addr: fields.sourceAddr,
    source_addr_ton: fields.sourceTon,
    source_addr_npi: fields.sourceNpi,
    destination_addr: fields.destinationAddr,
    dest_addr_ton: fields.destTon,
    dest_addr_npi: fields.destNpi,
    esm_class: fields.esmClass,
    priority_flag: fields.priorityFlag,
    validity_period: fields.validityPeriod,
    registered_delivery: fields.registeredDelivery,
    data_coding: fields.dataCoding,
    short_message: fields.shortMessage,
  };
  for (const [tag, value] of fields.tlvs) params[tlvName(tag)] = value;
  return new smpp.PDU("submit_sm", params).toBuffer();
}

const byte = fc.integer({ min: 0, max: 255 });
// Addresses as Dakiya sends them (digits, alphanumeric sender ids) and any Latin-1 besides.
const address = fc.oneof(
  fc.stringMatching(/^[0-9]{0,20}$/),
  fc.stringMatching(/^[A-Z0-9]{0,11}$/),
  fc.string({ unit: fc.integer({ min: 1, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
);
const fields: fc.Arbitrary<SubmitSmFields> = fc.record({
  sourceAddr: address,
  sourceTon: byte,
  sourceNpi: byte,
  destinationAddr: address,
  destTon: byte,
  destNpi: byte,
  esmClass: byte,
  priorityFlag: byte,
  // Empty (the SMSC's default) or a relative time, as Dakiya sends them.
  validityPeriod: fc.oneof(fc.constant(""), fc.integer({ min: 0, max: 200 * 86_400 }).map(relativeValidity)),
  registeredDelivery: byte,
  dataCoding: byte,
  shortMessage: fc.uint8Array({ maxLength: 160 }).map((bytes) => Buffer.from(bytes)),
  tlvs: fc
    .uniqueArray(
      fc.tuple(
        fc.integer({ min: 0x1400, max: 0x3fff }),
        fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
      ),
      { selector: ([tag]) => tag, maxLength: 3 },
    )
    .map((entries) => new Map(entries)),
});

describe("the submit_sm encoder", () => {
  it("writes the bytes the smpp library writes for the same fields", () => {
    fc.assert(
      fc.property(fields, fc.integer({ min: 1, max: 0x7fffffff }), (submit, sequenceNumber) => {
        expect(encodeSubmitSm(submit, sequenceNumber)).toEqual(libraryBytes(submit, sequenceNumber));
      }),
      { numRuns: 500 },
    );
  });

  it("takes its sequence number from the session that sends it, and decodes as sent", () => {
    const submit: SubmitSmFields = {
      sourceAddr: "DAKIYA",
      sourceTon: 5,
      sourceNpi: 0,
      destinationAddr: "919876543210",
      destTon: 1,
      destNpi: 1,
      esmClass: 0x40,
      priorityFlag: 1,
      validityPeriod: "000000001000000R",
      registeredDelivery: 1,
      dataCoding: 8,
      shortMessage: Buffer.from([0x05, 0x00, 0x03, 7, 2, 1, 0x09, 0x28]),
      tlvs: new Map([
        [0x1400, Buffer.from("1101234567890123456")],
        [0x1401, Buffer.from("1107161234567890123")],
      ]),
    };
    const pdu = submitSmPdu(submit);
    // What `Session.send` does with a request: number it, then write its bytes.
    pdu.sequence_number = 42;
    const decoded = smpp.PDU.fromBuffer(pdu.toBuffer());
    expect(decoded).not.toBe(false);
    if (!decoded) return;
    expect(decoded.command).toBe("submit_sm");
    expect(decoded.sequence_number).toBe(42);
    expect(decoded.source_addr).toBe("DAKIYA");
    expect(decoded.destination_addr).toBe("919876543210");
    expect(decoded.esm_class).toBe(0x40);
    expect(decoded.data_coding).toBe(8);
    expect(decoded.priority_flag).toBe(1);
    expect(pdu.toBuffer()).toEqual(libraryBytes(submit, 42));
  });

  it("refuses a short_message longer than its one-byte length can say", () => {
    const submit = fc.sample(fields, 1)[0] as SubmitSmFields;
    expect(() => encodeSubmitSm({ ...submit, shortMessage: Buffer.alloc(256) })).toThrow(RangeError);
  });

  it("writes validity_period, priority_flag and what follows them where the library reads them", () => {
    const submit = { ...(fc.sample(fields, 1)[0] as SubmitSmFields), validityPeriod: "000001020304000R" };
    const decoded = smpp.PDU.fromBuffer(
      encodeSubmitSm({ ...submit, priorityFlag: 1, registeredDelivery: 1 }, 7),
    );
    expect(decoded).not.toBe(false);
    if (!decoded) return;
    expect(decoded.priority_flag).toBe(1);
    expect(decoded.registered_delivery).toBe(1);
    expect(decoded.data_coding).toBe(submit.dataCoding);
  });
});

describe("the relative validity_period", () => {
  it.each([
    [1, "000000000001000R"],
    [59, "000000000059000R"],
    [600, "000000001000000R"],
    [3_661, "000000010101000R"],
    [86_399, "000000235959000R"],
    [86_400, "000001000000000R"],
    [259_200, "000003000000000R"],
    [90_061.9, "000001010101000R"],
    [100 * 86_400, "000099235959000R"],
  ])("writes %s seconds as %s", (seconds, text) => {
    expect(relativeValidity(seconds)).toBe(text);
  });

  it("reads back as the seconds written, for any validity up to 99 days", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 * 86_400 - 1 }), (seconds) => {
        const text = relativeValidity(seconds);
        expect(text).toMatch(/^0000\d{8}000R$/);
        const [dd, hh, mm, ss] = [4, 6, 8, 10].map((at) => Number(text.slice(at, at + 2)));
        expect(hh).toBeLessThan(24);
        expect(mm).toBeLessThan(60);
        expect(ss).toBeLessThan(60);
        expect((((dd as number) * 24 + (hh as number)) * 60 + (mm as number)) * 60 + (ss as number)).toBe(
          seconds,
        );
      }),
      { numRuns: 1_000 },
    );
  });
});
