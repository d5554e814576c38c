/**
 * A campaign's recipients from a CSV file (docs/dashboard-api.md#campaigns-in-the-console): a `to` column, one column
 * per placeholder of the template, an optional `reference`. Parsed with Papa Parse in chunks, so a
 * file of 100,000 rows never holds the page up for long; not in a worker, which the console's
 * Content-Security-Policy (no `blob:` scripts) would refuse. Papa Parse is loaded when a file is
 * read, so pages without one do not download it.
 */
import type { Parser } from "papaparse";

/** What one campaign may hold (the server's MAX_CAMPAIGN_RECIPIENTS). */
export const MAX_CSV_ROWS = 100_000;
/** The server's limits on one recipient's fields: a longer value would refuse the whole request. */
const MAX_TO_LENGTH = 32;
const MAX_REFERENCE_LENGTH = 64;
/** Bytes read and parsed at a time: small enough that each step is quick, large enough to be few. */
const CHUNK_BYTES = 1024 * 1024;

const TO_COLUMN = "to";
const REFERENCE_COLUMN = "reference";

/** One row as the campaign routes take a recipient (api.ts's CampaignRecipient). */
export interface CsvRecipient {
  to: string;
  variables: Record<string, string>;
  reference?: string;
}

/** Where each value of a row goes, by column position. */
export interface CsvColumns {
  to: number;
  reference: number | undefined;
  variables: Array<{ placeholder: string; column: number }>;
  /** Columns named after nothing the template needs, as headed in the file: left out. */
  ignored: string[];
}

/** A row refused before it reaches the server: a value longer than the API takes. */
export interface CsvRowError {
  /** The row in the file, the header being row 1. */
  row: number;
  to: string;
  message: string;
}

export interface CsvRecipients {
  recipients: CsvRecipient[];
  /** Each recipient's row in the file (the header being row 1), to name rows the server refuses. */
  rows: number[];
  errors: CsvRowError[];
  columns: CsvColumns;
  /** Rows with a value in them (blank rows are skipped). */
  rowsRead: number;
  /** Numbers given as 10 digits (or 91 and 10 digits) and sent as +91…. */
  normalised: number;
}

/** A file that cannot become a campaign at all, said so that the person can fix it. */
export class CsvProblem extends Error {
  override readonly name = "CsvProblem";
}

/** The columns a template's campaign file needs, in order: `to`, then one per placeholder. */
export function requiredColumns(placeholders: readonly string[]): string[] {
  return [TO_COLUMN, ...placeholders];
}

/**
 * Finds the `to`, `reference` and placeholder columns by their headers (trimmed, any case). A
 * column named after none of them is ignored, and listed so the page can say so; a missing `to` or
 * placeholder column refuses the file, since every row would fail.
 */
export function mapColumns(header: readonly string[], placeholders: readonly string[]): CsvColumns {
  const names = header.map((name) =>
    name
      .replace(/^\uFEFF/, "")
      .trim()
      .toLowerCase(),
  );
  const find = (name: string) => {
    const column = names.indexOf(name);
    return column === -1 ? undefined : column;
  };
  const missing = requiredColumns(placeholders).filter((name) => find(name) === undefined);
  if (missing.length > 0) {
    throw new CsvProblem(
      `The file has no ${missing.map((name) => `"${name}"`).join(", ")} column${missing.length === 1 ? "" : "s"}: its first row must name the columns ${requiredColumns(placeholders).join(", ")}.`,
    );
  }
  const known = new Set([TO_COLUMN, REFERENCE_COLUMN, ...placeholders]);
  return {
    to: find(TO_COLUMN) ?? 0,
    reference: find(REFERENCE_COLUMN),
    variables: placeholders.map((placeholder) => ({ placeholder, column: find(placeholder) ?? 0 })),
    ignored: header.filter((_name, column) => !known.has(names[column] ?? "")).map((name) => name.trim()),
  };
}

/**
 * An Indian mobile as people type it, in E.164: 10 digits, or 91 and 10 digits, get a "+91";
 * spaces and dashes go, and so does the apostrophe a CSV export puts before `+91…` to keep
 * spreadsheets from running it (docs/dashboard-api.md#messages-csv). Anything else is left for
 * the server to judge.
 */
