import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import {
  type LedgerCursor,
  type LedgerEntryView,
  ledgerCursorOf,
  ledgerEntriesPage,
  messageOfEntry,
} from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import type { Environment } from "../db/schema.js";
import { ApiError } from "../errors.js";
import type { TimeRange } from "./date-range.js";
import { guardFormula } from "./messages-csv.js";

type Scope = { accountId: string; environment: Environment };

/** A ledger entry as the console shows it: with the message a charge or refund was for. */
export type DashboardLedgerEntry = LedgerEntryView & { message_id: string | null };

/** One page of an environment's ledger, newest first; `before` is the last entry of the page before. */
export async function listLedger(
  ctx: AppContext,
  scope: Scope,
  filter: { created: TimeRange; before?: string | undefined; limit: number },
): Promise<{ data: DashboardLedgerEntry[]; has_more: boolean }> {
  let cursor: LedgerCursor | undefined;
  if (filter.before !== undefined) {
    cursor = await ledgerCursorOf(ctx.db, scope, filter.before);
    if (!cursor)
      throw new ApiError("invalid_request", `No ledger entry ${filter.before} to page from.`, "before");
  }
  const page = await ledgerEntriesPage(ctx.db, scope, {
    createdAfter: filter.created.after,
    createdBefore: filter.created.before,
    cursor,
    limit: filter.limit,
  });
  return {
    data: page.data.map((entry) => ({ ...entry, message_id: messageOfEntry(entry) })),
    has_more: page.has_more,
  };
}

/** Entries read per query while streaming the CSV: memory stays flat however long the ledger is. */
const CSV_BATCH = 500;

export const LEDGER_CSV_COLUMNS = [
  "created_at",
  "id",
  "reason",
  "amount_inr",
  "balance_after_inr",
  "reference",
] as const;

/**
 * The environment's ledger in the span, newest first, as RFC 4180 CSV (UTF-8, CRLF line ends, a
 * header row): read in batches along the same keyset as the page, so a long history is never held
 * whole. Amounts are signed decimal INR with four places, as everywhere in the API.
 */
export function ledgerCsv(ctx: AppContext, scope: Scope, created: TimeRange): Readable {
  async function* rows(): AsyncGenerator<Record<(typeof LEDGER_CSV_COLUMNS)[number], string>> {
    let cursor: LedgerCursor | undefined;
    for (;;) {
      const page = await ledgerEntriesPage(ctx.db, scope, {
        createdAfter: created.after,
        createdBefore: created.before,
        cursor,
        limit: CSV_BATCH,
      });
      for (const entry of page.data) {
        yield {
          created_at: entry.created_at,
          id: entry.id,
          reason: entry.reason,
          amount_inr: entry.amount,
          balance_after_inr: entry.balance_after,
          // The one free text of an entry (an operator's credit reference): guarded as messages' texts are.
          reference: guardFormula(entry.reference ?? ""),
        };
      }
      if (!page.has_more || !page.cursor) return;
      cursor = page.cursor;
    }
  }
  const csv = stringify({ header: true, columns: [...LEDGER_CSV_COLUMNS], record_delimiter: "windows" });
  const source = Readable.from(rows());
  // A read that fails half-way ends the download with the error instead of a silently short file.
  source.on("error", (error) => csv.destroy(error));
  return source.pipe(csv);
}

/** `dakiya-<environment>-ledger[-<from>][-to-<to>].csv` */
export function ledgerCsvName(environment: Environment, from?: string, to?: string): string {
  return `dakiya-${environment}-ledger${from ? `-from-${from}` : ""}${to ? `-to-${to}` : ""}.csv`;
}
