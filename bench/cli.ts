// `npm run bench:cli`: how fast `dakiya` starts. Builds the server (`npm run build:server`),
// makes an account in a fresh SQLite database in a temporary folder, then runs each command
// N times one after the other (after 2 runs not counted, which warm the page cache) and records
// the wall time and the CPU time (user + system, every thread) of each run:
//   cli-version   dakiya --version
//   cli-balance   dakiya balance --account <id> --environment live
//   serve-listen  dakiya serve, until it logs "Server listening at" (then it is killed); CPU read
//                 from /proc at that moment
// The commands run as an operator types them (`node bin/dakiya.js …`), with the environment of
// this process; each CLI run is preloaded with bench/cli-cpu.cjs, which writes its CPU time on exit.
// A run that prints on stderr (such as the launcher's notice that the sources run instead of the
// build) fails the bench: it would not measure the build.
//
// Options: --runs N (CLI commands, default 20, 3 to 200); --serve-runs N (default 10, 0 to 50);
// --no-build (measure dist/ as it is). The record goes to bench/results/cli-<date>T<time>-<build>.json
// (format dakiya-bench-cli/1, below); docs/bench.md describes it.

import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DATED_RESULTS_DIR, describeBuild } from "./results-file.js";

export const CLI_RESULTS_FORMAT = "dakiya-bench-cli/1";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "dakiya.js");
const CPU_PRELOAD = join(ROOT, "bench", "cli-cpu.cjs");
const WARM_UP_RUNS = 2;
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

export interface CommandRecord {
  scenario: string;
  command: string;
  runs: number;
  wall_ms: { median: number; p90: number; min: number };
  /** User + system CPU of the process, every thread. */
  cpu_ms: { median: number; p90: number; min: number };
}

export interface CliResultsFile {
  format: typeof CLI_RESULTS_FORMAT;
  date: string;
  git: { sha: string; dirty: boolean };
  machine: { cpu: string; cores: number; memory_gb: number; node: string; load_average_1m: number };
  command: string;
  /** NODE_ENV and DAKIYA_FROM_SOURCE as the commands saw them. */
  env: Record<string, string>;
  scenarios: CommandRecord[];
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

const { values: options } = parseArgs({
  options: {
    runs: { type: "string", default: "20" },
    "serve-runs": { type: "string", default: "10" },
    "no-build": { type: "boolean", default: false },
  },
});
const runs = count(options.runs, "--runs", 3, 200);
const serveRuns = count(options["serve-runs"], "--serve-runs", 0, 50);

function count(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${flag} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

const startedAt = new Date();
const folder = mkdtempSync(join(os.tmpdir(), "dakiya-bench-cli-"));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: `sqlite:${join(folder, "dakiya.db")}`,
  DAKIYA_SECRET: "bench-cli-secret-0123456789abcdefghijklmnopqrstuvwxyz",
  LOG_LEVEL: "warn",
};

try {
  if (!options["no-build"]) {
    execFileSync("npm", ["run", "-s", "build:server"], { cwd: ROOT, stdio: "inherit" });
  }
  const created = runCli([
    "--json",
    "account",
    "create",
    "--email",
    "bench@example.com",
    "--password",
    "a long passphrase",
  ]);
  const accountId = (JSON.parse(created.stdout) as { id: string }).id;

  const scenarios: CommandRecord[] = [
    measureCli("cli-version", ["--version"]),
    measureCli("cli-balance", ["balance", "--account", accountId, "--environment", "live"]),
  ];
  if (serveRuns > 0) scenarios.push(await measureServe());

  const path = writeRecord(scenarios);
  for (const s of scenarios) {
    console.log(
      `${s.scenario.padEnd(13)} ${String(s.runs).padStart(3)} runs  wall median ${s.wall_ms.median} ms, p90 ${s.wall_ms.p90} ms  CPU median ${s.cpu_ms.median} ms, p90 ${s.cpu_ms.p90} ms`,
    );
  }
  console.log(`record: ${path}`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}

/** One run of `dakiya …args`, which must succeed and print nothing on stderr. */
function runCli(args: string[], cpuFile?: string): { stdout: string; wallMs: number } {
  const started = process.hrtime.bigint();
  const run = spawnSync(
    process.execPath,
    cpuFile ? ["--require", CPU_PRELOAD, BIN, ...args] : [BIN, ...args],
    {
      cwd: ROOT,
      env: cpuFile ? { ...env, BENCH_CPU_FILE: cpuFile } : env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    },
  );
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0 || run.stderr !== "") {
    const said = run.stderr || run.error?.message || "nothing on stderr";
    throw new Error(`dakiya ${args.join(" ")} exited ${run.status ?? run.signal}: ${said}`);
  }
  return { stdout: run.stdout, wallMs };
}

function measureCli(scenario: string, args: string[]): CommandRecord {
  const cpuFile = join(folder, "cpu.json");
  const samples: Sample[] = [];
  for (let i = 0; i < WARM_UP_RUNS + runs; i++) {
    rmSync(cpuFile, { force: true });
    const { wallMs } = runCli(args, cpuFile);
    const cpu = JSON.parse(readFileSync(cpuFile, "utf8")) as { user: number; system: number };
    if (i >= WARM_UP_RUNS) samples.push({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
  return summarise(scenario, `dakiya ${args.join(" ")}`, samples);
}

async function measureServe(): Promise<CommandRecord> {
  const samples: Sample[] = [];
  for (let i = 0; i < WARM_UP_RUNS + serveRuns; i++) {
    const sample = await serveUntilListening();
    if (i >= WARM_UP_RUNS) samples.push(sample);
  }
  return summarise("serve-listen", "dakiya serve (until listening)", samples);
}

/** Starts `dakiya serve` on a free port, waits for its "Server listening at" line, reads its CPU, kills it. */
function serveUntilListening(): Promise<Sample> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, "serve"], {
    cwd: ROOT,
    env: { ...env, LOG_LEVEL: "info", PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise<Sample>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`dakiya serve did not listen within 60 s: ${stderr}`));
    }, 60_000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`dakiya serve exited (${code ?? signal}) before listening: ${stderr}`));
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (!line.includes("Server listening at")) return;
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const cpuMs = procCpuMs(child.pid ?? 0);
      clearTimeout(timer);
      child.removeAllListeners("exit");
      child.once("exit", () => {
        if (stderr !== "") reject(new Error(`dakiya serve wrote on stderr: ${stderr}`));
        else resolve({ wallMs, cpuMs });
      });
      child.kill("SIGKILL");
    });
  });
}

