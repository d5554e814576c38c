// `npm run bench`: Dakiya under load on loopback, side by side with a bare Fastify route. Sets up
// an account on a fresh database (SQLite in a temporary folder, or with --db postgres a new
// PostgreSQL database that is dropped at the end), starts a lean SMSC (bench/smsc.ts), the bare
// route (bench/bare.ts) and `dakiya serve` as child processes in production mode, and loads them
// with autocannon. Scenarios (all by default; `--scenarios a,b` for some):
//   sms-live-smpp     POST /v2/sms/send with a live key → worker → SMPP submit_sm at the SMSC:
//                     what the API accepted, what reached the SMSC, the queue, the memory
//   otp-send          POST /v2/otp/send with a sandbox key, a distinct number each
//   otp-verify        POST /v2/otp/verify on OTPs created beforehand with known codes: wrong
//                     codes, then the right one, then again on the verified OTP
//   sms-send-sandbox  POST /v2/sms/send with a sandbox key
//   balance           GET /v2/balance with a sandbox key
//   bare              GET /v2/balance on bench/bare.ts (always run with an API scenario: the
//                     ratios are taken against it)
// A benchmark, not a test: nothing here asserts a speed. Results go to bench/results/latest.json.
//
// Options:
//   --db sqlite|postgres  postgres needs TEST_DATABASE_URL or DATABASE_URL (a server on which the
//                         bench may create and drop a database)
//   --scenarios a,b       a subset of the scenarios above
//   --peer kannel         also runs the load of sms-live-smpp (added when not selected) through
//                         Kannel's sendsms, after Dakiya's scenarios, and prints Dakiya/Kannel ratios
//                         (bench/kannel.ts: installs Debian's kannel when missing)
//
// Environment:
//   BENCH_DURATION     load seconds (default 10, at most 20)
//   BENCH_CONNECTIONS  HTTP connections (default 50)
//   BENCH_RECEIPTS=1   the SMSC also sends a DELIVRD receipt 1 s after every submit, and the run
//                      waits for every message to be delivered
//   BENCH_SMSC_NAGLE=1 the SMSC leaves Nagle's algorithm on, as many do (by default it sets
//                      TCP_NODELAY and answers without delay)
//   BENCH_PROFILE=1    runs the server with --cpu-prof and prints where its CPU time went (the
//                      numbers of such a run are a little lower)

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import { createAccount } from "../src/accounts/accounts.js";
import { changeBalance } from "../src/accounts/ledger.js";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { addSender, addTemplate } from "../src/dlt/registry.js";
import { createKey } from "../src/keys/keys.js";
import { createLogger } from "../src/logger.js";
import { updateOtpSettings } from "../src/otp/settings.js";
import { createPostgresDatabase } from "../test/helpers/database.js";
import { type ApiLoadResult, type ApiScenario, runApiLoad, verifyOutcome } from "./api.js";
import {
  compareWithDakiya,
  ensureKannel,
  type KannelBinaries,
  type KannelResult,
  printKannelReport,
  runKannelScenario,
} from "./kannel.js";
import { type BenchSmsc, startBenchSmsc } from "./smsc.js";
import { type LatencySummary, latencySummary, round, type SmscSummary, smscSummary } from "./summary.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS_DIR = join(ROOT, "bench", "results");
const PROFILE_DIR = join(RESULTS_DIR, "profile");

const WARMUP_SECONDS = 2;
const LOAD_SECONDS = envInteger("BENCH_DURATION", 10, 1, 20);
const CONNECTIONS = envInteger("BENCH_CONNECTIONS", 50, 1, 500);
const PROFILE = process.env.BENCH_PROFILE === "1";
const RECEIPT_DELAY_MS = process.env.BENCH_RECEIPTS === "1" ? 1_000 : undefined;
const SMSC_NAGLE = process.env.BENCH_SMSC_NAGLE === "1";
/** After the warm-up, how long the queue may take to empty before the measured load starts anyway. */
const WARMUP_DRAIN_SECONDS = 10;
/** After the load, how long the queue (and with receipts, the receipts) may take to settle. */
const DRAIN_SECONDS = 30;
const READY_SECONDS = 15;
/** The whole run, set-up to clean-up (Kannel's installation apart). */
const RUN_SECONDS = 190;
/** What --peer kannel adds: start-up, warm-up, load, drain and stop. */
const KANNEL_SECONDS = 80;

const API_SCENARIOS = ["otp-send", "otp-verify", "sms-send-sandbox", "balance"] as const;
const ALL_SCENARIOS = ["sms-live-smpp", ...API_SCENARIOS, "bare"] as const;
type ScenarioName = (typeof ALL_SCENARIOS)[number];
const { dialect: DIALECT, scenarios: SELECTED, peer: PEER } = parseArguments(process.argv.slice(2));
const DB_LABEL = DIALECT === "postgres" ? "PostgreSQL" : "SQLite";

const OTP_TEMPLATE_ID = "1107161234567890124";
/** OTPs created with known codes before the otp-verify scenario, one number each, at most… */
const VERIFY_NUMBERS = 10_000;
/** …and for at most this long (OTP sends are slow on PostgreSQL). */
const VERIFY_SETUP_SECONDS = 10;
/**
 * Number i gets (i % VERIFY_WRONG_CYCLE) wrong codes, then the right one, then wrong ones again
 * (answered `already_verified`): a spread of first, second… attempts that succeed.
 */
const VERIFY_WRONG_CYCLE = 6;

const SMSC_CREDENTIALS = { systemId: "bench", password: "benchpw" };
const SENDER = "DAKIYA";
const TEMPLATE_ID = "1107161234567890123";
const TEMPLATE_CONTENT = "Your Dakiya login code is {#var#}. Do not share it with anyone.";
const ENTITY_ID = "1101456789012345678";

// The server's settings. The SMSC of a real carrier grants some tens to hundreds of messages a
// second per bind (SMPP_TPS defaults to 50); the bench sets SMPP_TPS to its maximum, 10,000, so it
// measures Dakiya, not the rate limit.
const SERVER_ENV = {
  NODE_ENV: "production",
  LOG_LEVEL: "warn",
  HOST: "127.0.0.1",
  SMPP_TPS: "10000",
  SMPP_WINDOW: "50",
  WORKER_BATCH_SIZE: "200",
  // OTP limits high enough that the OTP scenarios measure the sends, not the rate limits.
  OTP_MAX_SENDS_PER_NUMBER_PER_HOUR: "10000",
  OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "1000000",
};

