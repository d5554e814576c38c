// `npm run bench -- --peer kannel`: the load of sms-live-smpp sent through Kannel, as a reference.
// Debian's `kannel` package is installed when missing; bearerbox and smsbox run on loopback from a
// configuration written to a temporary folder (a file message store, an SMPP connection to a bench
// SMSC of their own) and autocannon sends GET /cgi-bin/sendsms to smsbox. The SMSC counts what
// reaches it; bearerbox's status page tells when Kannel's queue is empty. bench/run.ts hands in the
// SMSC, how to start a child process and Dakiya's sms-live-smpp figures to compare with.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import type { BenchSmsc } from "./smsc.js";
import {
  type CpuPerOperation,
  cpuPerOperation,
  type LatencySummary,
  latencySummary,
  round,
  type SmscSummary,
  smscSummary,
} from "./summary.js";

const SCENARIO = "kannel-sendsms";
/** Sendsms with several recipients a request (space-separated in `to`), compared with sms-batch. */
const MULTI_SCENARIO = "kannel-sendsms-multi";
const MAX_PENDING_SUBMITS = 50;
/** Each apt-get step of the installation. */
const APT_SECONDS = 300;
const STATUS_TIMEOUT_MS = 2_000;

export interface KannelBinaries {
  bearerbox: string;
  smsbox: string;
}

/** A child process started by bench/run.ts: stopped with SIGTERM, then SIGKILL. */
export interface BoxProcess {
  readonly exited: boolean;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly logTail: string[];
  /** VmHWM, in MB. */
  peakRssMb(): number;
  cpuSeconds(): number;
  stop(): Promise<void>;
}

type Cleanup = (step: () => Promise<void> | void) => void;

export interface KannelRunOptions {
  binaries: KannelBinaries;
  smsc: BenchSmsc;
  smscCredentials: { systemId: string; password: string };
  machine: object;
  connections: number;
  warmupSeconds: number;
  loadSeconds: number;
  /** After the warm-up, how long Kannel's queue may take to empty before the load starts anyway. */
  warmupDrainSeconds: number;
  /** After the load, how long Kannel's queue may take to empty. */
  drainSeconds: number;
  readySeconds: number;
  sender: string;
  /**
   * The destination and the text of the nth message (n from 1, warm-up included). A request to
   * several recipients sends the text of its first to all of them: sendsms takes one text.
   */
  destination: (n: number) => string;
  text: (n: number) => string;
  /** Recipients a sendsms request (1 unless given; more go space-separated in `to`). */
  recipientsPerRequest?: number;
  freePort: () => Promise<number>;
  startProcess: (name: string, command: string, args: string[]) => BoxProcess;
  onCleanup: Cleanup;
  log: (message: string) => void;
}

/** The Dakiya figures the Kannel ones are compared with (sms-live-smpp's result). */
export interface DakiyaLiveFigures {
  scenario: string;
  cpu: CpuPerOperation;
  http: {
    accepted_per_s: number;
    non_2xx: number;
    errors: number;
    latency_ms: { p50: number; p99: number; max: number };
  };
  smsc: { submit_sm_per_s_during_load: number; submit_sm_per_s_until_drained: number };
  queue: { at_load_end: number; at_end: number; drained_after_load_s: number | null };
  server: { peak_rss_mb: number; cpu_percent_during_load: number };
}

