// `npm run bench -- --api-procs N`: Dakiya as N API processes behind one port (bench/cluster.ts)
// plus one `dakiya worker`, the way it scales out on PostgreSQL. The bench runs every selected
// scenario twice, in two rounds that are each a run of their own (a fresh database, the bare route
// again, the same load): with 1 API process, then with N. Each round is this same script as a child
// process (BENCH_ROUND_API_PROCS=k); the parent prints both rounds' tables, then each scenario's
// scaling (req/s with N ÷ req/s with 1), and writes both rounds to one dated record.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fail, log, onCleanup } from "./lifecycle.js";
import { DAKIYA_NODE_FLAGS, DELIVERY, DIALECT, RESULTS_DIR, ROOT, WEBHOOKS } from "./options.js";
import { type ChildHandle, describeMachine, procCpuSeconds, procStatusMb, startChild } from "./processes.js";
import { apiRecord, describeCommand, writeDatedResults } from "./results-file.js";
import type { ApiScenarioResult } from "./scenarios/api-routes.js";
import { clearProfiles, compileServer } from "./server.js";
import { round } from "./summary.js";

/** The results file of round k (the parent joins them into latest.json). */
export function roundResultsFile(processes: number): string {
  return join(RESULTS_DIR, `latest-api-procs-${processes}.json`);
}

/**
 * `processes` API processes on one port and a `dakiya worker`, watched as one server: memory and
 * CPU are the sums over every process (peak RSS is the sum of each process's own peak), log lines
 * those of all of them; it has exited when any of them has.
 */
export function startApiProcesses(env: Record<string, string>, processes: number): ChildHandle {
  clearProfiles();
  const primary = startChild(
    `dakiya serve --no-worker ×${processes}`,
    [join(ROOT, "bench", "cluster.ts"), String(processes), ...DAKIYA_NODE_FLAGS],
    env,
    process.execPath,
    true,
  );
  const worker = startChild(
    "dakiya worker",
    [...DAKIYA_NODE_FLAGS, join(ROOT, "bin", "dakiya.js"), "worker"],
    env,
  );
  const children = [primary, worker];
  /** The API processes, once the primary has said which they are. */
  const apiPids = (): number[] => {
    for (const line of primary.logTail) {
      const pids = /^\{"api_pids":(\[[\d,]*\])\}$/.exec(line.trim())?.[1];
      if (pids) return JSON.parse(pids) as number[];
    }
    return [];
  };
  const pids = () => [primary.pid, ...apiPids(), worker.pid];
  const sum = (value: (pid: number) => number) =>
    round(
      pids().reduce((total, pid) => total + value(pid), 0),
      1,
    );
  let peak = 0;
  return {
    pid: primary.pid,
    get exitCode() {
      return children.find((child) => child.exited)?.exitCode ?? null;
    },
    get signal() {
      return children.find((child) => child.exited)?.signal ?? null;
    },
    get exited() {
      return children.some((child) => child.exited);
    },
    logLines: {
      get warn() {
        return primary.logLines.warn + worker.logLines.warn;
      },
      get error() {
        return primary.logLines.error + worker.logLines.error;
      },
    },
    get logTail() {
      return [...primary.logTail, ...worker.logTail];
    },
    rssMb: () => sum((pid) => procStatusMb(pid, "VmRSS")),
    peakRssMb() {
      peak = Math.max(
        peak,
        sum((pid) => procStatusMb(pid, "VmHWM")),
      );
      return peak;
    },
    resetPeak() {
      peak = 0;
      return children.map((child) => child.resetPeak()).every(Boolean) && resetApiPeaks(apiPids());
    },
    cpuSeconds: () => sum(procCpuSeconds),
    async stop() {
      await Promise.all(children.map((child) => child.stop()));
    },
  };
}

function resetApiPeaks(pids: number[]): boolean {
  try {
    for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

type RoundResult = ApiScenarioResult;

/**
 * The parent of the rounds: compiles once, runs this script with the same arguments for 1 and
 * `processes` API processes in turn, then prints each scenario's scaling and writes every
 * round's results, tagged with `settings.api_processes`, to latest.json, and the rounds' record
 * to a dated file.
 */
export async function runScalingRounds(processes: number, args: string[]): Promise<void> {
  const startedAt = Date.now();
  compileServer();
  const counts = processes === 1 ? [1] : [1, processes];
  const rounds: Array<{ processes: number; results: RoundResult[] }> = [];
  for (const count of counts) {
    log(`\n=== round: ${count} API process${count === 1 ? "" : "es"} and a dakiya worker ===`);
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench", "run.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, BENCH_ROUND_API_PROCS: String(count), BENCH_SKIP_COMPILE: "1" },
      stdio: "inherit",
    });
    onCleanup(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    });
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    if (code !== 0) fail(`the round with ${count} API processes failed (${code ?? signal})`);
    const results = JSON.parse(readFileSync(roundResultsFile(count), "utf8")) as RoundResult[];
    for (const result of results) result.settings = { ...result.settings, api_processes: count };
    rounds.push({ processes: count, results });
  }
  writeFileSync(
    join(RESULTS_DIR, "latest.json"),
    `${JSON.stringify(
      rounds.flatMap((r) => r.results),
      null,
      2,
    )}\n`,
  );
  printScaling(rounds);
  const path = writeDatedResults({
    startedAt,
    machine: describeMachine(),
    command: describeCommand(args),
    runs: rounds.map((round) => ({
      database: DIALECT,
      webhooks: WEBHOOKS,
      delivery: DELIVERY,
      api_processes: round.processes,
      scenarios: round.results.map(apiRecord),
    })),
  });
  log(`The run's record: ${path.slice(ROOT.length)} (npm run bench:table puts it in docs/performance.md).`);
}

function printScaling(rounds: Array<{ processes: number; results: RoundResult[] }>): void {
  const first = rounds[0];
  const last = rounds.at(-1);
  if (!first || !last) return;
  const header = rounds.map(
    (r) =>
      `${r.processes} API proc${r.processes === 1 ? "" : "s"}: CPU a request (load and tail), req/s, p50/p99 ms, CPU % during the load`,
  );
  const lines = [
    "",
    `Scaling with API processes (each round: its own database and bare route; the CPU is that of every Dakiya process, the worker included; ${last.processes === first.processes ? "one round" : `${last.processes} ÷ 1 in the last column`}):`,
    "",
    `| scenario | ${header.join(" | ")} | scaling |`,
    `|---|${rounds.map(() => "---").join("|")}|---:|`,
  ];
  for (const result of first.results) {
    const cells = rounds.map((r) => {
      const same = r.results.find((other) => other.scenario === result.scenario);
      if (!same) return "–";
      const latency = same.http.latency_ms;
      return `${same.cpu.us_per_operation ?? "–"} µs, ${same.http.requests_per_s} ${latency.p50}/${latency.p99}, ${same.server.cpu_percent_during_load}%`;
    });
    const scaled = last.results.find((other) => other.scenario === result.scenario);
    const ratio =
      result.scenario === "bare" || !scaled || result.http.requests_per_s === 0
        ? "–"
        : `${round(scaled.http.requests_per_s / result.http.requests_per_s, 2)} ×`;
    lines.push(`| ${result.scenario} | ${cells.join(" | ")} | ${ratio} |`);
  }
  log(lines.join("\n"));
}
