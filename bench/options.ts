// What a run of `npm run bench` is asked to do: the command-line flags and the BENCH_* environment
// variables (documented in bench/run.ts and docs/bench.md), read once at start.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const RESULTS_DIR = join(ROOT, "bench", "results");
export const PROFILE_DIR = join(RESULTS_DIR, "profile");

export const WARMUP_SECONDS = 2;
export const LOAD_SECONDS = envInteger("BENCH_DURATION", 10, 1, 20);
export const CONNECTIONS = envInteger("BENCH_CONNECTIONS", 50, 1, 500);
/** Messages a request of sms-batch (and recipients a sendsms of Kannel's, with --peer kannel). */
export const BATCH_SIZE = envInteger("BENCH_BATCH_SIZE", 100, 1, 1000);
export const PROFILE = process.env.BENCH_PROFILE === "1";
/**
 * Node flags for every Dakiya process the bench starts: those `npm start` runs it with (`node
 * <flags> bin/dakiya.js serve` in package.json), so they run as a deployment's do, and with
 * BENCH_PROFILE the CPU profiler's.
 */
export const DAKIYA_NODE_FLAGS = [
  ...nodeFlagsOfStart(),
  ...(PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : []),
];

function nodeFlagsOfStart(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const flags = /^node (.*)bin\/dakiya\.js serve$/.exec(manifest.scripts.start)?.[1];
  if (flags === undefined)
    throw new Error(`package.json's start script has an unexpected form: ${manifest.scripts.start}`);
  return flags.split(/\s+/).filter(Boolean);
}
/** Node options for `dakiya serve` alone, e.g. `--perf-basic-prof` for `perf record -p <pid>`. */
export const SERVER_NODE_OPTIONS = (process.env.BENCH_SERVER_NODE_OPTIONS ?? "").split(/\s+/).filter(Boolean);
export const RECEIPT_DELAY_MS = process.env.BENCH_RECEIPTS === "1" ? 1_000 : undefined;
export const SMSC_NAGLE = process.env.BENCH_SMSC_NAGLE === "1";
/** After the warm-up, how long the queue may take to empty before the measured load starts anyway. */
export const WARMUP_DRAIN_SECONDS = 10;
/** After the load, how long the queue (and with receipts, the receipts) may take to settle. */
export const DRAIN_SECONDS = 30;
export const READY_SECONDS = 15;
/** The whole run, set-up to clean-up (Kannel's installation apart). */
export const RUN_SECONDS = 190;
/** What a second live scenario (sms-batch with sms-live-smpp) adds: warm-up, its drain, load, drain. */
export const LIVE_SCENARIO_SECONDS = WARMUP_SECONDS + WARMUP_DRAIN_SECONDS + 20 + DRAIN_SECONDS;
/** What --peer kannel adds for each live scenario: start-up, warm-up, load, drain and stop. */
export const KANNEL_SECONDS = 80;
/** After a scenario (and the OTPs made for otp-verify), how long the webhook backlog may take to empty. */
export const WEBHOOK_DRAIN_SECONDS = 30;

export const API_SCENARIOS = ["otp-send", "otp-verify", "sms-send-sandbox", "balance"] as const;
/** The scenarios that send live SMS through the worker to the bench SMSC, and Kannel's with --peer. */
export const LIVE_SCENARIOS = ["sms-live-smpp", "sms-batch"] as const;
/** Live SMS over two routes (SMPP_ROUTES), on a server of its own after the others (scenarios/live-routes.ts). */
export const ROUTES_SCENARIO = "sms-live-routes";
/**
 * OTPs sent while a bulk campaign drains through a rate-limited route, on a server of its own after
 * the others (scenarios/otp-during-campaign.ts). Run only when named: it is not in the default set.
 */
export const CAMPAIGN_SCENARIO = "otp-during-campaign";
/** Bulk messages the campaign queues before the OTPs start. */
export const CAMPAIGN_SIZE = envInteger("BENCH_CAMPAIGN_SIZE", 20_000, 1_000, 200_000);
/** The campaign's route: its SMPP_TPS (a carrier grants some tens to hundreds a second) and window. */
export const CAMPAIGN_TPS = envInteger("BENCH_CAMPAIGN_TPS", 100, 1, 10_000);
export const CAMPAIGN_WINDOW = 10;
/** How long OTPs are sent during the campaign: BENCH_DURATION when set, else 20 s. */
export const CAMPAIGN_SECONDS = process.env.BENCH_DURATION ? LOAD_SECONDS : 20;
/** OTP sends a second, at a steady pace, while the campaign drains. */
export const CAMPAIGN_OTPS_PER_S = 5;
/** How long the campaign may take to queue, and the last OTPs to reach the SMSC after the sends. */
export const CAMPAIGN_QUEUE_SECONDS = 60;
export const CAMPAIGN_TAIL_SECONDS = 10;
/** What otp-during-campaign adds to a run: its server's start, the queueing, the bulk's start, the sends, the tail. */
export const CAMPAIGN_SCENARIO_SECONDS =
  READY_SECONDS + CAMPAIGN_QUEUE_SECONDS + 10 + CAMPAIGN_SECONDS + CAMPAIGN_TAIL_SECONDS + 10;