/** User + system CPU of a live process from /proc/<pid>/stat, in clock ticks (10 ms on most Linux). */
function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function summarise(scenario: string, command: string, samples: Sample[]): CommandRecord {
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
    return { median: Math.round(at(0.5)), p90: Math.round(at(0.9)), min: Math.round(sorted[0] ?? 0) };
  };
  return {
    scenario,
    command,
    runs: samples.length,
    wall_ms: stats(samples.map((s) => s.wallMs)),
    cpu_ms: stats(samples.map((s) => s.cpuMs)),
  };
}

function writeRecord(scenarios: CommandRecord[]): string {
  const git = describeBuild();
  const date = `${startedAt.toISOString().slice(0, 19)}Z`;
  const cpus = os.cpus();
  const record: CliResultsFile = {
    format: CLI_RESULTS_FORMAT,
    date,
    git,
    machine: {
      cpu: cpus[0]?.model.trim() ?? "unknown",
      cores: cpus.length,
      memory_gb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
      node: process.version,
      load_average_1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    },
    command: ["npm run bench:cli", ...(process.argv.length > 2 ? ["--", ...process.argv.slice(2)] : [])].join(
      " ",
    ),
    env: Object.fromEntries(
      ["NODE_ENV", "DAKIYA_FROM_SOURCE"].flatMap((name) => {
        const value = process.env[name];
        return value ? [[name, value]] : [];
      }),
    ),
    scenarios,
  };
  const stem = `cli-${date.slice(0, 10)}T${date.slice(11, 13)}${date.slice(14, 16)}-${git.sha}`;
  mkdirSync(DATED_RESULTS_DIR, { recursive: true });
  let path = join(DATED_RESULTS_DIR, `${stem}.json`);
  for (let n = 2; existsSync(path); n++) path = join(DATED_RESULTS_DIR, `${stem}-${n}.json`);
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}
