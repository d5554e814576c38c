import type { OutgoingPdu } from "smpp";

/** The fields of a `submit_sm` that Dakiya sets; the others are sent empty or 0. */
export interface SubmitSmFields {
  sourceAddr: string;
  sourceTon: number;
  sourceNpi: number;
  destinationAddr: string;
  destTon: number;
  destNpi: number;
  esmClass: number;
  /** 1 puts the message ahead in the SMSC's own queue (OTPs), 0 otherwise. */
  priorityFlag: number;
  /** SMPP 3.4 time format (relative: `YYMMDDhhmmss000R`, see `relativeValidity`); empty: the SMSC's default. */
  validityPeriod: string;
  registeredDelivery: number;
  dataCoding: number;
  /** The encoded text, its user data header first for a part of a long message. */
  shortMessage: Buffer;
  /** Optional parameters in order, by tag. */
  tlvs: ReadonlyMap<number, Buffer>;
}

const SUBMIT_SM = 0x00000004;
const HEADER_BYTES = 16;
const SEQUENCE_OFFSET = 12;
const MAX_SHORT_MESSAGE_BYTES = 255;
// The body's one-byte fields: service_type and schedule_delivery_time (empty C strings), the four
// TONs and NPIs, esm_class, protocol_id, priority_flag, registered_delivery,
// replace_if_present_flag, data_coding, sm_default_msg_id and sm_length.
const FIXED_BODY_BYTES = 14;

/**
 * A `submit_sm` encoded at once, in the bytes the `smpp` library writes for the same fields.
 * The library's generic encoder walks every field of the PDU by name through its filters, about
 * a tenth of the worker's CPU while a queue drains; this writes the one layout Dakiya sends.
 */
export function encodeSubmitSm(fields: SubmitSmFields, sequenceNumber = 0): Buffer {
  if (fields.shortMessage.length > MAX_SHORT_MESSAGE_BYTES)
    throw new RangeError(`a short_message holds at most ${MAX_SHORT_MESSAGE_BYTES} bytes`);
  let length =
    HEADER_BYTES +
    FIXED_BODY_BYTES +
    cStringBytes(fields.sourceAddr) +
    cStringBytes(fields.destinationAddr) +
    cStringBytes(fields.validityPeriod) +
    fields.shortMessage.length;
  for (const value of fields.tlvs.values()) length += 4 + value.length;

  // From Node's shared pool, zeroed: a buffer of its own (`Buffer.alloc`) cost as much as the rest.
  const buffer = Buffer.allocUnsafe(length).fill(0);
  buffer.writeUInt32BE(length, 0);
  buffer.writeUInt32BE(SUBMIT_SM, 4);
  buffer.writeUInt32BE(sequenceNumber, SEQUENCE_OFFSET);
  let offset = HEADER_BYTES + 1; // service_type
  offset = buffer.writeUInt8(fields.sourceTon, offset);
  offset = buffer.writeUInt8(fields.sourceNpi, offset);
  offset = writeCString(buffer, fields.sourceAddr, offset);
  offset = buffer.writeUInt8(fields.destTon, offset);
  offset = buffer.writeUInt8(fields.destNpi, offset);
  offset = writeCString(buffer, fields.destinationAddr, offset);
  offset = buffer.writeUInt8(fields.esmClass, offset);
  offset += 1; // protocol_id
  offset = buffer.writeUInt8(fields.priorityFlag, offset);
  offset += 1; // schedule_delivery_time
  offset = writeCString(buffer, fields.validityPeriod, offset);
  offset = buffer.writeUInt8(fields.registeredDelivery, offset);
  offset += 1; // replace_if_present_flag
  offset = buffer.writeUInt8(fields.dataCoding, offset);
  offset += 1; // sm_default_msg_id
  offset = buffer.writeUInt8(fields.shortMessage.length, offset);
  offset += fields.shortMessage.copy(buffer, offset);
  for (const [tag, value] of fields.tlvs) {
    offset = buffer.writeUInt16BE(tag, offset);
    offset = buffer.writeUInt16BE(value.length, offset);
    offset += value.copy(buffer, offset);
  }
  return buffer;
}

/**
 * An encoded `submit_sm` for `Session.send`, which gives a request its sequence number and then
 * asks for its bytes; the number is written into the encoded header then.
 */
export function submitSmPdu(fields: SubmitSmFields): OutgoingPdu {
  const encoded = encodeSubmitSm(fields);
  const pdu: OutgoingPdu = {
    sequence_number: 0,
    isResponse: () => false,
    toBuffer: () => {
      encoded.writeUInt32BE(pdu.sequence_number, SEQUENCE_OFFSET);
      return encoded;
    },
  };
  return pdu;
}

const SECONDS_PER_DAY = 86_400;
/** The relative format's days field has two digits; a longer validity is sent as this much. */
const MAX_RELATIVE_DAYS = 99;

/**
 * `seconds` from now as an SMPP 3.4 relative time, `YYMMDDhhmmss000R`, with days, hours, minutes
 * and seconds in their own fields (600 → `000000001000000R`). Years and months are left at 00:
 * SMSCs disagree on how long a relative month is, so a validity past 99 days is sent as 99 days,
 * 23:59:59.
 */
export function relativeValidity(seconds: number): string {
  const capped = Math.min(Math.max(0, Math.floor(seconds)), (MAX_RELATIVE_DAYS + 1) * SECONDS_PER_DAY - 1);
  const days = Math.floor(capped / SECONDS_PER_DAY);
  const hours = Math.floor((capped % SECONDS_PER_DAY) / 3_600);
  const minutes = Math.floor((capped % 3_600) / 60);
  return `0000${two(days)}${two(hours)}${two(minutes)}${two(capped % 60)}000R`;
}

function two(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

// The library writes C strings as "ascii", which Node encodes as Latin-1: a byte a character.
function cStringBytes(value: string): number {
  return value.length + 1;
}

function writeCString(buffer: Buffer, value: string, offset: number): number {
  const end = offset + buffer.write(value, offset, "latin1");
  return end + 1;
}