export interface KannelResult {
  scenario: typeof SCENARIO | typeof MULTI_SCENARIO;
  /** bearerbox's and smsbox's CPU per accepted message, from the start of the load until Kannel's queue was empty. */
  cpu: CpuPerOperation;
  description: string;
  run_at: string;
  machine: object;
  settings: Record<string, string | number>;
  load_seconds: number;
  connections: number;
  warmup_seconds: number;
  http: {
    requests_completed: number;
    accepted_2xx: number;
    recipients_per_request: number;
    /** Messages accepted a second: 2xx answers × recipients a request. */
    accepted_per_s: number;
    latency_ms: LatencySummary;
    non_2xx: number;
    status_codes: Record<string, number>;
    errors: number;
    timeouts: number;
    sample_error_bodies: string[];
  };
  smsc: SmscSummary;
  /** Kannel's queued messages plus its store (messages not yet answered by the SMSC). */
  queue: { at_load_end: number; at_end: number; drained: boolean; drained_after_load_s: number | null };
  kannel: {
    version: string;
    bearerbox_peak_rss_mb: number;
    smsbox_peak_rss_mb: number;
    bearerbox_cpu_percent_during_load: number;
    smsbox_cpu_percent_during_load: number;
    /**
     * The last warnings and errors bearerbox and smsbox printed before they were stopped (a reset
     * connection for each socket autocannon drops at the end of a load is usual).
     */
    console_tail: string[];
  };
  /** The whole run, warm-up included. */
  totals: { accepted_2xx: number; smsc_submits: number; kannel_sent: number };
  /** sms-live-smpp's figure ÷ Kannel's (null when either is missing or Kannel's is 0). */
  dakiya_over_kannel: {
    accepted_per_s: number | null;
    submit_sm_per_s_during_load: number | null;
    submit_sm_per_s_until_drained: number | null;
  };
  timeline: Array<{ t_s: number; smsc_submits: number; kannel_queued: number | null }>;
}

// ---------------------------------------------------------------------------------------------
// Installation

const SBIN_DIRS = ["/usr/sbin", "/usr/local/sbin"];

