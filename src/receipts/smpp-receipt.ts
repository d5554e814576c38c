import type { Receipt } from "../delivery/carrier.js";

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

/** DELIVRD is delivered; every other final state (UNDELIV, REJECTD, EXPIRED, DELETED, UNKNOWN) is not. */
export function toReceipt(carrier: string, carrierMessageId: string, text: ReceiptText): Receipt {
  if (text.stat === "DELIVRD") return { carrier, carrierMessageId, state: "delivered" };
  const hasError = /^\d+$/.test(text.err) && Number(text.err) !== 0;
  return {
    carrier,
    carrierMessageId,
    state: "undelivered",
    errorCode: hasError ? `smsc_${text.err}` : text.stat.toLowerCase(),
    errorMessage: `The SMSC reported ${text.stat}${hasError ? ` with error ${text.err}` : ""}.`,
  };
}