interface Machine {
  cpu: string;
  cores: number;
  memory_gb: number;
  node: string;
  platform: string;
}

interface Sample {
  t_s: number;
  queued: number;
  smsc_submits: number;
  receipts_acked?: number;
  rss_mb: number;
}

interface ScenarioResult {
  scenario: string;
  description: string;
  run_at: string;
  machine: Machine;
  settings: Record<string, string | number>;
  load_seconds: number;
  connections: number;
  http: {
    requests_completed: number;
    accepted_202: number;
    accepted_per_s: number;
    latency_ms: LatencySummary;
    non_2xx: number;
    status_codes: Record<string, number>;
    errors: number;
    timeouts: number;
    sample_error_bodies: string[];
  };
  smsc: SmscSummary;
  queue: { at_load_end: number; at_end: number; drained: boolean; drained_after_load_s: number | null };
  /** With BENCH_RECEIPTS=1: DELIVRD receipts the SMSC sent 1 s after each submit. */
  receipts: {
    acked_during_load: number;
    acked_per_s_during_load: number;
    sent: number;
    acked: number;
    /** Messages still `submitted` (a receipt not yet applied) at the end of the load, and at the end. */
    undelivered_at_load_end: number;
    undelivered_at_end: number;
    all_delivered_after_load_s: number | null;
  } | null;
  server: {
    /** Right after it became ready, before any load. */
    idle_rss_mb: number;
    peak_rss_mb: number;
    max_sampled_rss_mb: number;
    cpu_percent_during_load: number;
    /** From the end of the load until the queue was empty. */
    cpu_percent_during_drain: number | null;
    warn_log_lines: number;
    error_log_lines: number;
  };
  bench_process_cpu_percent_during_load: number;
  /** The whole run, warm-up included: what the database and the SMSC ended with. */
  totals: { messages_by_status: Record<string, number>; carrier_parts: number; smsc_submits: number };
  timeline: Sample[];
}

class BenchError extends Error {}

// ---------------------------------------------------------------------------------------------
// Clean-up: everything started registers how to stop it; it runs once, in reverse order, on
// success, on error, on a signal and on the overall time limit.

const cleanups: Array<() => Promise<void> | void> = [];
let cleaning: Promise<void> | undefined;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch {
        // keep going: the remaining steps still need to run
      }
    }
  })();
  return cleaning;
}

let aborting = false;

/** Prints one line, cleans up and exits; the first call wins. */
function abort(message: string, code = 1): void {
  if (aborting) return;
  aborting = true;
  process.stderr.write(`bench: ${message}\n`);
  void cleanUp().finally(() => process.exit(code));
}

/** abort(), and throws to unwind the caller: the process exits once clean-up is done. */
function fail(message: string, code = 1): never {
  abort(message, code);
  throw new BenchError(message);
}

// ---------------------------------------------------------------------------------------------

