/**
 * The bench's records and the table `npm run bench:table` makes of them (bench/table.ts): every
 * committed record under bench/results/ reads as one, the table puts the CPU an operation cost
 * first, and docs/performance.md holds the markers the table goes between.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ResultsFile } from "../../bench/results-file.js";
import {
  parseResultsFile,
  readResultsFiles,
  renderTable,
  replaceTable,
  TABLE_END,
  TABLE_START,
} from "../../bench/table.js";

const record: ResultsFile = {
  format: "dakiya-bench/1",
  date: "2026-11-29T01:30:05Z",
  git: { sha: "abc1234", dirty: false },
  machine: { cpu: "test CPU", cores: 2, memory_gb: 8, node: "v20.19.0" },
  command: "npm run bench -- --scenarios balance",
  runs: [
    {
      database: "sqlite",
      webhooks: true,
      delivery: true,
      api_processes: null,
      scenarios: [
        {
          scenario: "balance",
          cpu_us_per_operation: 61,
          operation: "request",
          cpu_counted_over: "load and tail",
          operations_per_s: 12345,
          latency_ms: { p50: 3, p99: 11 },
          tail_s: 0.31,
          tail_done: true,
        },
        {
          scenario: "bare",
          cpu_us_per_operation: 17,
          operation: "request",
          cpu_counted_over: "load and tail",
          operations_per_s: 54000,
          latency_ms: { p50: 0, p99: 2 },
        },
      ],
    },
  ],
};

describe("bench records and their table", () => {
  it("reads every dated record under bench/results", () => {
    const files = readResultsFiles();
    expect(files.length).toBeGreaterThan(0);
    const dates = files.map((entry) => entry.file.date);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it("refuses a file that is not a record, naming it", () => {
    expect(() => parseResultsFile("x.json", JSON.stringify({ ...record, format: "other" }))).toThrow(
      /bench\/results\/x\.json: format/,
    );
    expect(() => parseResultsFile("y.json", JSON.stringify({ ...record, runs: [] }))).toThrow(
      /runs is empty/,
    );
  });

  it("gives each scenario a row, the CPU an operation cost before throughput and latency", () => {
    const table = renderTable([record]);
    const lines = table.split("\n");
    expect(lines[0]).toBe("| run | scenario | CPU µs an operation | operations/s | p50 / p99 ms |");
    expect(lines[2]).toBe(
      "| 2026-11-29 01:30, `abc1234`, 2 cores, SQLite, webhooks on | balance | 61 a request | 12,345 | 3 / 11 |",
    );
    expect(lines[3]).toBe("|  | bare | 17 a request | 54,000 | 0 / 2 |");
    expect(table).not.toContain("\\*");
  });

  it("marks imported runs, CPU counted over the load alone and derived rates", () => {
    const imported: ResultsFile = {
      ...record,
      imported_from: "README.md at 8d39dea",
      git: { sha: "95a7e17", dirty: false },
      runs: [
        {
          database: "postgres",
          webhooks: false,
          delivery: true,
          api_processes: 2,
          scenarios: [
            {
              scenario: "otp-send",
              cpu_us_per_operation: 292,
              operation: "request",
              cpu_counted_over: "load",
              operations_per_s: 3843,
              operations_per_s_derived_from_ratio: true,
              latency_ms: { p50: null, p99: 29 },
            },
          ],
        },
      ],
    };
    const table = renderTable([imported]);
    expect(table).toContain(
      "| 2026-11-29 01:30 ⁱ, `95a7e17`, 2 cores, PostgreSQL, 2 API processes + a worker, webhooks off | otp-send | 292 a request \\* | ≈3,843 | – / 29 |",
    );
    expect(table).toContain("\\* The server's CPU during the load alone");
    expect(table).toContain("≈ Derived from the ratio");
    expect(table).toContain("ⁱ Imported");
  });

  it("replaces only what lies between the markers", () => {
    const document = `before\n${TABLE_START}\nold\n${TABLE_END}\nafter\n`;
    expect(replaceTable(document, "new")).toBe(`before\n${TABLE_START}\n\nnew\n\n${TABLE_END}\nafter\n`);
    expect(() => replaceTable("no markers", "new")).toThrow(/markers/);
  });

  it("docs/performance.md holds each marker once, in order", () => {
    const performance = readFileSync(new URL("../../docs/performance.md", import.meta.url), "utf8");
    expect(performance.split(TABLE_START)).toHaveLength(2);
    expect(performance.split(TABLE_END)).toHaveLength(2);
    expect(() => replaceTable(performance, "table")).not.toThrow();
  });
});
