/*
 * Operator rejections by name (docs/dlt-compliance.md#operator-rejections). An SMSC reports a DLT
 * scrub failure as a `submit_sm_resp` status or as the `err:` of a delivery receipt; the codes
 * are the operators' own, and public tables disagree on some. Dakiya names the ones it can back
 * up with sources (the default table below) and lets each route extend it (`error_map`).
 */

/** The names an operator's rejection ends a message with: refunded, `failed`. */
export const REJECTION_CODES = [
  "dlt_header_not_registered",
  "dlt_template_not_registered",
  "dlt_template_mismatch",
  "dlt_pe_tm_hash_invalid",
  "dlt_cta_not_whitelisted",
  "dlt_consent_missing",
  "dnd_blocked",
  "carrier_rejected",
] as const;
export type RejectionCode = (typeof REJECTION_CODES)[number];

const REJECTION_CODE_SET: ReadonlySet<string> = new Set(REJECTION_CODES);

export function isRejectionCode(value: unknown): value is RejectionCode {
  return typeof value === "string" && REJECTION_CODE_SET.has(value);
}

/** What each name tells the sender, as the message's `error_message` starts. */
export const REJECTION_MEANINGS: Record<RejectionCode, string> = {
  dlt_header_not_registered:
    "The operator rejected the message: its header is not registered, active or linked to the entity on DLT.",
  dlt_template_not_registered:
    "The operator rejected the message: its template is not registered or not active on DLT.",
  dlt_template_mismatch:
    "The operator rejected the message: its text does not match the registered DLT template.",
  dlt_pe_tm_hash_invalid:
    "The operator rejected the message: the PE–TM chain is missing, not registered or not bound on DLT.",
  dlt_cta_not_whitelisted:
    "The operator rejected the message: a link or callback number in it is not whitelisted on DLT.",
  dlt_consent_missing: "The operator rejected the message: the recipient's consent is not recorded on DLT.",
  dnd_blocked: "The operator rejected the message: the recipient's DND preferences block it.",
  carrier_rejected: "The operator rejected the message.",
};

/**
 * Receipt `err:` codes of the DLT scrubbing tables Indian aggregators publish (sources, and where
 * they disagree, in docs/dlt-compliance.md). Keys are written without leading zeros.
 */
const DEFAULT_RECEIPT_CODES: Readonly<Record<string, RejectionCode>> = {
  // Entity and telemarketer states Dakiya's customer cannot name more precisely.
  "600": "carrier_rejected",
  "601": "carrier_rejected",
  "602": "carrier_rejected",
  "603": "carrier_rejected",
  "604": "carrier_rejected",
  "610": "carrier_rejected",
  "611": "carrier_rejected",
  "612": "carrier_rejected",
  // The PE and the telemarketer not bound to each other, and the PE–TM chain hash.
  "605": "dlt_pe_tm_hash_invalid",
  "613": "dlt_pe_tm_hash_invalid",
  "614": "dlt_pe_tm_hash_invalid",
  "615": "dlt_pe_tm_hash_invalid",
  "616": "dlt_pe_tm_hash_invalid",
  "617": "dlt_pe_tm_hash_invalid",
  "618": "dlt_pe_tm_hash_invalid",
  "812": "dlt_pe_tm_hash_invalid",
  "5601": "dlt_pe_tm_hash_invalid",
  // The header.
  "620": "dlt_header_not_registered",
  "621": "dlt_header_not_registered",
  "622": "dlt_header_not_registered",
  "623": "dlt_header_not_registered",
  "624": "dlt_header_not_registered",
  "625": "dlt_header_not_registered",
  "634": "dlt_header_not_registered",
  // The template.
  "630": "dlt_template_not_registered",
  "631": "dlt_template_not_registered",
  "632": "dlt_template_not_registered",
  "636": "dlt_template_not_registered",
  "637": "dlt_template_not_registered",
  "633": "dlt_template_mismatch",
  "635": "dlt_template_mismatch",
  // Preferences and consent.
  "650": "dnd_blocked",
  "660": "dlt_consent_missing",
};

/**
 * `submit_sm_resp` statuses: none in the default. No SMPP 3.4 status is DLT's, and no public
 * source Dakiya found lists the vendor statuses (0x00000400–0x000004FF) an Indian SMSC answers
 * for a scrub failure; each route names its SMSC's in `error_map`.
 */
const DEFAULT_STATUS_CODES: ReadonlyMap<number, RejectionCode> = new Map();

/** An `error_map` key: `0x` and 8 hex digits for a `submit_sm_resp` status, 1 to 6 digits for a receipt's `err:`. */
export type ErrorMapKey = { kind: "status"; status: number } | { kind: "receipt"; err: string };

const STATUS_KEY = /^0x[0-9a-fA-F]{8}$/;
const RECEIPT_KEY = /^[0-9]{1,6}$/;

export function parseErrorMapKey(key: string): ErrorMapKey | undefined {
  if (STATUS_KEY.test(key)) return { kind: "status", status: Number.parseInt(key.slice(2), 16) };
  if (RECEIPT_KEY.test(key)) return { kind: "receipt", err: receiptErr(key) };
  return undefined;
}

/** A receipt's `err:` as the table keys it: `0623` and `623` alike. */
function receiptErr(err: string): string {
  return err.replace(/^0+(?=\d)/, "");
}

/** One route's lookup: the default table with the route's `error_map` over it, built once at start. */
export class RejectionTable {
  readonly #statuses: ReadonlyMap<number, RejectionCode>;
  readonly #receipts: ReadonlyMap<string, RejectionCode>;

  constructor(errorMap: ReadonlyMap<string, RejectionCode> = new Map()) {
    const statuses = new Map(DEFAULT_STATUS_CODES);
    const receipts = new Map(Object.entries(DEFAULT_RECEIPT_CODES));
    for (const [key, code] of errorMap) {
      const parsed = parseErrorMapKey(key);
      if (parsed?.kind === "status") statuses.set(parsed.status, code);
      else if (parsed?.kind === "receipt") receipts.set(parsed.err, code);
    }
    this.#statuses = statuses;
    this.#receipts = receipts;
  }

  /** The name of a `submit_sm_resp` status, if the table has it. */
  status(status: number): RejectionCode | undefined {
    return this.#statuses.get(status);
  }

  /** The name of a receipt's `err:` (digits), if the table has it. */
  receipt(err: string): RejectionCode | undefined {
    return /^\d+$/.test(err) ? this.#receipts.get(receiptErr(err)) : undefined;
  }
}

/** The table of a route without an `error_map` (and of the `SMPP_URL` shorthand). */
export const DEFAULT_REJECTIONS = new RejectionTable();

/** A `submit_sm_resp` status written as `error_map` keys are: `0x0000045A`. */
export function statusHex(status: number): string {
  return `0x${status.toString(16).toUpperCase().padStart(8, "0")}`;
}

/** A `submit_sm_resp` status as support reads it: `submit_sm_resp 0x0000045A`, with its SMPP name when it has one. */
export function statusCarrierError(status: number, name: string | undefined): string {
  const hex = statusHex(status);
  return name === undefined ? `submit_sm_resp ${hex}` : `submit_sm_resp ${hex} ${name}`;
}
