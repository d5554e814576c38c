// The processes of a run, seen from the bench: children it starts (Dakiya, the bare route,
// Kannel's boxes), what Linux says about their memory and CPU, free ports, and the machine.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { fail, sleep } from "./lifecycle.js";
import { READY_SECONDS, ROOT } from "./options.js";
import { round } from "./summary.js";

export interface Machine {
  cpu: string;
  cores: number;
  memory_gb: number;
  node: string;
  platform: string;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memory_gb: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

export interface ChildHandle {
  readonly pid: number;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly exited: boolean;
  readonly logLines: { warn: number; error: number };
  readonly logTail: string[];
  /** Resident set size now, in MB (0 once the process is gone). */
  rssMb(): number;
  /** VmHWM: the largest resident set size so far (since resetPeak), in MB. */
  peakRssMb(): number;
  /** Starts VmHWM again from the current RSS (writes 5 to /proc/pid/clear_refs); false if it could not. */
  resetPeak(): boolean;
  /** CPU seconds (user + system) used so far. */
  cpuSeconds(): number;
  /** SIGTERM, then SIGKILL after 10 s. Idempotent. */
  stop(): Promise<void>;
}

/**
 * A child process: Node.js unless `command` says otherwise; `tsx` loads TypeScript for the
 * bench's own children (the bare route), the server runs compiled JavaScript.
 */
export function startChild(
  name: string,
  args: string[],
  env: Record<string, string>,
  command = process.execPath,
  tsx = false,
): ChildHandle {
  const child: ChildProcess = spawn(command, tsx ? ["--import", "tsx", ...args] : args, {
    cwd: ROOT,
    // Only what the server needs: nothing from the caller's shell (DATABASE_URL, WORKER_*) leaks in.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) fail(`could not start ${name}`);
  const pid = child.pid;
  const logLines = { warn: 0, error: 0 };
  const logTail: string[] = [];
  const onLine = (line: string) => {
    if (line.trim() === "") return;
    const level = /"level":(\d+)/.exec(line)?.[1];
    if (level === "40") logLines.warn += 1;
    else if (level !== undefined && Number(level) >= 50) logLines.error += 1;
    logTail.push(line);
    if (logTail.length > 200) logTail.shift();
  };
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = "";
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    });
  }
  let exited = false;
  const exit = once(child, "exit").then(() => {
    exited = true;
  });
  let peak = 0;
  let stopping: Promise<void> | undefined;
  return {
    pid,
    get exitCode() {
      return child.exitCode;
    },
    get signal() {
      return child.signalCode;
    },
    get exited() {
      return exited;
    },
    logLines,
    logTail,
    rssMb: () => procStatusMb(pid, "VmRSS"),
    peakRssMb() {
      peak = Math.max(peak, procStatusMb(pid, "VmHWM"));
      return peak;
    },
    resetPeak() {
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, "5");
        peak = 0;
        return true;
      } catch {
        return false;
      }
    },
    cpuSeconds: () => procCpuSeconds(pid),
    stop() {
      stopping ??= (async () => {
        if (exited) return;
        peak = Math.max(peak, procStatusMb(pid, "VmHWM"));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exit;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/** Waits until GET `path` answers 200; fails the run if the child exits or READY_SECONDS pass. */
export async function waitForAnswer(baseUrl: string, path: string, child: ChildHandle): Promise<void> {
  const deadline = Date.now() + READY_SECONDS * 1000;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (child.exited)
      fail(`${baseUrl} exited with ${child.exitCode ?? child.signal}: ${child.logTail.at(-1) ?? ""}`);
    try {
      const response = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(1_000) });
      await response.text();
      if (response.status === 200) return;
      last = `answered ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  fail(`${baseUrl}${path} did not answer within ${READY_SECONDS} s (${last})`);
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (port === 0) fail("could not find a free port");
  return port;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export function procStatusMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1];
    return kb ? round(Number(kb) / 1024, 1) : 0;
  } catch {
    return 0;
  }
}

export function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
