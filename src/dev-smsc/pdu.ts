/**
 * The SMPP 3.4 PDUs the development SMSC reads and writes, from and to their bytes. Read here
 * rather than by the `smpp` package, whose decoder turns a short_message into text by its own
 * tables (lossy for GSM 03.38 septets, the UDH split off) and walks every field by name: the SMSC
 * shows exactly the octets it received, and the bench's SMSC answers thousands a second.
 */

export const HEADER_BYTES = 16;
/** Longer PDUs are refused: a submit_sm with a 64 KiB message_payload is the longest legitimate one. */
export const MAX_PDU_BYTES = 70_000;
export const RESPONSE_BIT = 0x80000000;

export const COMMAND = {
  bind_receiver: 0x00000001,
  bind_transmitter: 0x00000002,
  submit_sm: 0x00000004,
  deliver_sm: 0x00000005,
  unbind: 0x00000006,
  bind_transceiver: 0x00000009,
  enquire_link: 0x00000015,
  generic_nack: 0x80000000,
} as const;

export type BindCommand = "bind_receiver" | "bind_transmitter" | "bind_transceiver";

export const BIND_COMMANDS: ReadonlyMap<number, BindCommand> = new Map([
  [COMMAND.bind_receiver, "bind_receiver"],
  [COMMAND.bind_transmitter, "bind_transmitter"],
  [COMMAND.bind_transceiver, "bind_transceiver"],
]);

/** Optional parameters of a delivery receipt (SMPP 3.4 §5.3.2). */
export const TLV_RECEIPTED_MESSAGE_ID = 0x001e;
export const TLV_MESSAGE_STATE = 0x0427;
/** The text of a long message in one PDU, instead of short_message. */
export const TLV_MESSAGE_PAYLOAD = 0x0424;
export const ESM_CLASS_RECEIPT = 0x04;
export const ESM_CLASS_UDHI = 0x40;

export interface PduHeader {
  length: number;
  commandId: number;
  status: number;
  sequence: number;
}

export function readHeader(pdu: Buffer): PduHeader {
  return {
    length: pdu.readUInt32BE(0),
    commandId: pdu.readUInt32BE(4),
    status: pdu.readUInt32BE(8),
    sequence: pdu.readUInt32BE(12),
  };
}

/** A body that does not hold the fields its command has. */
export class MalformedPdu extends Error {}

class BodyReader {
  offset = HEADER_BYTES;
  constructor(private readonly pdu: Buffer) {}

  int8(field: string): number {
    if (this.offset >= this.pdu.length) throw new MalformedPdu(`the PDU ends before ${field}`);
    return this.pdu[this.offset++] as number;
  }

  cstring(field: string): string {
    const end = this.pdu.indexOf(0, this.offset);
    if (end < 0) throw new MalformedPdu(`${field} has no terminating NUL`);
    const value = this.pdu.toString("latin1", this.offset, end);
    this.offset = end + 1;
    return value;
  }

