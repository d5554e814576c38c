// `npm run bench:table`: renders the dated records of bench/results/ (bench/results-file.ts) into
// the table of docs/performance.md, between its two marker comments. The newest runs come first;
// `--files N` says how many records to show (default 8), `--check` only says whether the table is
// up to date (exit status 1 if not). The bench itself never edits a document.

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DATED_FILE_NAME,
  DATED_RESULTS_DIR,
  RESULTS_FORMAT,
  type ResultsFile,
  type RunRecord,
  type ScenarioRecord,
} from "./results-file.js";

export const TABLE_START =
  "<!-- bench-results:start: written by `npm run bench:table` from bench/results/*.json; edits here are overwritten -->";
export const TABLE_END = "<!-- bench-results:end -->";
const DOCUMENT = join(fileURLToPath(new URL("..", import.meta.url)), "docs", "performance.md");
const DEFAULT_FILES = 8;

/** Every dated record under `directory`, newest first; a file that is not one fails loudly. */
export function readResultsFiles(directory = DATED_RESULTS_DIR): Array<{ name: string; file: ResultsFile }> {
  const names = readdirSync(directory).filter((name) => DATED_FILE_NAME.test(name));
  const files = names.map((name) => ({
    name,
    file: parseResultsFile(name, readFileSync(join(directory, name), "utf8")),
  }));
  return files.sort((a, b) => b.file.date.localeCompare(a.file.date) || b.name.localeCompare(a.name));
}

export function parseResultsFile(name: string, text: string): ResultsFile {
  const file = JSON.parse(text) as Partial<ResultsFile>;
  const problem =
    file.format !== RESULTS_FORMAT
      ? `format is not "${RESULTS_FORMAT}"`
      : typeof file.date !== "string" || Number.isNaN(Date.parse(file.date))
        ? "date is not a time"
        : typeof file.git?.sha !== "string"
          ? "git.sha is missing"
          : typeof file.machine?.cores !== "number"
            ? "machine.cores is missing"
            : !Array.isArray(file.runs) || file.runs.length === 0
              ? "runs is empty"
              : file.runs.some((run) => !Array.isArray(run.scenarios))
                ? "a run has no scenarios"
                : undefined;
  if (problem) throw new Error(`bench/results/${name}: ${problem}`);
  return file as ResultsFile;
}

/** The markdown table of the given records (newest first), with its notes. */
export function renderTable(files: ResultsFile[]): string {
  const rows: string[] = [];
  let imported = false;
  let loadOnly = false;
  let derived = false;
  for (const file of files) {
    for (const run of file.runs) {
      run.scenarios.forEach((scenario, index) => {
        const label = index === 0 ? runLabel(file, run) : "";
        if (file.imported_from) imported = true;
        if (scenario.cpu_counted_over === "load" && scenario.cpu_us_per_operation !== null) loadOnly = true;
        if (scenario.operations_per_s_derived_from_ratio) derived = true;
        rows.push(
          `| ${label} | ${scenarioName(scenario)} | ${cpuCell(scenario)} | ${rateCell(scenario)} | ${latencyCell(scenario)} |`,
        );
      });
    }
  }
  const notes = [
    "CPU: user + system time of Dakiya's server and worker processes (Kannel's bearerbox and smsbox on its rows) from the start of the load until the work it caused was done (the queue drained, the webhook events delivered), per answered request or accepted message. PostgreSQL's own CPU is not in it. Throughput and latency are those of the load.",
    ...(loadOnly
      ? ["\\* The server's CPU during the load alone: runs recorded before the bench counted the tail."]
      : []),
    ...(derived
      ? ["≈ Derived from the ratio to the bare route the earlier notes gave (ratio × the bare route's rate)."]
      : []),
    ...(imported
      ? ["ⁱ Imported from the prose notes that came before these records (see the file's `imported_from`)."]
      : []),
  ];
  return [
    "| run | scenario | CPU µs an operation | operations/s | p50 / p99 ms |",
    "|---|---|---:|---:|---|",
    ...rows,
    "",
    ...notes.flatMap((note) => [note, ""]),
  ]
    .join("\n")
    .trimEnd();
}

function runLabel(file: ResultsFile, run: RunRecord): string {
  const date = `${file.date.slice(0, 10)} ${file.date.slice(11, 16)}`;
  const build = `\`${file.git.sha}\`${file.git.dirty ? " (uncommitted changes)" : ""}`;
  const database =
    run.database === "postgres"
      ? `PostgreSQL${run.api_processes === null ? "" : `, ${run.api_processes} API process${run.api_processes === 1 ? "" : "es"} + a worker`}`
      : "SQLite";
  const settings = [run.webhooks ? "webhooks on" : "webhooks off", ...(run.delivery ? [] : ["delivery off"])];
  return `${date}${file.imported_from ? " ⁱ" : ""}, ${build}, ${file.machine.cores} cores, ${database}, ${settings.join(", ")}`;
}

function scenarioName(scenario: ScenarioRecord): string {
  return scenario.peer ? `${scenario.scenario} (for reference)` : scenario.scenario;
}

function cpuCell(scenario: ScenarioRecord): string {
  if (scenario.cpu_us_per_operation === null) return "–";
  const mark = scenario.cpu_counted_over === "load" ? " \\*" : "";
  const cut = scenario.tail_done === false ? " (tail cut short)" : "";
  return `${thousands(scenario.cpu_us_per_operation)} a ${scenario.operation}${mark}${cut}`;
}

function rateCell(scenario: ScenarioRecord): string {
  if (scenario.operations_per_s === null) return "–";
  return `${scenario.operations_per_s_derived_from_ratio ? "≈" : ""}${thousands(scenario.operations_per_s)}`;
}

function latencyCell(scenario: ScenarioRecord): string {
  const { p50, p99 } = scenario.latency_ms;
  if (p50 === null && p99 === null) return "–";
  return `${p50 ?? "–"} / ${p99 ?? "–"}`;
}

function thousands(n: number): string {
  return n.toLocaleString("en-US");
}

/** `document` with the text between the markers replaced by `table`. */
export function replaceTable(document: string, table: string): string {
  const start = document.indexOf(TABLE_START);
  const end = document.indexOf(TABLE_END);
  if (start === -1 || end === -1 || end < start || document.indexOf(TABLE_START, start + 1) !== -1) {
    throw new Error("docs/performance.md must hold each of the bench table's two markers once, in order");
  }
  return `${document.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${document.slice(end)}`;
}

function main(args: string[]): void {
  let files = DEFAULT_FILES;
  let check = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--check") check = true;
    else if (arg === "--files" && /^[1-9]\d*$/.test(args[i + 1] ?? "")) files = Number(args[++i]);
    else {
      process.stderr.write(
        `bench:table: unknown argument "${arg}"\nusage: npm run bench:table -- [--files N] [--check]\n`,
      );
      process.exit(1);
    }
  }
  const records = readResultsFiles().slice(0, files);
  const current = readFileSync(DOCUMENT, "utf8");
  const updated = replaceTable(current, renderTable(records.map((record) => record.file)));
  if (check) {
    if (updated !== current) {
      process.stderr.write(
        "bench:table: docs/performance.md's table is not up to date; run npm run bench:table\n",
      );
      process.exit(1);
    }
    return;
  }
  if (updated !== current) writeFileSync(DOCUMENT, updated);
  process.stdout.write(
    `docs/performance.md: ${records.length} record${records.length === 1 ? "" : "s"} (${records.map((record) => record.name).join(", ")})\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