export const ALL_SCENARIOS = [
  ...LIVE_SCENARIOS,
  ROUTES_SCENARIO,
  CAMPAIGN_SCENARIO,
  ...API_SCENARIOS,
  "bare",
] as const;
export type ScenarioName = (typeof ALL_SCENARIOS)[number];
export type Dialect = "sqlite" | "postgres";

export const {
  dialect: DIALECT,
  scenarios: SELECTED,
  peer: PEER,
  webhooks: WEBHOOKS,
  delivery: DELIVERY,
  apiProcs: API_PROCS,
} = parseArguments(process.argv.slice(2));
/**
 * Set in the rounds that `--api-procs` runs as child processes (bench/api-procs.ts): this round
 * runs Dakiya as that many API processes and a `dakiya worker`, on the server the parent compiled.
 */
export const ROUND_API_PROCS = process.env.BENCH_ROUND_API_PROCS
  ? envInteger("BENCH_ROUND_API_PROCS", 1, 1, 16)
  : undefined;
export const SKIP_COMPILE = process.env.BENCH_SKIP_COMPILE === "1";
export const DB_LABEL = DIALECT === "postgres" ? "PostgreSQL" : "SQLite";

function parseArguments(args: string[]): {
  dialect: Dialect;
  scenarios: Set<ScenarioName>;
  peer: "kannel" | undefined;
  webhooks: boolean;
  delivery: boolean;
  apiProcs: number | undefined;
} {
  const usage = `usage: npm run bench -- [--db sqlite|postgres] [--scenarios ${ALL_SCENARIOS.join(",")}] [--peer kannel] [--no-webhooks] [--no-delivery] [--api-procs N]`;
  const die = (message: string): never => {
    process.stderr.write(`bench: ${message}\n${usage}\n`);
    process.exit(1);
  };
  let dialect: Dialect = "sqlite";
  let scenarios = new Set<ScenarioName>(ALL_SCENARIOS.filter((name) => name !== CAMPAIGN_SCENARIO));
  let peer: "kannel" | undefined;
  let webhooks = true;
  let delivery = true;
  let apiProcs: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = (args[i] ?? "").split("=", 2) as [string, string | undefined];
    const value = () => inline ?? args[++i] ?? die(`${flag} needs a value`);
    if (flag === "--db") {
      const db = value();
      if (db !== "sqlite" && db !== "postgres") die(`--db must be sqlite or postgres, got "${db}"`);
      dialect = db as Dialect;
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
    } else if (flag === "--api-procs") {
      const raw = value();
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1 || n > 16)
        die(`--api-procs must be an integer from 1 to 16, got "${raw}"`);
      apiProcs = n;
    } else if (flag === "--no-webhooks" && inline === undefined) {
      webhooks = false;
    } else if (flag === "--no-delivery" && inline === undefined) {
      delivery = false;
    } else if (flag === "--help" || flag === "-h") {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    } else {
      die(`unknown argument "${args[i]}"`);
    }
  }
  // Kannel is compared with the live scenarios: sms-live-smpp unless sms-batch alone was chosen.
  if (peer && !LIVE_SCENARIOS.some((name) => scenarios.has(name))) scenarios.add("sms-live-smpp");
  /** `flag` runs the API scenarios alone: all of them unless `--scenarios` chose; `others` are refused. */
  const apiScenariosOnly = (flag: string, others: string[]) => {
    if (!args.some((arg) => arg.split("=")[0] === "--scenarios")) {
      scenarios = new Set<ScenarioName>([...API_SCENARIOS, "bare"]);
    }
    const live = ([...LIVE_SCENARIOS, ROUTES_SCENARIO, CAMPAIGN_SCENARIO] as ScenarioName[]).filter((name) =>
      scenarios.has(name),
    );
    const refused = [...live, ...others];
    if (refused.length > 0) {
      die(`${flag} runs the API scenarios (${API_SCENARIOS.join(", ")}); leave out ${refused.join(", ")}`);
    }
  };
  // The rounds measure the API; the live scenarios need the worker's SMPP bind in this process.
  if (apiProcs !== undefined) apiScenariosOnly("--api-procs", peer ? ["--peer"] : []);
  if (!delivery) {
    // The server runs without its worker: what the API scenarios queue stays queued, and no
    // event leaves (the worker runs the webhook dispatcher). Live scenarios need the worker.
    apiScenariosOnly("--no-delivery", [
      ...(peer ? ["--peer"] : []),
      ...(apiProcs !== undefined ? ["--api-procs"] : []),
    ]);
    webhooks = false;
  }
  return { dialect, scenarios, peer, webhooks, delivery, apiProcs };
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