  bytes(field: string, length: number): Buffer {
    if (this.offset + length > this.pdu.length)
      throw new MalformedPdu(`${field} runs past the end of the PDU`);
    const value = this.pdu.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  /** The optional parameters after the mandatory fields, by tag (a repeated tag keeps the last). */
  tlvs(): Map<number, Buffer> {
    const tlvs = new Map<number, Buffer>();
    while (this.offset < this.pdu.length) {
      if (this.pdu.length - this.offset < 4) throw new MalformedPdu("a TLV header is cut short");
      const tag = this.pdu.readUInt16BE(this.offset);
      const length = this.pdu.readUInt16BE(this.offset + 2);
      this.offset += 4;
      tlvs.set(tag, this.bytes(`TLV 0x${tag.toString(16).padStart(4, "0")}`, length));
    }
    return tlvs;
  }
}

export interface BindRequest {
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
}

export function parseBind(pdu: Buffer): BindRequest {
  const reader = new BodyReader(pdu);
  return {
    systemId: reader.cstring("system_id"),
    password: reader.cstring("password"),
    systemType: reader.cstring("system_type"),
    interfaceVersion: reader.int8("interface_version"),
  };
}

/** A submit_sm as received; `shortMessage` and the TLV values are views of the PDU's bytes. */
export interface SubmitSm {
  sequence: number;
  serviceType: string;
  sourceTon: number;
  sourceNpi: number;
  sourceAddr: string;
  destTon: number;
  destNpi: number;
  destinationAddr: string;
  esmClass: number;
  protocolId: number;
  priorityFlag: number;
  scheduleDeliveryTime: string;
  validityPeriod: string;
  registeredDelivery: number;
  dataCoding: number;
  /** The sm_length octets, UDH included. */
  shortMessage: Buffer;
  tlvs: Map<number, Buffer>;
}

/** Parses a submit_sm (SMPP 3.4 §4.4.1); throws MalformedPdu on a body that does not hold one. */
export function parseSubmitSm(pdu: Buffer): SubmitSm {
  const reader = new BodyReader(pdu);
  const submit = {
    sequence: pdu.readUInt32BE(12),
    serviceType: reader.cstring("service_type"),
    sourceTon: reader.int8("source_addr_ton"),
    sourceNpi: reader.int8("source_addr_npi"),
    sourceAddr: reader.cstring("source_addr"),
    destTon: reader.int8("dest_addr_ton"),
    destNpi: reader.int8("dest_addr_npi"),
    destinationAddr: reader.cstring("destination_addr"),
    esmClass: reader.int8("esm_class"),
    protocolId: reader.int8("protocol_id"),
    priorityFlag: reader.int8("priority_flag"),
    scheduleDeliveryTime: reader.cstring("schedule_delivery_time"),
    validityPeriod: reader.cstring("validity_period"),
    registeredDelivery: reader.int8("registered_delivery"),
  };
  reader.int8("replace_if_present_flag");
  const dataCoding = reader.int8("data_coding");
  reader.int8("sm_default_msg_id");
  const shortMessage = reader.bytes("short_message", reader.int8("sm_length"));
  return { ...submit, dataCoding, shortMessage, tlvs: reader.tlvs() };
}

/** A whole PDU: the header, then the body's parts. */
export function encodePdu(
  commandId: number,
  status: number,
  sequence: number,
  body: readonly Buffer[] = [],
): Buffer {
  let length = HEADER_BYTES;
  for (const part of body) length += part.length;
  const pdu = Buffer.allocUnsafe(length);
  pdu.writeUInt32BE(length, 0);
  pdu.writeUInt32BE(commandId, 4);
  pdu.writeUInt32BE(status, 8);
  pdu.writeUInt32BE(sequence, 12);
  let offset = HEADER_BYTES;
  for (const part of body) offset += part.copy(pdu, offset);
  return pdu;
}

/** A C-Octet String: the text's bytes (one a character) and a NUL. */
export function cString(value: string): Buffer {
  const bytes = Buffer.alloc(value.length + 1);
  bytes.write(value, "latin1");
  return bytes;
}

export function tlv(tag: number, value: Buffer): Buffer {
  const bytes = Buffer.allocUnsafe(4 + value.length);
  bytes.writeUInt16BE(tag, 0);
  bytes.writeUInt16BE(value.length, 2);
  value.copy(bytes, 4);
  return bytes;
}

export interface ReceiptFields {
  /** The handset the receipt is about (the submit's destination) and the header it went under. */
  handset: { addr: string; ton: number; npi: number };
  sender: { addr: string; ton: number; npi: number };
  text: string;
  messageId: string;
  messageState: number;
}

/** A delivery receipt: deliver_sm with esm_class 0x04, its text in data_coding 0, and its two TLVs. */
export function encodeReceipt(receipt: ReceiptFields, sequence: number): Buffer {
  const text = Buffer.from(receipt.text, "latin1");
  // esm_class, protocol_id, priority_flag, then empty schedule_delivery_time and validity_period,
  // registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id, sm_length.
  const flags = Buffer.from([ESM_CLASS_RECEIPT, 0, 0, 0, 0, 0, 0, 0, 0, text.length]);
  return encodePdu(COMMAND.deliver_sm, 0, sequence, [
    cString(""),
    Buffer.from([receipt.handset.ton, receipt.handset.npi]),
    cString(receipt.handset.addr),
    Buffer.from([receipt.sender.ton, receipt.sender.npi]),
    cString(receipt.sender.addr),
    flags,
    text,
    tlv(TLV_RECEIPTED_MESSAGE_ID, cString(receipt.messageId)),
    tlv(TLV_MESSAGE_STATE, Buffer.from([receipt.messageState])),
  ]);
}