export function normaliseNumber(value: string): string {
  const compact = value.trim().replace(/^'/, "").replace(/[\s-]/g, "");
  if (/^[6-9]\d{9}$/.test(compact)) return `+91${compact}`;
  if (/^91[6-9]\d{9}$/.test(compact)) return `+${compact}`;
  return compact;
}

/** Turns parsed rows (the header first) into recipients, counting rows from 1 for the header. */
class RecipientCollector {
  private columns: CsvColumns | undefined;
  private nextRow = 1;
  readonly result: Omit<CsvRecipients, "columns"> = {
    recipients: [],
    rows: [],
    errors: [],
    rowsRead: 0,
    normalised: 0,
  };

  constructor(private readonly placeholders: readonly string[]) {}

  add(values: string[]): void {
    const row = this.nextRow++;
    if (this.columns === undefined) {
      this.columns = mapColumns(values, this.placeholders);
      return;
    }
    if (values.every((value) => value.trim() === "")) return;
    this.result.rowsRead++;
    if (this.result.rowsRead > MAX_CSV_ROWS) {
      throw new CsvProblem(
        `The file has more than ${MAX_CSV_ROWS.toLocaleString("en-IN")} rows; a campaign sends to at most that many. Split it into several campaigns.`,
      );
    }
    const given = (values[this.columns.to] ?? "").trim();
    const to = normaliseNumber(given);
    if (to !== given.replace(/[\s-]/g, "")) this.result.normalised++;
    const reference =
      this.columns.reference === undefined ? "" : (values[this.columns.reference] ?? "").trim();
    if (to.length > MAX_TO_LENGTH) {
      this.result.errors.push({ row, to: given, message: "This is not a phone number: it is too long." });
      return;
    }
    if (reference.length > MAX_REFERENCE_LENGTH) {
      this.result.errors.push({
        row,
        to,
        message: `The reference is longer than ${MAX_REFERENCE_LENGTH} characters.`,
      });
      return;
    }
    const variables: Record<string, string> = {};
    for (const { placeholder, column } of this.columns.variables) {
      // An empty cell is a missing value: the server names the placeholder in its error.
      const value = values[column]?.trim();
      if (value) variables[placeholder] = value;
    }
    this.result.recipients.push({ to, variables, ...(reference ? { reference } : {}) });
    this.result.rows.push(row);
  }

  finish(): CsvRecipients {
    if (this.columns === undefined) throw new CsvProblem("The file is empty.");
    if (this.result.rowsRead === 0) throw new CsvProblem("The file has a header row but no recipients.");
    return { ...this.result, columns: this.columns };
  }
}

/**
 * Reads a campaign file (a File in the browser, a string in tests): UTF-8, with or without a byte
 * order mark, comma- or otherwise-delimited, quoted fields as RFC 4180 has them. `onProgress` hears
 * the rows read so far after each chunk. Rejects with a CsvProblem when the file cannot be used.
 */
export async function readRecipientsCsv(
  source: File | string,
  placeholders: readonly string[],
  onProgress?: (rowsRead: number) => void,
): Promise<CsvRecipients> {
  const { default: Papa } = await import("papaparse");
  const collector = new RecipientCollector(placeholders);
  return new Promise((resolve, reject) => {
    let failed = false;
    let rowsBefore = 0;
    const fail = (error: unknown, parser?: Parser) => {
      failed = true;
      parser?.abort();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    Papa.parse<string[]>(source, {
      header: false,
      skipEmptyLines: false,
      encoding: "UTF-8",
      chunkSize: CHUNK_BYTES,
      chunk(results, parser) {
        if (failed) return;
        const broken = results.errors.find((error) => error.type === "Quotes");
        if (broken) {
          const row = rowsBefore + (broken.row ?? 0) + 1;
          fail(new CsvProblem(`Row ${row}: ${broken.message}. Check the quotes around its values.`), parser);
          return;
        }
        try {
          for (const values of results.data) collector.add(values);
        } catch (error) {
          fail(error, parser);
          return;
        }
        rowsBefore += results.data.length;
        onProgress?.(collector.result.rowsRead);
      },
      complete() {
        if (failed) return;
        try {
          resolve(collector.finish());
        } catch (error) {
          reject(error);
        }
      },
      error(error: Error) {
        fail(new CsvProblem(`The file could not be read: ${error.message}`));
      },
    });
  });
}
