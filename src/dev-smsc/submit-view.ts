/** What a received submit_sm says, decoded for a person: the text, the part, the DLT TLVs. */
import { fromGsm7Septets } from "../dlt/encoding.js";
import { peTmChainHash } from "../dlt/tm-chain.js";
import { ESM_CLASS_UDHI, type SubmitSm, TLV_MESSAGE_PAYLOAD } from "./pdu.js";

export interface DltTags {
  entityId: number;
  templateId: number;
  tm: number;
}

/** The part of a long message a UDH names (IEI 0x00, 8-bit reference, or 0x08, 16-bit). */
export interface ConcatenatedPart {
  reference: number;
  part: number;
  parts: number;
}

export type Encoding = "gsm7" | "ascii" | "latin1" | "ucs2" | "binary";

export interface SubmitView {
  destination: string;
  source: string;
  data_coding: number;
  encoding: Encoding;
  /** The decoded text; the octets in hex for a binary data_coding. */
  text: string;
  /** From the UDH; null for a message in one part. */
  udh: ConcatenatedPart | null;
  entity_id: string | null;
  template_id: string | null;
  tm: string | null;
  /** With a PE–TM chain given: whether `tm` is the chain hash of `entity_id` and it. */
  tm_matches_chain?: boolean;
  validity_period: string;
  priority_flag: number;
  registered_delivery: number;
}

/** short_message without its UDH (or message_payload when short_message is empty), and the UDH. */
export function splitUdh(submit: SubmitSm): { udh: Buffer | undefined; payload: Buffer } {
  const message =
    submit.shortMessage.length === 0
      ? (submit.tlvs.get(TLV_MESSAGE_PAYLOAD) ?? submit.shortMessage)
      : submit.shortMessage;
  if ((submit.esmClass & ESM_CLASS_UDHI) === 0 || message.length === 0)
    return { udh: undefined, payload: message };
  const end = Math.min(message.length, (message[0] as number) + 1);
  return { udh: message.subarray(0, end), payload: message.subarray(end) };
}

export function concatenatedPart(udh: Buffer | undefined): ConcatenatedPart | null {
  if (udh === undefined) return null;
  for (let offset = 1; offset + 2 <= udh.length; ) {
    const iei = udh[offset] as number;
    const length = udh[offset + 1] as number;
    const data = udh.subarray(offset + 2, offset + 2 + length);
    if (data.length < length) break;
    if (iei === 0x00 && length === 3) {
      return { reference: data[0] as number, parts: data[1] as number, part: data[2] as number };
    }
    if (iei === 0x08 && length === 4) {
      return { reference: data.readUInt16BE(0), parts: data[2] as number, part: data[3] as number };
    }
    offset += 2 + length;
  }
  return null;
}

/** The data_coding's alphabet (SMPP 3.4 §5.2.19); the message-class groups (0xF0–0xFF) by their bit 2. */
export function encodingOf(dataCoding: number): Encoding {
  if ((dataCoding & 0xf0) === 0xf0) return dataCoding & 0x04 ? "binary" : "gsm7";
  switch (dataCoding) {
    case 0x00:
      return "gsm7";
    case 0x01:
      return "ascii";
    case 0x03:
      return "latin1";
    case 0x08:
      return "ucs2";
    default:
      return "binary";
  }
}

/** GSM 03.38 septets one per octet (as Dakiya and most SMSCs send data_coding 0), or UCS-2 big-endian. */
export function decodeText(payload: Buffer, encoding: Encoding): string {
  switch (encoding) {
    case "gsm7":
      return fromGsm7Septets(payload);
    case "ascii":
    case "latin1":
      return payload.toString("latin1");
    case "ucs2": {
      const units = Buffer.from(payload.subarray(0, payload.length - (payload.length % 2)));
      const text = units.swap16().toString("utf16le");
      return payload.length % 2 === 0 ? text : `${text}\uFFFD`;
    }
    case "binary":
      return payload.toString("hex");
  }
}

/** A TLV octet string as text; a NUL at the end (some ESMEs send C strings) left out. */
function tlvText(value: Buffer | undefined): string | null {
  if (value === undefined) return null;
  const end = value.length > 0 && value[value.length - 1] === 0 ? value.length - 1 : value.length;
  return value.toString("latin1", 0, end);
}

export function viewSubmit(submit: SubmitSm, tags: DltTags, tmChain?: readonly string[]): SubmitView {
  const { udh, payload } = splitUdh(submit);
  const encoding = encodingOf(submit.dataCoding);
  const view: SubmitView = {
    destination: submit.destinationAddr,
    source: submit.sourceAddr,
    data_coding: submit.dataCoding,
    encoding,
    text: decodeText(payload, encoding),
    udh: concatenatedPart(udh),
    entity_id: tlvText(submit.tlvs.get(tags.entityId)),
    template_id: tlvText(submit.tlvs.get(tags.templateId)),
    tm: tlvText(submit.tlvs.get(tags.tm)),
    validity_period: submit.validityPeriod,
    priority_flag: submit.priorityFlag,
    registered_delivery: submit.registeredDelivery,
  };
  if (tmChain !== undefined) {
    view.tm_matches_chain = view.entity_id !== null && view.tm === peTmChainHash(view.entity_id, tmChain);
  }
  return view;
}
