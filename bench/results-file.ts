// The record a bench run leaves behind: one JSON file under bench/results/, named by the run's
// date and build (`2026-11-29T0130-abc1234.json`), with per scenario the CPU an operation cost
// first, then throughput and latency. These files are committed; `npm run bench:table`
// (bench/table.ts) renders them into docs/performance.md. The full figures of the last run stay in
// bench/results/latest.json, which is not.
//
// This module is read by bench/table.ts too, so it imports nothing that parses the bench's
// command line (options.ts does, on import).

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KannelResult } from "./kannel.js";
import type { Machine } from "./processes.js";
import type { ApiScenarioResult } from "./scenarios/api-routes.js";
import type { LiveScenarioResult } from "./scenarios/live-smpp.js";
import type { CampaignScenarioResult } from "./scenarios/otp-during-campaign.js";

export const RESULTS_FORMAT = "dakiya-bench/1";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const DATED_RESULTS_DIR = join(ROOT, "bench", "results");
/** `2026-11-29T0130-abc1234.json`, and `-2`, `-3`… for a second run within the same minute. */
export const DATED_FILE_NAME = /^\d{4}-\d{2}-\d{2}T\d{4}-[0-9a-f]{4,40}(-\d+)?\.json$/;

export interface ScenarioRecord {
  scenario: string;
  /** Set for the reference runs through another product (Kannel's sendsms). */
  peer?: "kannel";
  /** The processes under test: user + system CPU µs per operation (bench/summary.ts). */
  cpu_us_per_operation: number | null;
  operation: "request" | "message";
  /**
   * "load and tail": from the start of the load until the work it caused was done (every run
   * this bench writes). "load": during the load alone (the runs imported from earlier notes).
   */
  cpu_counted_over: "load and tail" | "load";
  /**
   * Answered requests, or accepted messages, a second during the load; for otp-during-campaign,
   * the campaign's submit_sm a second at the SMSC while the OTPs were sent.
   */
  operations_per_s: number | null;
  /** Imported runs whose notes gave a ratio to the bare route: ratio × the bare route's rate. */
  operations_per_s_derived_from_ratio?: true;
  /** The answers' latency; for otp-during-campaign, an OTP's from its acceptance to its submit_sm at the SMSC. */
  latency_ms: { p50: number | null; p99: number | null };
  /** Live SMS: submit_sm a second at the SMSC from the start of the load until the queue was empty. */
  submit_sm_per_s_until_drained?: number | null;
  /** How long after the load the counted tail lasted, and whether its work was all done. */
  tail_s?: number;
  tail_done?: boolean;
  peak_rss_mb?: number | null;
}

export interface RunRecord {
  database: "sqlite" | "postgres";
  webhooks: boolean;
  delivery: boolean;
  /** With --api-procs: the API processes of this round (and one `dakiya worker`); else null. */
  api_processes: number | null;
  /** Imported runs whose notes gave the server's peak RSS over the whole run, not per scenario. */
  peak_rss_mb?: number;
  scenarios: ScenarioRecord[];
}

export interface ResultsFile {
  format: typeof RESULTS_FORMAT;
  /** When the run started, UTC. */
  date: string;
  git: { sha: string; dirty: boolean };
  machine: { cpu: string; cores: number; memory_gb: number; node: string };
  command: string;
  /** Set on runs converted from the prose notes that came before these files. */
  imported_from?: string;
  note?: string;
  runs: RunRecord[];
}

export function apiRecord(result: ApiScenarioResult): ScenarioRecord {
  return {
    scenario: result.scenario,
    cpu_us_per_operation: result.cpu.us_per_operation,
    operation: result.cpu.operation,
    cpu_counted_over: "load and tail",
    operations_per_s: result.http.requests_per_s,
    latency_ms: { p50: result.http.latency_ms.p50, p99: result.http.latency_ms.p99 },
    tail_s: result.cpu.tail_seconds,
    tail_done: result.cpu.tail_done,
    peak_rss_mb: result.server.peak_rss_mb,
  };
}