async function main(kannelBinaries: KannelBinaries | undefined): Promise<void> {
  const started = Date.now();
  const machine = describeMachine();
  // The server runs in production mode, which runs the compiled JavaScript: compile it fresh.
  execFileSync("npx", ["tsc", "-p", join(ROOT, "tsconfig.build.json")], { cwd: ROOT, stdio: "inherit" });
  log(`compiled the server into dist/ (${ms(started)})`);
  const temp = mkdtempSync(join(os.tmpdir(), "dakiya-bench-"));
  cleanups.push(() => rmSync(temp, { recursive: true, force: true }));
  const secret = randomBytes(32).toString("base64url");
  const database = await createBenchDatabase(temp);
  const apiScenarios = API_SCENARIOS.filter((name) => SELECTED.has(name));
  const runBare = SELECTED.has("bare") || apiScenarios.length > 0;
  const runLive = SELECTED.has("sms-live-smpp");
  log(
    `scenarios: ${[...(runLive ? ["sms-live-smpp"] : []), ...apiScenarios, ...(runBare ? ["bare"] : [])].join(", ")}; database: ${DB_LABEL}`,
  );

  const keys = await setUpAccount(database.url, secret);
  log(
    `set up an account, live and sandbox keys, sender ${SENDER}, templates ${TEMPLATE_ID} and ${OTP_TEMPLATE_ID} (OTP) (${ms(started)})`,
  );

  const results: Array<ScenarioResult | ApiScenarioResult> = [];
  const apiResults: ApiScenarioResult[] = [];

  // The bare route first, alone on the machine, as every scenario is.
  let bare: ApiScenarioResult | undefined;
  if (runBare) {
    const port = await freePort();
    const child = startChild("bare", [join(ROOT, "bench", "bare.ts")], {
      HOST: "127.0.0.1",
      PORT: String(port),
    });
    cleanups.push(() => child.stop());
    const bareUrl = `http://127.0.0.1:${port}`;
    await waitForAnswer(bareUrl, "/v2/balance", child);
    log(
      `bare Fastify route up on ${bareUrl}; load: ${WARMUP_SECONDS} s warm-up, ${LOAD_SECONDS} s, ${CONNECTIONS} connections`,
    );
    bare = await runApi(bareUrl, child, machine, {
      name: "bare",
      description:
        "GET /v2/balance on a bare Fastify route (bench/bare.ts) answering the same JSON, nothing behind it",
      method: "GET",
      path: "/v2/balance",
      headers: { authorization: `Bearer ${keys.sandbox}` },
    });
    await child.stop();
  }

  const smsc = runLive
    ? await startBenchSmsc({ ...SMSC_CREDENTIALS, receiptDelayMs: RECEIPT_DELAY_MS, nagle: SMSC_NAGLE })
    : undefined;
  if (smsc) cleanups.push(() => smsc.stop());

  const port = await freePort();
  const server = startDakiya({
    ...SERVER_ENV,
    PORT: String(port),
    DATABASE_URL: database.url,
    DAKIYA_SECRET: secret,
    ...(smsc ? { SMPP_URL: smsc.url } : {}),
  });
  cleanups.push(() => server.stop());
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForReady(baseUrl, server, smsc !== undefined);
  log(
    `dakiya serve is up on ${baseUrl}${smsc ? `, bound to the SMSC on port ${smsc.port}` : ""} (${ms(started)})`,
  );

  if (smsc) {
    const probe = await openQueueProbe(database);
    cleanups.push(() => probe.close());
    const scenario = await runSendScenario({
      baseUrl,
      key: keys.live,
      smsc,
      server,
      queued: probe.queued,
      awaitingReceipt: probe.awaitingReceipt,
      machine,
    });
    const { byStatus, carrierParts } = await probe.totals();
    scenario.totals = {
      messages_by_status: byStatus,
      carrier_parts: carrierParts,
      smsc_submits: smsc.submits,
    };
    // Peak RSS of this scenario: VmHWM now (the API scenarios below start it again).
    scenario.server.peak_rss_mb = server.peakRssMb();
    results.push(scenario);
  }

  const sandboxHeaders = { authorization: `Bearer ${keys.sandbox}`, "content-type": "application/json" };
  if (apiScenarios.includes("otp-verify")) {
    // Before otp-send: every OTP send counts the account's sends of the past hour, so it slows
    // down as they pile up.
    verifyNumbers = await createVerifyOtps(baseUrl, sandboxHeaders);
    log(`created ${verifyNumbers} OTPs with known codes for otp-verify (${ms(started)})`);
    if (verifyNumbers === 0) fail("no OTP could be created for otp-verify");
  }
  for (const name of apiScenarios) {
    if (server.exited) fail(`dakiya serve exited with ${server.exitCode ?? server.signal}`);
    let scenario: ApiScenario;
    if (name === "otp-send") {
      scenario = {
        name,
        description:
          "POST /v2/otp/send with a sandbox key, SMS, a distinct number each (a new OTP, a code generated)",
        method: "POST",
        path: "/v2/otp/send",
        headers: sandboxHeaders,
        body: (n) => JSON.stringify({ to: `+9197${String(n % 100_000_000).padStart(8, "0")}` }),
        outcome: (status) => String(status),
      };
    } else if (name === "otp-verify") {
      const created = verifyNumbers;
      scenario = {
        name,
        description: `POST /v2/otp/verify with a sandbox key on ${created} OTPs made beforehand through the API with known codes, taken in turn: number i gets i % ${VERIFY_WRONG_CYCLE} wrong codes, then the right one, then wrong ones again on the verified OTP`,
        method: "POST",
        path: "/v2/otp/verify",
        headers: sandboxHeaders,
        body: (n) => {
          const index = n % created;
          const pass = Math.floor(n / created);
          const code = pass === index % VERIFY_WRONG_CYCLE ? verifyCode(index) : wrongCode(index);
          return JSON.stringify({ to: verifyNumber(index), code });
        },
        outcome: verifyOutcome,
      };
    } else if (name === "sms-send-sandbox") {
      scenario = {
        name,
        description:
          "POST /v2/sms/send with a sandbox key (one-variable transactional template, a distinct destination each)",
        method: "POST",
        path: "/v2/sms/send",
        headers: sandboxHeaders,
        body: (n) =>
          JSON.stringify({
            to: `+9195${String(n % 100_000_000).padStart(8, "0")}`,
            sender: SENDER,
            template_id: TEMPLATE_ID,
            variables: { var1: String(100_000 + (n % 900_000)) },
            reference: `bench-sandbox-${n}`,
          }),
        outcome: (status) => String(status),
      };
    } else {
      scenario = {
        name,
        description: "GET /v2/balance with a sandbox key",
        method: "GET",
        path: "/v2/balance",
        headers: { authorization: `Bearer ${keys.sandbox}` },
      };
    }
    log(`${name}: ${WARMUP_SECONDS} s warm-up, then ${LOAD_SECONDS} s at ${CONNECTIONS} connections`);
    apiResults.push(await runApi(baseUrl, server, machine, scenario));
  }
  if (bare) apiResults.push(bare);
  const bareRate = bare?.http.requests_per_s;
  for (const result of apiResults) {
    result.ratio_to_bare = bareRate ? round(result.http.requests_per_s / bareRate, 3) : null;
  }

  // The peak over the whole run: each scenario's own peak (VmHWM is started again before each).
  const serverPeak = Math.max(
    server.peakRssMb(),
    ...results.map((r) => r.server.peak_rss_mb),
    ...apiResults.filter((r) => r.scenario !== "bare").map((r) => r.server.peak_rss_mb),
  );
  await server.stop();
  if (server.exitCode !== 0) {
    log(`note: dakiya serve exited with ${server.exitCode ?? server.signal} after SIGTERM`);
  }
  for (const result of results) {
    if ("queue" in result) {
      result.server.warn_log_lines = server.logLines.warn;
      result.server.error_log_lines = server.logLines.error;
    }
  }
  results.push(...apiResults);
  const writeResults = (all: object[]) =>
    writeFileSync(join(RESULTS_DIR, "latest.json"), `${JSON.stringify(all, null, 2)}\n`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeResults(results);
  writeFileSync(join(RESULTS_DIR, "server.log"), server.logTail.join("\n"));

  const live = results.filter((r): r is ScenarioResult => "queue" in r);
  if (live.length > 0) printReport(live, (Date.now() - started) / 1000);
  printApiReport(apiResults, machine, serverPeak, server.logLines, (Date.now() - started) / 1000);
  if (PROFILE) summariseProfile();
  if (kannelBinaries) {
    // Last, on a machine that Dakiya has left, with an SMSC of its own.
    const kannel = await runKannel(kannelBinaries, machine, live[0]);
    writeResults([...results, kannel]);
    printKannelReport(kannel, live[0], (Date.now() - started) / 1000);
  }
}

async function runKannel(
  binaries: KannelBinaries,
  machine: Machine,
  dakiya: ScenarioResult | undefined,
): Promise<KannelResult> {
  const smsc = await startBenchSmsc({ ...SMSC_CREDENTIALS, nagle: SMSC_NAGLE });
  cleanups.push(() => smsc.stop());
  const result = await runKannelScenario({
    binaries,
    smsc,
    smscCredentials: SMSC_CREDENTIALS,
    machine,
    connections: CONNECTIONS,
    warmupSeconds: WARMUP_SECONDS,
    loadSeconds: LOAD_SECONDS,
    warmupDrainSeconds: WARMUP_DRAIN_SECONDS,
    drainSeconds: DRAIN_SECONDS,
    readySeconds: READY_SECONDS,
    sender: SENDER,
    destination: liveDestination,
    text: (n) => TEMPLATE_CONTENT.replace("{#var#}", loginCode(n)),
    freePort,
    startProcess: (name, command, args) => startChild(name, args, {}, command),
    onCleanup: (step) => cleanups.push(step),
    log,
  });
  await smsc.stop();
  compareWithDakiya(result, dakiya);
  return result;
}

interface ApiScenarioResult extends ApiLoadResult {
  scenario: string;
  description: string;
  run_at: string;
  machine: Machine;
  settings: Record<string, string | number>;
  /** 2xx answers per second ÷ the bare route's. */
  ratio_to_bare: number | null;
}

async function runApi(
  baseUrl: string,
  server: DakiyaProcess,
  machine: Machine,
  scenario: ApiScenario,
): Promise<ApiScenarioResult> {
  const runAt = new Date().toISOString();
  const result = await runApiLoad(baseUrl, scenario, server, {
    connections: CONNECTIONS,
    warmupSeconds: WARMUP_SECONDS,
    loadSeconds: LOAD_SECONDS,
  });
  if (server.exited)
    fail(`${scenario.name}: the server exited with ${server.exitCode ?? server.signal} during the load`);
  return {
    scenario: scenario.name,
    description: scenario.description,
    run_at: runAt,
    machine,
    settings:
      scenario.name === "bare"
        ? { NODE_ENV: "production", database: "none" }
        : {
            ...SERVER_ENV,
            database: DIALECT,
            ...(scenario.name === "otp-verify" ? { verify_numbers: verifyNumbers } : {}),
          },
    ratio_to_bare: null,
    ...result,
  };
}

/** The destination of the nth request of sms-live-smpp (and of Kannel's load). */
function liveDestination(n: number): string {
  return `+9198${String(n % 100_000_000).padStart(8, "0")}`;
}

/** The variable of the nth request of sms-live-smpp; Kannel is sent the text it renders. */
function loginCode(n: number): string {
  return String(100_000 + (n % 900_000));
}

/** How many OTPs otp-verify works on (set when they are created). */
let verifyNumbers = 0;

function verifyNumber(index: number): string {
  return `+9196${String(index).padStart(8, "0")}`;
}

function verifyCode(index: number): string {
  return String(100_000 + ((index * 7_919) % 900_000));
}

function wrongCode(index: number): string {
  return String(100_000 + ((index * 7_919 + 1) % 900_000));
}

/** Creates the OTPs of otp-verify through the API, with the caller-supplied codes, 50 at a time. */
async function createVerifyOtps(baseUrl: string, headers: Record<string, string>): Promise<number> {
  let next = 0;
  let created = 0;
  const deadline = Date.now() + VERIFY_SETUP_SECONDS * 1000;
  const worker = async () => {
    for (;;) {
      // Numbers are taken in order, so the OTPs made are those of numbers 0 … created - 1.
      if (Date.now() >= deadline) return;
      const index = next++;
      if (index >= VERIFY_NUMBERS) return;
      const response = await fetch(`${baseUrl}/v2/otp/send`, {
        method: "POST",
        headers,
        body: JSON.stringify({ to: verifyNumber(index), code: verifyCode(index) }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      if (response.status !== 200)
        fail(`creating the OTPs of otp-verify: ${response.status} ${text.slice(0, 300)}`);
      created += 1;
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  return created;
}

// ---------------------------------------------------------------------------------------------
// The database: a SQLite file in the temporary folder, or a new PostgreSQL database.

interface BenchDatabase {
  dialect: "sqlite" | "postgres";
  url: string;
  /** The SQLite file. */
  path?: string;
}

async function createBenchDatabase(temp: string): Promise<BenchDatabase> {
  if (DIALECT === "sqlite") {
    const path = join(temp, "dakiya.db");
    return { dialect: "sqlite", url: `sqlite:${path}`, path };
  }
  const adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!adminUrl) fail("--db postgres needs TEST_DATABASE_URL or DATABASE_URL (a PostgreSQL server)");
  const name = `dakiya_bench_${randomBytes(6).toString("hex")}`;
  const database = await createPostgresDatabase(adminUrl, name);
  cleanups.push(() => database.drop());
  return { dialect: "postgres", url: database.url };
}

/** Queue counts for sms-live-smpp, read synchronously: SQLite directly, PostgreSQL polled every 100 ms. */
interface QueueProbe {
  queued: () => number;
  awaitingReceipt: () => number;
  totals(): Promise<{ byStatus: Record<string, number>; carrierParts: number }>;
  close(): Promise<void>;
}

async function openQueueProbe(database: BenchDatabase): Promise<QueueProbe> {
  if (database.path) {
    const db = new SqliteDatabase(database.path, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    const countStatus = db.prepare<[string], { n: number }>(
      "select count(*) as n from messages where status = ?",
    );
    return {
      queued: () => countStatus.get("queued")?.n ?? 0,
      awaitingReceipt: () => countStatus.get("submitted")?.n ?? 0,
      totals: async () => {
        const statuses = db
          .prepare<[], { status: string; n: number }>(
            "select status, count(*) as n from messages group by status",
          )
          .all();
        return {
          byStatus: Object.fromEntries(statuses.map(({ status, n }) => [status, n])),
          carrierParts:
            db.prepare<[], { n: number }>("select count(*) as n from carrier_messages").get()?.n ?? 0,
        };
      },
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const counts = { queued: 0, submitted: 0 };
  const refresh = async () => {
    const { rows } = await client.query<{ status: string; n: string }>(
      "select status, count(*) as n from messages where status in ('queued', 'submitted') group by status",
    );
    counts.queued = 0;
    counts.submitted = 0;
    for (const row of rows) counts[row.status as "queued" | "submitted"] = Number(row.n);
  };
  await refresh();
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    refresh()
      .catch(() => {})
      .finally(() => {
        polling = false;
      });
  }, 100);
  return {
    queued: () => counts.queued,
    awaitingReceipt: () => counts.submitted,
    totals: async () => {
      const statuses = await client.query<{ status: string; n: string }>(
        "select status, count(*) as n from messages group by status",
      );
      const parts = await client.query<{ n: string }>("select count(*) as n from carrier_messages");
      return {
        byStatus: Object.fromEntries(statuses.rows.map(({ status, n }) => [status, Number(n)])),
        carrierParts: Number(parts.rows[0]?.n ?? 0),
      };
    },
    close: async () => {
      clearInterval(timer);
      await client.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Set-up through the service functions, on a context of its own that is closed before the server
// starts (the server migrates the same database again, which is a no-op).

async function setUpAccount(databaseUrl: string, secret: string): Promise<{ live: string; sandbox: string }> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, DAKIYA_SECRET: secret, LOG_LEVEL: "warn" });
  const ctx = await createContext(config, { log: createLogger("warn") });
  try {
    const account = await createAccount(ctx, { email: "bench@example.com", password: "bench passphrase" });
    for (const environment of ["live", "sandbox"] as const) {
      await changeBalance(ctx, {
        accountId: account.id,
        environment,
        amount: 10_000_000 * 10_000, // ₹1 crore: 40 million messages at ₹0.25
        reason: "credits_added",
        reference: "bench",
      });
    }
    const live = await createKey(ctx, { accountId: account.id, environment: "live", label: "bench" });
    const sandbox = await createKey(ctx, { accountId: account.id, environment: "sandbox", label: "bench" });
    await addSender(ctx, account.id, SENDER);
    await addTemplate(ctx, {
      accountId: account.id,
      templateId: TEMPLATE_ID,
      entityId: ENTITY_ID,
      name: "login-code",
      category: "transactional",
      senders: [SENDER],
      content: TEMPLATE_CONTENT,
    });
    await addTemplate(ctx, {
      accountId: account.id,
      templateId: OTP_TEMPLATE_ID,
      entityId: ENTITY_ID,
      name: "otp",
      category: "transactional",
      senders: [SENDER],
      content: "{#otp#} is your Dakiya verification code. Do not share it with anyone.",
    });
    for (const environment of ["live", "sandbox"] as const) {
      await updateOtpSettings(ctx, account.id, environment, {
        sms_template_id: OTP_TEMPLATE_ID,
        sms_sender: SENDER,
        max_attempts: 20,
      });
    }
    return { live: live.secret, sandbox: sandbox.secret };
  } finally {
    await ctx.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The server as a child process.

interface DakiyaProcess {
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

function startDakiya(env: Record<string, string>): DakiyaProcess {
  const execArgv = PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  if (PROFILE) {
    rmSync(PROFILE_DIR, { recursive: true, force: true });
    mkdirSync(PROFILE_DIR, { recursive: true });
  }
  return startChild("dakiya serve", [...execArgv, join(ROOT, "bin", "dakiya.js"), "serve"], env);
}

/** A child process: Node.js (Dakiya, or the bare route with tsx's loader) unless `command` says otherwise. */
function startChild(
  name: string,
  args: string[],
  env: Record<string, string>,
  command = process.execPath,
): DakiyaProcess {
  const child: ChildProcess = spawn(command, name === "bare" ? ["--import", "tsx", ...args] : args, {
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

async function waitForReady(baseUrl: string, server: DakiyaProcess, smpp: boolean): Promise<void> {
  const deadline = Date.now() + READY_SECONDS * 1000;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (server.exited) {
      const lastLine = server.logTail.at(-1) ?? "no output";
      fail(`dakiya serve exited with ${server.exitCode ?? server.signal} before it was ready: ${lastLine}`);
    }
    try {
      const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(1_000) });
      const body = (await response.json()) as { carriers?: Record<string, { bound?: boolean }> };
      if (response.status === 200 && (!smpp || body.carriers?.["sms:smpp"]?.bound === true)) return;
      last = `/readyz answered ${response.status} ${JSON.stringify(body)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  fail(`dakiya serve was not ready${smpp ? " with an SMPP bind" : ""} within ${READY_SECONDS} s (${last})`);
}

async function waitForAnswer(baseUrl: string, path: string, child: DakiyaProcess): Promise<void> {
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

// ---------------------------------------------------------------------------------------------
// The scenario: live SMS sends, one distinct destination each.

async function runSendScenario(options: {
  baseUrl: string;
  key: string;
  smsc: BenchSmsc;
  server: DakiyaProcess;
  queued: () => number;
  awaitingReceipt: () => number;
  machine: Machine;
}): Promise<ScenarioResult> {
  const { baseUrl, key, smsc, server, queued, awaitingReceipt, machine } = options;
  const receipts = RECEIPT_DELAY_MS !== undefined;
  /** Nothing left to do: the queue is empty and, with receipts, every receipt is in. */
  const settled = () =>
    queued() === 0 &&
    (!receipts ||
      (smsc.receiptsPending === 0 && smsc.receiptsAcked === smsc.receiptsSent && awaitingReceipt() === 0));
  const idleRss = server.rssMb();
  const statusCodes: Record<string, number> = {};
  const errorBodies: string[] = [];
  let sequence = 0;
  const load = (seconds: number) =>
    autocannon({
      url: baseUrl,
      connections: CONNECTIONS,
      duration: seconds,
      // Checks for the end of the run every 100 ms, not every second: the load lasts `seconds`.
      sampleInt: 100,
      timeout: 10,
      requests: [
        {
          method: "POST",
          path: "/v2/sms/send",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          setupRequest: (request) => {
            sequence += 1;
            return {
              ...request,
              body: JSON.stringify({
                to: liveDestination(sequence),
                sender: SENDER,
                template_id: TEMPLATE_ID,
                variables: { var1: loginCode(sequence) },
                reference: `bench-${sequence}`,
              }),
            };
          },
          onResponse: (status, body) => {
            statusCodes[status] = (statusCodes[status] ?? 0) + 1;
            if (status !== 202 && errorBodies.length < 5) errorBodies.push(`${status} ${body.slice(0, 300)}`);
          },
        },
      ],
    });

  let maxSampledRss = 0;
  const sampler = setInterval(() => {
    maxSampledRss = Math.max(maxSampledRss, server.rssMb());
  }, 200);
  cleanups.push(() => clearInterval(sampler));

  log(`warm-up: ${WARMUP_SECONDS} s, ${CONNECTIONS} connections`);
  await load(WARMUP_SECONDS);
  // Requests still in flight when autocannon stops are finished by the server all the same.
  await sleep(500);
  const warmupDrained = await waitUntil(settled, WARMUP_DRAIN_SECONDS);
  if (!warmupDrained)
    log(`note: the warm-up's messages were not all through within ${WARMUP_DRAIN_SECONDS} s`);
  for (const code of Object.keys(statusCodes)) delete statusCodes[code];
  errorBodies.length = 0;

  log(`load: ${LOAD_SECONDS} s, ${CONNECTIONS} connections, POST /v2/sms/send with a live key`);
  const timeline: Sample[] = [];
  const submitsAtStart = smsc.submits;
  const receiptsAtStart = smsc.receiptsAcked;
  const sample = (): Sample => ({
    t_s: round((Date.now() - loadStart) / 1000, 1),
    queued: queued(),
    smsc_submits: smsc.submits - submitsAtStart,
    ...(receipts ? { receipts_acked: smsc.receiptsAcked - receiptsAtStart } : {}),
    rss_mb: round(server.rssMb(), 1),
  });
  const cpuAtStart = server.cpuSeconds();
  const benchCpuAtStart = process.cpuUsage();
  const loadStart = Date.now();
  const tick = setInterval(() => timeline.push(sample()), 1_000);
  let result: autocannon.Result;
  try {
    result = await load(LOAD_SECONDS);
  } finally {
    clearInterval(tick);
  }
  const loadEnd = Date.now();
  const loadSeconds = (loadEnd - loadStart) / 1000;
  const submitsAtLoadEnd = smsc.submits;
  const receiptsAtLoadEnd = smsc.receiptsAcked;
  const undeliveredAtLoadEnd = receipts ? awaitingReceipt() : 0;
  const serverCpu = server.cpuSeconds() - cpuAtStart;
  const benchCpu = process.cpuUsage(benchCpuAtStart);
  const queuedAtLoadEnd = queued();
  if (server.exited) fail(`dakiya serve exited with ${server.exitCode ?? server.signal} during the load`);

  log(`load done; waiting up to ${DRAIN_SECONDS} s for the queue (${queuedAtLoadEnd} messages) to empty`);
  const drainDeadline = Date.now() + DRAIN_SECONDS * 1000;
  let lastSample = Date.now();
  const sampled = (done: () => boolean) => () => {
    const finished = done();
    if (finished || Date.now() - lastSample >= 1_000) {
      lastSample = Date.now();
      timeline.push(sample());
    }
    return finished;
  };
  const cpuAtLoadEnd = server.cpuSeconds();
  const drained = await waitUntil(
    sampled(() => queued() === 0),
    (drainDeadline - Date.now()) / 1000,
  );
  const drainedAt = Date.now();
  const drainCpu = server.cpuSeconds() - cpuAtLoadEnd;
  let allDeliveredAt: number | undefined;
  if (receipts) {
    log("waiting for the receipts");
    if (await waitUntil(sampled(settled), Math.max(0, (drainDeadline - Date.now()) / 1000))) {
      allDeliveredAt = Date.now();
    }
  }
  // Submits still on the wire when the last message left the queue are answered within moments.
  await sleep(200);
  const queuedAtEnd = queued();
  const lastSubmitAt = smsc.lastSubmitAt ?? loadStart;
  const submitsUntilDrained = smsc.submits - submitsAtStart;
  const accepted = result.statusCodeStats?.["202"]?.count ?? statusCodes["202"] ?? 0;

  return {
    scenario: `sms-live-smpp${receipts ? "-receipts" : ""}${SMSC_NAGLE ? "-nagle" : ""}`,
    description:
      "POST /v2/sms/send with a live key (one-variable transactional template, a distinct destination " +
      "each), queued in " +
      DB_LABEL +
      " and submitted over SMPP to a loopback SMSC that answers at once" +
      (SMSC_NAGLE ? " (Nagle's algorithm on)" : " (TCP_NODELAY)") +
      (receipts ? ", and sends a DELIVRD receipt 1 s after each submit" : ""),
    run_at: new Date(loadStart).toISOString(),
    machine,
    settings: {
      ...SERVER_ENV,
      database: DIALECT,
      warmup_seconds: WARMUP_SECONDS,
      smsc_tcp_nodelay: SMSC_NAGLE ? "no" : "yes",
    },
    load_seconds: round(loadSeconds, 2),
    connections: CONNECTIONS,
    http: {
      requests_completed: result.requests.total,
      accepted_202: accepted,
      accepted_per_s: round(accepted / loadSeconds, 0),
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
      at_end: queuedAtEnd,
      drained,
      drained_after_load_s: drained ? round((drainedAt - loadEnd) / 1000, 2) : null,
    },
    receipts: receipts
      ? {
          acked_during_load: receiptsAtLoadEnd - receiptsAtStart,
          acked_per_s_during_load: round((receiptsAtLoadEnd - receiptsAtStart) / loadSeconds, 0),
          sent: smsc.receiptsSent,
          acked: smsc.receiptsAcked,
          undelivered_at_load_end: undeliveredAtLoadEnd,
          undelivered_at_end: awaitingReceipt(),
          all_delivered_after_load_s:
            allDeliveredAt === undefined ? null : round((allDeliveredAt - loadEnd) / 1000, 2),
        }
      : null,
    server: {
      idle_rss_mb: idleRss,
      peak_rss_mb: 0, // VmHWM, read just before the server is stopped
      max_sampled_rss_mb: round(maxSampledRss, 1),
      cpu_percent_during_load: round((100 * serverCpu) / loadSeconds, 0),
      cpu_percent_during_drain:
        drainedAt - loadEnd >= 1_000 ? round((100 * drainCpu) / ((drainedAt - loadEnd) / 1000), 0) : null,
      warn_log_lines: 0,
      error_log_lines: 0,
    },
    bench_process_cpu_percent_during_load: round(
      (100 * (benchCpu.user + benchCpu.system)) / 1e6 / loadSeconds,
      0,
    ),
    totals: { messages_by_status: {}, carrier_parts: 0, smsc_submits: 0 },
    timeline,
  };
}

/** Polls `done` every 100 ms until it holds (true) or `seconds` have passed (false). */
async function waitUntil(done: () => boolean, seconds: number): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------
// Report

function printReport(results: ScenarioResult[], elapsedSeconds: number): void {
  const [first] = results;
  if (!first) return;
  const m = first.machine;
  const rows: Array<[string, (r: ScenarioResult) => string]> = [
    ["load", (r) => `${r.load_seconds} s, ${r.connections} connections`],
    ["HTTP 202 accepted/s", (r) => String(r.http.accepted_per_s)],
    [
      "latency p50 / p99 / p99.9 / max",
      (r) => {
        const l = r.http.latency_ms;
        return `${l.p50} / ${l.p99} / ${l.p99_9} / ${l.max} ms`;
      },
    ],
    ["non-2xx / errors", (r) => `${r.http.non_2xx} / ${r.http.errors}`],
    ["submit_sm/s during the load", (r) => String(r.smsc.submit_sm_per_s_during_load)],
    ["submit_sm/s until the queue drained", (r) => String(r.smsc.submit_sm_per_s_until_drained)],
    ["queue at the end of the load", (r) => String(r.queue.at_load_end)],
    [
      "queue at the end",
      (r) =>
        `${r.queue.at_end}${r.queue.drained ? ` (empty ${r.queue.drained_after_load_s} s after the load)` : " (not drained)"}`,
    ],
    ...(results.some((r) => r.receipts)
      ? ([
          ["receipts applied/s during the load", (r) => String(r.receipts?.acked_per_s_during_load ?? "–")],
          [
            "all delivered",
            (r) =>
              r.receipts?.all_delivered_after_load_s == null
                ? `no (${r.receipts?.undelivered_at_end ?? "–"} still submitted)`
                : `${r.receipts.all_delivered_after_load_s} s after the load`,
          ],
        ] satisfies Array<[string, (r: ScenarioResult) => string]>)
      : []),
    ["server RSS idle / peak", (r) => `${r.server.idle_rss_mb} / ${r.server.peak_rss_mb} MB`],
    [
      "server CPU during the load / the drain",
      (r) => `${r.server.cpu_percent_during_load}% / ${r.server.cpu_percent_during_drain ?? "–"}%`,
    ],
  ];
  const lines = [
    "",
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gb} GB, Node ${m.node} (${m.platform})`,
    "",
    `| metric | ${results.map((r) => r.scenario).join(" | ")} |`,
    `|---|${results.map(() => "---").join("|")}|`,
    ...rows.map(([name, value]) => `| ${name} | ${results.map(value).join(" | ")} |`),
    "",
  ];
  const { totals } = first;
  lines.push(
    `Messages by status at the end (warm-up included): ${Object.entries(totals.messages_by_status)
      .map(([status, n]) => `${status} ${n}`)
      .join(
        ", ",
      )}; carrier parts recorded ${totals.carrier_parts}, submit_sm answered by the SMSC ${totals.smsc_submits}.`,
  );
  if (totals.smsc_submits !== totals.carrier_parts) {
    lines.push(
      `Note: the SMSC answered ${totals.smsc_submits} submits but Dakiya recorded ${totals.carrier_parts} parts.`,
    );
  }
  if (first.http.non_2xx > 0)
    lines.push(`Sample non-202 answers: ${first.http.sample_error_bodies.join(" | ")}`);
  if (first.server.warn_log_lines + first.server.error_log_lines > 0) {
    lines.push(
      `Server logged ${first.server.warn_log_lines} warnings and ${first.server.error_log_lines} errors (bench/results/server.log).`,
    );
  }
  lines.push(`Results in bench/results/latest.json; the run took ${round(elapsedSeconds, 1)} s.`, "");
  process.stdout.write(lines.join("\n"));
}

/** Self time by function and by module from the server's .cpuprofile (BENCH_PROFILE=1). */
function summariseProfile(): void {
  const files = readdirSync(PROFILE_DIR)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(PROFILE_DIR, f))
    // The main thread's profile is by far the largest (tsx's loader thread writes one too).
    .sort((a, b) => statSync(b).size - statSync(a).size);
  const [file] = files;
  if (!file) {
    log("no .cpuprofile was written (the server must exit cleanly for one)");
    return;
  }
  interface ProfileNode {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }
  const profile = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") return;
    total += delta;
    const where = moduleOf(url, functionName);
    const name = `${functionName || "(anonymous)"} ${where}${url ? `:${lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byModule.set(where, (byModule.get(where) ?? 0) + delta);
  });
  const top = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`);
  const summary = [
    `CPU profile of the server (${file}), ${(total / 1e6).toFixed(1)} s on CPU, idle excluded:`,
    "By module (self time):",
    ...top(byModule, 15),
    "By function (self time):",
    ...top(byFunction, 20),
    "",
  ].join("\n");
  writeFileSync(join(RESULTS_DIR, "profile-summary.txt"), summary);
  process.stdout.write(`\n${summary}`);
}

function moduleOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  // better-sqlite3 runs statements in C++ called from these two frames, so their self time is SQLite's.
  if (url.endsWith("kysely/dist/esm/dialect/sqlite/sqlite-driver.js") && functionName === "executeQuery") {
    return "SQLite: running statements (better-sqlite3, called by kysely)";
  }
  if (url.endsWith("better-sqlite3/lib/methods/wrappers.js") && functionName === "prepare") {
    return "SQLite: preparing statements (better-sqlite3)";
  }
  const path = url.replace(/^file:\/\//, "");
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg?.[1]) return pkg[1];
  if (path.startsWith("node:")) return path;
  if (path.startsWith(ROOT)) return path.slice(ROOT.length);
  return path;
}

/** The API scenarios and the bare route: one row each, and the targets. */
function printApiReport(
  results: ApiScenarioResult[],
  machine: Machine,
  serverPeakMb: number,
  logLines: { warn: number; error: number },
  elapsedSeconds: number,
): void {
  if (results.length === 0) return;
  const m = machine;
  const thousands = (n: number) => n.toLocaleString("en-US");
  const lines = [
    "",
    `API scenarios on ${DB_LABEL}: ${WARMUP_SECONDS} s warm-up, then ${LOAD_SECONDS} s at ${CONNECTIONS} connections each.`,
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gb} GB, Node ${m.node} (${m.platform})`,
    "",
    "| scenario | req/s (2xx) | ratio to bare | p50 / p99 / max ms | non-2xx | errors | peak RSS MB |",
    "|---|---:|---:|---|---:|---:|---:|",
    ...results.map((r) => {
      const l = r.http.latency_ms;
      return `| ${r.scenario} | ${thousands(r.http.requests_per_s)} | ${r.ratio_to_bare === null ? "–" : r.ratio_to_bare.toFixed(2)} | ${l.p50} / ${l.p99} / ${l.max} | ${r.http.non_2xx} | ${r.http.errors + r.http.timeouts} | ${r.server.peak_rss_mb} |`;
    }),
    "",
  ];
  for (const r of results) {
    if (r.http.outcomes) {
      const outcomes = Object.entries(r.http.outcomes)
        .map(([key, n]) => `${key} ${thousands(n)}`)
        .join(", ");
      lines.push(`${r.scenario} answers: ${outcomes}`);
    }
    if (r.http.sample_error_bodies.length > 0) {
      lines.push(`${r.scenario} sample non-2xx: ${r.http.sample_error_bodies.join(" | ")}`);
    }
  }
  const byName = new Map(results.map((r) => [r.scenario, r]));
  const target = (name: string, check: (r: ApiScenarioResult) => [boolean, string]) => {
    const r = byName.get(name);
    if (!r) return;
    const [met, figure] = check(r);
    lines.push(`  ${met ? "met    " : "not met"}  ${name}: ${figure}`);
  };
  lines.push("", "Targets (absolute numbers differ by machine; ratios are what compare):");
  target("otp-send", (r) => [(r.ratio_to_bare ?? 0) >= 0.4, `${r.ratio_to_bare} × bare (target ≥ 0.40)`]);
  target("otp-verify", (r) => [(r.ratio_to_bare ?? 0) >= 0.5, `${r.ratio_to_bare} × bare (target ≥ 0.50)`]);
  for (const r of results) {
    if (r.scenario === "bare") continue;
    target(r.scenario, (x) => [
      x.http.latency_ms.p99 <= 10,
      `p99 ${x.http.latency_ms.p99} ms (target ≤ 10 ms)`,
    ]);
  }
  if (results.some((r) => r.scenario !== "bare")) {
    lines.push(
      `  ${serverPeakMb <= 200 ? "met    " : "not met"}  server RSS: peak ${serverPeakMb} MB over the scenarios (target ≤ 200 MB)`,
    );
  }
  if (logLines.warn + logLines.error > 0) {
    lines.push(
      `Server logged ${logLines.warn} warnings and ${logLines.error} errors (bench/results/server.log).`,
    );
  }
  lines.push(`Results in bench/results/latest.json; the run took ${round(elapsedSeconds, 1)} s.`, "");
  process.stdout.write(lines.join("\n"));
}

function parseArguments(args: string[]): {
  dialect: "sqlite" | "postgres";
  scenarios: Set<ScenarioName>;
  peer: "kannel" | undefined;
} {
  const usage = `usage: npm run bench -- [--db sqlite|postgres] [--scenarios ${ALL_SCENARIOS.join(",")}] [--peer kannel]`;
  const die = (message: string): never => {
    process.stderr.write(`bench: ${message}\n${usage}\n`);
    process.exit(1);
  };
  let dialect: "sqlite" | "postgres" = "sqlite";
  let scenarios = new Set<ScenarioName>(ALL_SCENARIOS);
  let peer: "kannel" | undefined;
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = (args[i] ?? "").split("=", 2) as [string, string | undefined];
    const value = () => inline ?? args[++i] ?? die(`${flag} needs a value`);
    if (flag === "--db") {
      const db = value();
      if (db !== "sqlite" && db !== "postgres") die(`--db must be sqlite or postgres, got "${db}"`);
      dialect = db as "sqlite" | "postgres";
    } else if (flag === "--scenarios") {
      const names = value()
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean);
      for (const name of names) {
        if (!(ALL_SCENARIOS as readonly string[]).includes(name)) die(`unknown scenario "${name}"`);
      }
      if (names.length === 0) die("--scenarios needs at least one scenario");
      scenarios = new Set(names as ScenarioName[]);
    } else if (flag === "--peer") {
      const name = value();
      if (name !== "kannel") die(`--peer must be kannel, got "${name}"`);
      peer = "kannel";
    } else if (flag === "--help" || flag === "-h") {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    } else {
      die(`unknown argument "${args[i]}"`);
    }
  }
  // Kannel is compared with sms-live-smpp.
  if (peer) scenarios.add("sms-live-smpp");
  return { dialect, scenarios, peer };
}

// ---------------------------------------------------------------------------------------------
// Helpers

function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memory_gb: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function procStatusMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1];
    return kb ? round(Number(kb) / 1024, 1) : 0;
  } catch {
    return 0;
  }
}

function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (port === 0) fail("could not find a free port");
  return port;
}

function envInteger(name: string, fallback: number, min: number, max: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    process.stderr.write(`bench: ${name} must be an integer from ${min} to ${max}, got "${value}"\n`);
    process.exit(1);
  }
  return n;
}

function ms(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

// ---------------------------------------------------------------------------------------------

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => abort(`stopped by ${signal}`, 130));
}

try {
  // Before the watchdog starts: apt-get has time limits of its own.
  const kannel = PEER === "kannel" ? await ensureKannel(log, (step) => cleanups.push(step)) : undefined;
  const limit = RUN_SECONDS + (kannel ? KANNEL_SECONDS : 0);
  const watchdog = setTimeout(() => abort(`the run took longer than ${limit} s`), limit * 1000);
  await main(kannel);
  await cleanUp();
  clearTimeout(watchdog);
  process.exit(0);
} catch (error) {
  if (!(error instanceof BenchError)) {
    const message = error instanceof Error ? error.message : String(error);
    abort(message.split("\n")[0] ?? "failed");
  }
}
