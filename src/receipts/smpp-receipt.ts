import type { Receipt } from "../delivery/carrier.js";
import {
  DEFAULT_REJECTIONS,
  REJECTION_MEANINGS,
  type RejectionTable,
} from "../delivery/carriers/dlt-rejections.js";

/** A delivery receipt as SMSCs write it in `deliver_sm` (SMPP 3.4 appendix B). */
export interface ReceiptText {
  id: string;
  stat: string;
  err: string;
}

const FIELD = /\b(id|stat|err):(\S*)/gi;

export function parseReceiptText(text: string): ReceiptText | undefined {
  const fields = new Map<string, string>();
  for (const [, name = "", value = ""] of text.matchAll(FIELD)) {
    const key = name.toLowerCase();
    if (!fields.has(key)) fields.set(key, value);
  }
  const id = fields.get("id");
  const stat = fields.get("stat");
  if (!id || !stat) return undefined;
  return { id, stat: stat.toUpperCase(), err: fields.get("err") ?? "000" };
}

/**
 * DELIVRD is delivered; every other final state (UNDELIV, REJECTD, EXPIRED, DELETED, UNKNOWN) is
 * not. An `err:` the route's table names is the operator's rejection (docs/dlt-compliance.md);
 * any other stays a non-delivery, `smsc_<err>`.
 */
export function toReceipt(
  carrier: string,
  carrierMessageId: string,
  text: ReceiptText,
  rejections: RejectionTable = DEFAULT_REJECTIONS,
): Receipt {
  if (text.stat === "DELIVRD") return { carrier, carrierMessageId, state: "delivered" };
  const hasError = /^\d+$/.test(text.err) && Number(text.err) !== 0;
  const reported = `The SMSC reported ${text.stat}${hasError ? ` with error ${text.err}` : ""}.`;
  const carrierError = `receipt err:${text.err} stat:${text.stat}`.slice(0, 200);
  const rejection = hasError ? rejections.receipt(text.err) : undefined;
  if (rejection) {
    return {
      carrier,
      carrierMessageId,
      state: "rejected",
      errorCode: rejection,
      errorMessage: `${REJECTION_MEANINGS[rejection]} ${reported}`,
      carrierError,
    };
  }
  return {
    carrier,
    carrierMessageId,
    state: "undelivered",
    errorCode: hasError ? `smsc_${text.err}` : text.stat.toLowerCase(),
    errorMessage: reported,
    carrierError,
  };
}
