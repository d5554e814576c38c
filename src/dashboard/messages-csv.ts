import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import type { AppContext } from "../context.js";
import type { Environment } from "../db/schema.js";
import { type ListedMessage, listMessages, type MessageFilter } from "./messages.js";

type Scope = { accountId: string; environment: Environment };

/** The most messages one download holds: the newest this many of those matching the filters. */
export const MESSAGES_CSV_LIMIT = 100_000;
/** Messages read per query while streaming: memory stays flat however many match. */
const CSV_BATCH = 500;

export const MESSAGES_CSV_COLUMNS = [
  "created_at",
  "id",
  "to",
  "channel",
  "status",
  "sender",
  "template_id",
  "template_name",
  "reference",
  "text",
  "encoding",
  "segments",
  "cost_inr",
  "refund_inr",
  "error_code",
  "error_message",
  "carrier_error",
  "priority",
  "send_at",
  "submitted_at",
  "delivered_at",
  "undelivered_at",
  "failed_at",
  "cancelled_at",
  "campaign_id",
] as const;

type CsvRow = Record<(typeof MESSAGES_CSV_COLUMNS)[number], string>;

function csvRow(message: ListedMessage): CsvRow {
  return {
    created_at: message.created_at,
    id: message.id,
    to: message.to,
    channel: message.channel,
    status: message.status,
    sender: message.sender ?? "",
    template_id: message.template_id ?? "",
    template_name: message.template_name ?? "",
    reference: message.reference ?? "",
    text: message.text,
    encoding: message.encoding,
    segments: String(message.segments),
    cost_inr: message.cost,
    refund_inr: message.refund?.amount ?? "",
    error_code: message.error_code ?? "",
    error_message: message.error_message ?? "",
    carrier_error: message.carrier_error ?? "",
    priority: message.priority,
    send_at: message.send_at ?? "",
    submitted_at: message.submitted_at ?? "",
    delivered_at: message.delivered_at ?? "",
    undelivered_at: message.undelivered_at ?? "",
    failed_at: message.failed_at ?? "",
    cancelled_at: message.cancelled_at ?? "",
    campaign_id: message.campaign_id ?? "",
  };
}

/**
 * What a spreadsheet would read as a formula (OWASP's "CSV injection"): a cell that starts with
 * `=`, `+`, `-`, `@`, a tab or a carriage return. A reference or a template's name is the sender's
 * own text, so every such cell gets a leading apostrophe, which Excel and LibreOffice show as
 * "text" and hide; `+919876543210` thereby also stays a number as written rather than 9.2E+11.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function guardFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/**
 * The environment's messages that match the console's filters, newest first, as RFC 4180 CSV:
 * UTF-8 with a byte order mark (so Excel reads Hindi text as UTF-8), CRLF line ends, a header
 * row. Read in batches along the list's own keyset (created_at, id), so a long history is never
 * held whole; it stops after `cap` rows.
 */
export function messagesCsv(
  ctx: AppContext,
  scope: Scope,
  filter: Omit<MessageFilter, "before" | "limit">,
  cap = MESSAGES_CSV_LIMIT,
): Readable {
  async function* rows(): AsyncGenerator<CsvRow> {
    let before: string | undefined;
    let written = 0;
    while (written < cap) {
      const limit = Math.min(CSV_BATCH, cap - written);
      const page = await listMessages(ctx, scope, { ...filter, before, limit });
      for (const message of page.data) yield csvRow(message);
      written += page.data.length;
      before = page.data.at(-1)?.id;
      if (!page.has_more || before === undefined) return;
    }
  }
  const csv = stringify({
    header: true,
    columns: [...MESSAGES_CSV_COLUMNS],
    record_delimiter: "windows",
    bom: true,
    cast: { string: guardFormula },
  });
  const source = Readable.from(rows());
  // A read that fails half-way ends the download with the error instead of a silently short file.
  source.on("error", (error) => csv.destroy(error));
  return source.pipe(csv);
}

/** `dakiya-<environment>-messages[-from-<from>][-to-<until>].csv` */
export function messagesCsvName(environment: Environment, from?: string, until?: string): string {
  return `dakiya-${environment}-messages${from ? `-from-${from}` : ""}${until ? `-to-${until}` : ""}.csv`;
}