function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(":").filter(Boolean), ...SBIN_DIRS];
  return dirs
    .map((dir) => join(dir, name))
    .find((path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

function findKannel(): KannelBinaries | undefined {
  const bearerbox = findBinary("bearerbox");
  const smsbox = findBinary("smsbox");
  return bearerbox && smsbox ? { bearerbox, smsbox } : undefined;
}

/** Kannel's binaries, installed with apt-get (Debian's `kannel`) when missing. */
export async function ensureKannel(
  log: (message: string) => void,
  onCleanup: Cleanup,
): Promise<KannelBinaries> {
  const found = findKannel();
  if (found) return found;
  const started = Date.now();
  log("Kannel is not installed: apt-get install -y kannel");
  let outcome = await aptGet(["install", "-y", "kannel"], onCleanup);
  if (outcome !== "ok") {
    log(`apt-get install failed (${outcome}); apt-get update, then again`);
    outcome = await aptGet(["update"], onCleanup);
    if (outcome === "ok") outcome = await aptGet(["install", "-y", "kannel"], onCleanup);
  }
  const installed = findKannel();
  if (!installed) {
    throw new Error(`could not install Kannel (${outcome}); install Debian's kannel package and run again`);
  }
  log(`installed Kannel (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return installed;
}

/** "ok", or what went wrong: the last line apt-get wrote, or the time limit. */
async function aptGet(args: string[], onCleanup: Cleanup): Promise<string> {
  const child = spawn("apt-get", args, {
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      output = (output + chunk).slice(-2_000);
    });
  }
  const timer = setTimeout(() => child.kill("SIGTERM"), APT_SECONDS * 1000);
  try {
    const [code, signal] = (await Promise.race([
      once(child, "exit"),
      once(child, "error").then(([error]) => Promise.reject(error)),
    ])) as [number | null, NodeJS.Signals | null];
    if (code === 0) return "ok";
    const last = output.trim().split("\n").at(-1) ?? "";
    return signal ? `apt-get ${args[0]} stopped by ${signal}` : `apt-get ${args[0]}: ${last}`;
  } catch (error) {
    return `apt-get ${args[0]}: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// Configuration and start-up

interface KannelSetup {
  adminPort: number;
  adminPassword: string;
  smsboxPort: number;
  sendsmsPort: number;
  username: string;
  password: string;
  storeFile: string;
  smscPort: number;
  smscCredentials: { systemId: string; password: string };
}

function kannelConfig(s: KannelSetup): string {
  return `# bench/kannel.ts: bearerbox and smsbox on loopback for one run of the benchmark.
# No log-file and no access-log: the consoles, at -v 2 (warnings and errors), are the only logs.

group = core
admin-port = ${s.adminPort}
admin-interface = 127.0.0.1
admin-password = ${s.adminPassword}
admin-allow-ip = "127.0.0.1"
smsbox-port = ${s.smsboxPort}
smsbox-interface = 127.0.0.1
box-allow-ip = "127.0.0.1"
dlr-storage = internal
store-type = file
store-location = "${s.storeFile}"

group = smsc
smsc = smpp
smsc-id = bench
host = 127.0.0.1
port = ${s.smscPort}
transceiver-mode = true
smsc-username = "${s.smscCredentials.systemId}"
smsc-password = "${s.smscCredentials.password}"
# Kannel refuses an SMPP connection without a system-type.
system-type = "VMA"
max-pending-submits = ${MAX_PENDING_SUBMITS}

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${s.smsboxPort}
sendsms-port = ${s.sendsmsPort}
sendsms-interface = 127.0.0.1

group = sendsms-user
username = ${s.username}
password = ${s.password}
`;
}

interface KannelStatus {
  version: string;
  smscOnline: boolean;
  smsboxes: number;
  /** Messages queued in bearerbox, plus those in the store (not yet answered by the SMSC). */
  queued: number;
  /** Messages Kannel counts as sent to the SMSC. */
  sent: number;
}

/** Reads bearerbox's status.xml. */
async function readStatus(adminUrl: string): Promise<KannelStatus> {
  const response = await fetch(adminUrl, { signal: AbortSignal.timeout(STATUS_TIMEOUT_MS) });
  const xml = await response.text();
  if (response.status !== 200) throw new Error(`status page answered ${response.status}`);
  const number = (pattern: RegExp, text = xml) => Number(pattern.exec(text)?.[1] ?? 0);
  const gatewaySms = /<sms>\s*<received>[\s\S]*?<\/received>\s*<sent>([\s\S]*?)<\/sent>/.exec(xml)?.[1] ?? "";
  const smscs = [...xml.slice(xml.indexOf("<smscs>")).matchAll(/<smsc>([\s\S]*?)<\/smsc>/g)].map(
    (match) => match[1] ?? "",
  );
  const smscQueued = smscs.reduce((sum, smsc) => sum + number(/<queued>(\d+)<\/queued>/, smsc), 0);
  return {
    version: /bearerbox version `([^']+)'/.exec(xml)?.[1] ?? "unknown",
    smscOnline: smscs.length > 0 && smscs.every((smsc) => /<status>online/.test(smsc)),
    smsboxes: (xml.match(/<type>smsbox<\/type>/g) ?? []).length,
    queued:
      number(/<queued>(\d+)<\/queued>/, gatewaySms) +
      smscQueued +
      Math.max(0, number(/<storesize>(-?\d+)<\/storesize>/)),
    sent: number(/<total>(\d+)<\/total>/, gatewaySms),
  };
}

interface RunningKannel {
  adminUrl: string;
  sendsmsUrl: string;
  username: string;
  password: string;
  bearerbox: BoxProcess;
  smsbox: BoxProcess;
}

async function startKannel(options: KannelRunOptions): Promise<RunningKannel> {
  const folder = mkdtempSync(join(os.tmpdir(), "dakiya-bench-kannel-"));
  options.onCleanup(() => rmSync(folder, { recursive: true, force: true }));
  const setup: KannelSetup = {
    adminPort: await options.freePort(),
    adminPassword: randomBytes(12).toString("hex"),
    smsboxPort: await options.freePort(),
    sendsmsPort: await options.freePort(),
    username: "bench",
    password: randomBytes(12).toString("hex"),
    storeFile: join(folder, "kannel.store"),
    smscPort: options.smsc.port,
    smscCredentials: options.smscCredentials,
  };
  const configFile = join(folder, "kannel.conf");
  writeFileSync(configFile, kannelConfig(setup));
  // An empty store to start from: without one, bearerbox logs errors for each file it looks for.
  writeFileSync(setup.storeFile, "");
  const adminUrl = `http://127.0.0.1:${setup.adminPort}/status.xml?password=${setup.adminPassword}`;
  const sendsmsUrl = `http://127.0.0.1:${setup.sendsmsPort}`;
  const deadline = Date.now() + options.readySeconds * 1000;

  const bearerbox = options.startProcess("bearerbox", options.binaries.bearerbox, ["-v", "2", configFile]);
  options.onCleanup(() => bearerbox.stop());
  // smsbox gives up at once when bearerbox is not listening yet: it starts once the SMSC is bound.
  await waitFor("bearerbox bound to the SMSC", deadline, [bearerbox], async () => {
    return (await readStatus(adminUrl)).smscOnline;
  });
  const smsbox = options.startProcess("smsbox", options.binaries.smsbox, ["-v", "2", configFile]);
  options.onCleanup(() => smsbox.stop());
  await waitFor("smsbox connected and answering sendsms", deadline, [bearerbox, smsbox], async () => {
    if ((await readStatus(adminUrl)).smsboxes === 0) return false;
    // Without credentials: any answer shows the port is open.
    const response = await fetch(`${sendsmsUrl}/cgi-bin/sendsms`, { signal: AbortSignal.timeout(1_000) });
    await response.text();
    return true;
  });
  return { adminUrl, sendsmsUrl, username: setup.username, password: setup.password, bearerbox, smsbox };
}

/** Polls `ready` every 100 ms until it answers true; throws past the deadline or if a box exits. */
async function waitFor(
  what: string,
  deadline: number,
  boxes: BoxProcess[],
  ready: () => Promise<boolean>,
): Promise<void> {
  let last = "not yet";
  while (Date.now() < deadline) {
    const gone = boxes.find((box) => box.exited);
    if (gone) {
      const lines = gone.logTail.slice(-3).join(" / ") || "no output";
      throw new Error(`Kannel exited with ${gone.exitCode ?? gone.signal} before ${what}: ${lines}`);
    }
    try {
      if (await ready()) return;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  const lastLines = boxes.map((box) => box.logTail.at(-1)).filter(Boolean);
  throw new Error(`Kannel: no ${what} in time (${[last, ...lastLines].join(" / ")})`);
}

// ---------------------------------------------------------------------------------------------
// The load

/** Starts Kannel, loads its sendsms like sms-live-smpp, waits for its queue to empty, stops it. */
export async function runKannelScenario(options: KannelRunOptions): Promise<KannelResult> {
  const { smsc, log } = options;
  const started = Date.now();
  const kannel = await startKannel(options);
  const { version } = await readStatus(kannel.adminUrl);
  log(`Kannel ${version} is up, bound to its own SMSC on port ${smsc.port} (${ms(started)})`);

  const statusCodes: Record<string, number> = {};
  const errorBodies: string[] = [];
  const recipients = options.recipientsPerRequest ?? 1;
  let sequence = 0;
  let acceptedTotal = 0;
  const credentials = `username=${kannel.username}&password=${kannel.password}`;
  const load = (seconds: number) =>
    autocannon({
      url: kannel.sendsmsUrl,
      connections: options.connections,
      duration: seconds,
      sampleInt: 100,
      timeout: 10,
      requests: [
        {
          method: "GET",
          setupRequest: (request: autocannon.Request) => {
            const first = sequence + 1;
            sequence += recipients;
            const to = Array.from({ length: recipients }, (_, i) => options.destination(first + i)).join(" ");
            const query = `${credentials}&from=${encodeURIComponent(options.sender)}&to=${encodeURIComponent(to)}&text=${encodeURIComponent(options.text(first))}`;
            return { ...request, path: `/cgi-bin/sendsms?${query}` };
          },
          onResponse: (status: number, body: string) => {
            statusCodes[status] = (statusCodes[status] ?? 0) + 1;
            if (status >= 200 && status <= 299) acceptedTotal += recipients;
            else if (errorBodies.length < 5) errorBodies.push(`${status} ${body.slice(0, 300)}`);
          },
        },
      ],
    });
  const queued = async () => {
    try {
      return (await readStatus(kannel.adminUrl)).queued;
    } catch {
      return null;
    }
  };
  const waitForEmptyQueue = async (seconds: number) => {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      if ((await queued()) === 0) return true;
      if (Date.now() >= deadline) return false;
      await sleep(100);
    }
  };

  log(`kannel-sendsms: ${options.warmupSeconds} s warm-up, ${options.connections} connections`);
  await load(options.warmupSeconds);
  if (!(await waitForEmptyQueue(options.warmupDrainSeconds)))
    log(`note: Kannel had not sent the warm-up's messages within ${options.warmupDrainSeconds} s`);
  for (const code of Object.keys(statusCodes)) delete statusCodes[code];
  errorBodies.length = 0;

  log(`load: ${options.loadSeconds} s, ${options.connections} connections, GET /cgi-bin/sendsms on Kannel`);
  const timeline: KannelResult["timeline"] = [];
  const submitsAtStart = smsc.submits;
  const cpuAtStart = [kannel.bearerbox.cpuSeconds(), kannel.smsbox.cpuSeconds()] as const;
  const loadStart = Date.now();
  const record = (kannelQueued: number | null) =>
    timeline.push({
      t_s: round((Date.now() - loadStart) / 1000, 1),
      smsc_submits: smsc.submits - submitsAtStart,
      kannel_queued: kannelQueued,
    });
  const tick = setInterval(() => void queued().then(record), 1_000);
  let result: autocannon.Result;
  try {
    result = await load(options.loadSeconds);
  } finally {
    clearInterval(tick);
  }
  const loadEnd = Date.now();
  const loadSeconds = (loadEnd - loadStart) / 1000;
  const submitsAtLoadEnd = smsc.submits;
  const cpu = [
    kannel.bearerbox.cpuSeconds() - cpuAtStart[0],
    kannel.smsbox.cpuSeconds() - cpuAtStart[1],
  ] as const;
  const queuedAtLoadEnd = (await queued()) ?? -1;
  record(queuedAtLoadEnd);

  log(`load done; waiting up to ${options.drainSeconds} s for Kannel's queue (${queuedAtLoadEnd}) to empty`);
  const drained = await waitForEmptyQueue(options.drainSeconds);
  const drainedAt = Date.now();
  const cpuUntilDrained =
    kannel.bearerbox.cpuSeconds() - cpuAtStart[0] + (kannel.smsbox.cpuSeconds() - cpuAtStart[1]);
  // Submits still on the wire when the queue emptied are answered within moments.
  await sleep(200);
  const status = await readStatus(kannel.adminUrl).catch(() => undefined);
  record(status?.queued ?? null);
  const lastSubmitAt = smsc.lastSubmitAt ?? loadStart;
  const submitsUntilDrained = smsc.submits - submitsAtStart;
  const peaks = [kannel.bearerbox.peakRssMb(), kannel.smsbox.peakRssMb()] as const;
  const consoleTail = [...kannel.bearerbox.logTail.slice(-5), ...kannel.smsbox.logTail.slice(-5)];
  // smsbox first, so that it does not try to reconnect to a bearerbox going down.
  await kannel.smsbox.stop();
  await kannel.bearerbox.stop();

  const accepted = result["2xx"];
  return {
    scenario: recipients > 1 ? MULTI_SCENARIO : SCENARIO,
    cpu: cpuPerOperation({
      operation: "message",
      operations: accepted * recipients,
      cpuSeconds: cpuUntilDrained,
      tailSeconds: (drainedAt - loadEnd) / 1000,
      tailDone: drained,
    }),
    description:
      `GET /cgi-bin/sendsms on Kannel ${version} (bearerbox and smsbox with -v 2, store-type file), ` +
      (recipients > 1
        ? `${recipients} space-separated recipients a request, the same sender and distinct destinations as sms-batch (one text a request), submitted over SMPP `
        : "the same sender, text and distinct destinations as sms-live-smpp, submitted over SMPP ") +
      `(max-pending-submits ${MAX_PENDING_SUBMITS}) to a loopback SMSC of its own that answers at once`,
    run_at: new Date(loadStart).toISOString(),
    machine: options.machine,
    settings: {
      kannel: version,
      store_type: "file",
      max_pending_submits: MAX_PENDING_SUBMITS,
      recipients_per_request: recipients,
      transceiver_mode: "true",
      console_log_level: "2 (warnings)",
    },
    load_seconds: round(loadSeconds, 2),
    connections: options.connections,
    warmup_seconds: options.warmupSeconds,
    http: {
      requests_completed: result.requests.total,
      accepted_2xx: accepted,
      recipients_per_request: recipients,
      accepted_per_s: round((accepted * recipients) / loadSeconds, 0),
      latency_ms: latencySummary(result),
      non_2xx: result.non2xx,
      status_codes: statusCodes,
      errors: result.errors,
      timeouts: result.timeouts,
      sample_error_bodies: errorBodies,
    },
    smsc: smscSummary({
      atStart: submitsAtStart,
      atLoadEnd: submitsAtLoadEnd,
      atEnd: submitsAtStart + submitsUntilDrained,
      loadStart,
      loadEnd,
      lastSubmitAt,
    }),
    queue: {
      at_load_end: queuedAtLoadEnd,
      at_end: status?.queued ?? -1,
      drained,
      drained_after_load_s: drained ? round((drainedAt - loadEnd) / 1000, 2) : null,
    },
    kannel: {
      version,
      bearerbox_peak_rss_mb: peaks[0],
      smsbox_peak_rss_mb: peaks[1],
      bearerbox_cpu_percent_during_load: round((100 * cpu[0]) / loadSeconds, 0),
      smsbox_cpu_percent_during_load: round((100 * cpu[1]) / loadSeconds, 0),
      console_tail: consoleTail,
    },
    totals: { accepted_2xx: acceptedTotal, smsc_submits: smsc.submits, kannel_sent: status?.sent ?? -1 },
    dakiya_over_kannel: {
      accepted_per_s: null,
      submit_sm_per_s_during_load: null,
      submit_sm_per_s_until_drained: null,
    },
    timeline,
  };
}

// ---------------------------------------------------------------------------------------------
// The comparison

/** Fills in the Dakiya/Kannel ratios. */
export function compareWithDakiya(kannel: KannelResult, dakiya: DakiyaLiveFigures | undefined): void {
  const ratio = (ours: number | undefined, theirs: number) =>
    ours === undefined || theirs === 0 ? null : round(ours / theirs, 3);
  kannel.dakiya_over_kannel = {
    accepted_per_s: ratio(dakiya?.http.accepted_per_s, kannel.http.accepted_per_s),
    submit_sm_per_s_during_load: ratio(
      dakiya?.smsc.submit_sm_per_s_during_load,
      kannel.smsc.submit_sm_per_s_during_load,
    ),
    submit_sm_per_s_until_drained: ratio(
      dakiya?.smsc.submit_sm_per_s_until_drained,
      kannel.smsc.submit_sm_per_s_until_drained,
    ),
  };
}

/** Dakiya's sms-live-smpp and Kannel side by side, with the ratios. */
export function printKannelReport(
  kannel: KannelResult,
  dakiya: DakiyaLiveFigures | undefined,
  elapsedSeconds: number,
): void {
  const thousands = (n: number) => n.toLocaleString("en-US");
  const ratio = (value: number | null) => (value === null ? "–" : value.toFixed(2));
  const latency = (l: { p50: number; p99: number; max: number }) => `${l.p50} / ${l.p99} / ${l.max}`;
  const k = kannel;
  const d = dakiya;
  const row = (name: string, ours: string | undefined, theirs: string, ratioText = "") =>
    `| ${name} | ${ours ?? "–"} | ${theirs} | ${ratioText} |`;
  const lines = [
    "",
    `Kannel ${k.kannel.version} through sendsms${k.http.recipients_per_request > 1 ? `, ${k.http.recipients_per_request} recipients a request` : ""} (file store, SMPP max-pending-submits ${MAX_PENDING_SUBMITS}), the same load:`,
    "",
    `| metric | ${d?.scenario ?? "sms-live-smpp"} | ${k.scenario} | Dakiya/Kannel |`,
    "|---|---:|---:|---:|",
    row(
      "CPU µs a message, load and drain",
      d && String(d.cpu.us_per_operation ?? "–"),
      `${k.cpu.us_per_operation ?? "–"} (bearerbox + smsbox)`,
      d?.cpu.us_per_operation && k.cpu.us_per_operation
        ? ratio(round(d.cpu.us_per_operation / k.cpu.us_per_operation, 3))
        : "",
    ),
    row(
      "messages accepted/s",
      d && thousands(d.http.accepted_per_s),
      thousands(k.http.accepted_per_s),
      ratio(k.dakiya_over_kannel.accepted_per_s),
    ),
    row(
      "submit_sm/s during the load",
      d && thousands(d.smsc.submit_sm_per_s_during_load),
      thousands(k.smsc.submit_sm_per_s_during_load),
      ratio(k.dakiya_over_kannel.submit_sm_per_s_during_load),
    ),
    row(
      "submit_sm/s until the queue drained",
      d && thousands(d.smsc.submit_sm_per_s_until_drained),
      thousands(k.smsc.submit_sm_per_s_until_drained),
      ratio(k.dakiya_over_kannel.submit_sm_per_s_until_drained),
    ),
    row("latency p50 / p99 / max ms", d && latency(d.http.latency_ms), latency(k.http.latency_ms)),
    row(
      "non-2xx / errors",
      d && `${d.http.non_2xx} / ${d.http.errors}`,
      `${k.http.non_2xx} / ${k.http.errors + k.http.timeouts}`,
    ),
    row(
      "queued at the end of the load / at the end",
      d && `${thousands(d.queue.at_load_end)} / ${d.queue.at_end}`,
      `${thousands(k.queue.at_load_end)} / ${k.queue.at_end}${k.queue.drained ? "" : " (not drained)"}`,
    ),
    row(
      "peak RSS MB",
      d && String(d.server.peak_rss_mb),
      `${k.kannel.bearerbox_peak_rss_mb} + ${k.kannel.smsbox_peak_rss_mb}`,
    ),
    row(
      "CPU during the load",
      d && `${d.server.cpu_percent_during_load}%`,
      `${k.kannel.bearerbox_cpu_percent_during_load}% + ${k.kannel.smsbox_cpu_percent_during_load}%`,
    ),
    "",
    `Kannel: ${thousands(k.totals.accepted_2xx)} messages accepted by sendsms (2xx), warm-up included (requests in flight ` +
      `when a load stops are sent but not counted); its SMSC answered ${thousands(k.totals.smsc_submits)} ` +
      `submit_sm, Kannel counted ${thousands(k.totals.kannel_sent)} sent.`,
    `Results in bench/results/latest.json; the run took ${round(elapsedSeconds, 1)} s.`,
  ];
  if (k.http.sample_error_bodies.length > 0)
    lines.push(`Sample non-2xx from Kannel: ${k.http.sample_error_bodies.join(" | ")}`);
  lines.push("");
  process.stdout.write(lines.join("\n"));
}

// ---------------------------------------------------------------------------------------------

function ms(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