export function liveRecord(result: LiveScenarioResult): ScenarioRecord {
  return {
    scenario: result.scenario,
    cpu_us_per_operation: result.cpu.us_per_operation,
    operation: result.cpu.operation,
    cpu_counted_over: "load and tail",
    operations_per_s: result.http.accepted_per_s,
    latency_ms: { p50: result.http.latency_ms.p50, p99: result.http.latency_ms.p99 },
    submit_sm_per_s_until_drained: result.smsc.submit_sm_per_s_until_drained,
    tail_s: result.cpu.tail_seconds,
    tail_done: result.cpu.tail_done,
    peak_rss_mb: result.server.peak_rss_mb,
  };
}

export function campaignRecord(result: CampaignScenarioResult): ScenarioRecord {
  return {
    scenario: result.scenario,
    cpu_us_per_operation: result.cpu.us_per_operation,
    operation: result.cpu.operation,
    cpu_counted_over: "load and tail",
    operations_per_s: result.campaign.submit_sm_per_s,
    latency_ms: { p50: result.otp.submit_latency_ms.p50, p99: result.otp.submit_latency_ms.p99 },
    tail_s: result.cpu.tail_seconds,
    tail_done: result.cpu.tail_done,
    peak_rss_mb: result.server.peak_rss_mb,
  };
}

export function kannelRecord(result: KannelResult): ScenarioRecord {
  return {
    scenario: result.scenario,
    peer: "kannel",
    cpu_us_per_operation: result.cpu.us_per_operation,
    operation: result.cpu.operation,
    cpu_counted_over: "load and tail",
    operations_per_s: result.http.accepted_per_s,
    latency_ms: { p50: result.http.latency_ms.p50, p99: result.http.latency_ms.p99 },
    submit_sm_per_s_until_drained: result.smsc.submit_sm_per_s_until_drained,
    tail_s: result.cpu.tail_seconds,
    tail_done: result.cpu.tail_done,
    peak_rss_mb: result.kannel.bearerbox_peak_rss_mb + result.kannel.smsbox_peak_rss_mb,
  };
}

/**
 * The build the run measured: the short commit id, and whether the tracked files differed from it
 * (documents and the records themselves apart: they change nothing that runs).
 */
export function describeBuild(): ResultsFile["git"] {
  const git = (args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  try {
    const changed = git([
      ...["status", "--porcelain", "--untracked-files=no", "--", "."],
      ...[":(exclude)*.md", ":(exclude)bench/results"],
    ]);
    return { sha: git(["rev-parse", "--short", "HEAD"]), dirty: changed !== "" };
  } catch {
    return { sha: "0000000", dirty: true };
  }
}

/** Writes the run's file under bench/results/ and returns its path. */
export function writeDatedResults(options: {
  startedAt: number;
  machine: Machine;
  command: string;
  runs: RunRecord[];
}): string {
  const git = describeBuild();
  const started = new Date(options.startedAt);
  const record: ResultsFile = {
    format: RESULTS_FORMAT,
    date: `${started.toISOString().slice(0, 19)}Z`,
    git,
    machine: {
      cpu: options.machine.cpu,
      cores: options.machine.cores,
      memory_gb: options.machine.memory_gb,
      node: options.machine.node,
    },
    command: options.command,
    runs: options.runs,
  };
  const stem = `${record.date.slice(0, 10)}T${record.date.slice(11, 13)}${record.date.slice(14, 16)}-${git.sha}`;
  mkdirSync(DATED_RESULTS_DIR, { recursive: true });
  let path = join(DATED_RESULTS_DIR, `${stem}.json`);
  for (let n = 2; existsSync(path); n++) path = join(DATED_RESULTS_DIR, `${stem}-${n}.json`);
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}

/** How the run was started, for the record: the bench's arguments and the BENCH_* settings. */
export function describeCommand(args: string[]): string {
  const settings = Object.entries(process.env)
    .filter(
      ([name, value]) =>
        /^BENCH_[A-Z_]+$/.test(name) && !/^BENCH_(ROUND_API_PROCS|SKIP_COMPILE)$/.test(name) && value,
    )
    .map(([name, value]) => `${name}=${value}`)
    .sort();
  return [...settings, "npm run bench", ...(args.length > 0 ? ["--", ...args] : [])].join(" ");
}
