// `npm run bench`: Dakiya under load on loopback, side by side with a bare Fastify route. Sets up
// an account on a fresh database (SQLite in a temporary folder, or with --db postgres a new
// PostgreSQL database that is dropped at the end), starts a lean SMSC (bench/smsc.ts), the bare
// route (bench/bare.ts) and `dakiya serve` as child processes in production mode, and loads them
// with autocannon. Scenarios (all but otp-during-campaign by default;
// `--scenarios a,b` for some):
//   sms-live-smpp     POST /v2/sms/send with a live key → worker → SMPP submit_sm at the SMSC:
//                     what the API accepted, what reached the SMSC, the queue, the memory
//   sms-batch         the same through POST /v2/sms/batch, BENCH_BATCH_SIZE (100) messages a
//                     request: messages accepted/s and submit_sm/s at the SMSC
//   sms-live-routes   the load of sms-live-smpp over two routes (SMPP_ROUTES, weights 3:1), each
//                     to an SMSC of its own, on a server started after the others: the same
//                     figures, and each route's share of the submits
//   otp-during-campaign  only when named: a campaign of BENCH_CAMPAIGN_SIZE (20,000) bulk messages
//                     through POST /v2/sms/batch draining through one route at BENCH_CAMPAIGN_TPS
//                     (100/s, window 10), and POST /v2/otp/send at 5/s for 20 s meanwhile, on a
//                     server of its own after the others: OTP acceptance → submit_sm p50/p99, the
//                     campaign's submit_sm/s, the CPU a message at the SMSC
//   otp-send          POST /v2/otp/send with a sandbox key, a distinct number each
//   otp-verify        POST /v2/otp/verify on OTPs created beforehand with known codes: wrong
//                     codes, then the right one, then again on the verified OTP
//   sms-send-sandbox  POST /v2/sms/send with a sandbox key
//   balance           GET /v2/balance with a sandbox key
//   bare              GET /v2/balance on bench/bare.ts (always run with an API scenario: the
//                     ratios are taken against it)
// A benchmark, not a test: nothing here asserts a speed. Each scenario's first figure is the CPU an
// operation cost Dakiya's processes (user + system, from /proc) from the start of its load until
// the work the load caused was done (bench/summary.ts). The run's record goes to
// bench/results/<date>T<time>-<build>.json, committed and rendered into docs/performance.md by
// `npm run bench:table` (bench/table.ts); every figure of the last run to bench/results/latest.json.
// docs/bench.md describes the bench in full.
//
// Options:
//   --db sqlite|postgres  postgres needs TEST_DATABASE_URL or DATABASE_URL (a server on which the
//                         bench may create and drop a database)
//   --scenarios a,b       a subset of the scenarios above
//   --peer kannel         also runs the load of sms-live-smpp (added when no live scenario is
//                         selected) through Kannel's sendsms, and that of sms-batch through sendsms
//                         with as many space-separated recipients a request, after Dakiya's
//                         scenarios, and prints Dakiya/Kannel ratios (bench/kannel.ts: installs
//                         Debian's kannel when missing)
//   --api-procs N         Dakiya as N API processes on one port (Node's cluster, bench/cluster.ts)
//                         and a `dakiya worker`: the API scenarios run twice, with 1 API process
//                         and with N, each round on a fresh database, and the report gives each
//                         scenario's scaling (bench/api-procs.ts)
//   --no-webhooks         no webhook endpoints: by default each environment has one subscribed to
//                         every event, on a loopback receiver (bench/webhook-receiver.ts), and the
//                         report gives the events written and arrived, the delivery lag and the
//                         backlog after each scenario (bench/webhooks.ts)
//   --no-delivery         the API scenarios on a server started with --no-worker: what they queue
//                         stays queued, so the figures are the API's own cost, without the
//                         in-process delivery (implies --no-webhooks; the targets are not judged)
//
// Environment:
//   BENCH_DURATION     load seconds (default 10, at most 20)
//   BENCH_CONNECTIONS  HTTP connections (default 50)
//   BENCH_BATCH_SIZE   messages a request of sms-batch (default 100, at most 1,000)
//   BENCH_CAMPAIGN_SIZE, BENCH_CAMPAIGN_TPS  otp-during-campaign's campaign (default 20,000) and
//                      its route's rate (default 100 submit_sm/s)
//   BENCH_RECEIPTS=1   the SMSC also sends a DELIVRD receipt 1 s after every submit, and the run
//                      waits for every message to be delivered
//   BENCH_SMSC_NAGLE=1 the SMSC leaves Nagle's algorithm on, as many do (by default it sets
//                      TCP_NODELAY and answers without delay)
//   BENCH_PROFILE=1    runs the server with --cpu-prof and prints where its CPU time went (the
//                      numbers of such a run are a little lower)
//   BENCH_SERVER_NODE_OPTIONS  Node options for dakiya serve alone (e.g. --perf-basic-prof, so
//                      that `perf record -p <pid>` names its JavaScript functions)
//
// The parts: options.ts (flags and BENCH_*), lifecycle.ts (clean-up, abort), processes.ts (child
// processes, /proc), server.ts (compile and start Dakiya), setup.ts (database, account, keys,
// templates), probe.ts (queue counts), scenarios/ (what each scenario sends and measures),
// webhooks.ts and webhook-receiver.ts (event delivery), report.ts and profile.ts (what is
// printed), results-file.ts (the dated record), kannel.ts (the peer).

import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { roundResultsFile, runScalingRounds, startApiProcesses } from "./api-procs.js";
import {
  compareWithDakiya,
  ensureKannel,
  type KannelBinaries,
  type KannelResult,
  printKannelReport,
  runKannelScenario,
} from "./kannel.js";
import { abort, BenchError, cleanUp, fail, log, ms, onCleanup, waitUntil } from "./lifecycle.js";
import {
  API_PROCS,
  API_SCENARIOS,
  CAMPAIGN_SCENARIO,
  CAMPAIGN_SCENARIO_SECONDS,
  CONNECTIONS,
  DB_LABEL,
  DELIVERY,
  DIALECT,
  DRAIN_SECONDS,
  KANNEL_SECONDS,
  LIVE_SCENARIO_SECONDS,
  LIVE_SCENARIOS,
  LOAD_SECONDS,
  PEER,
  PROFILE,
  READY_SECONDS,
  RECEIPT_DELAY_MS,
  RESULTS_DIR,
  ROOT,
  ROUND_API_PROCS,
  ROUTES_SCENARIO,
  RUN_SECONDS,
  SELECTED,
  SKIP_COMPILE,
  SMSC_NAGLE,
  WARMUP_DRAIN_SECONDS,
  WARMUP_SECONDS,
  WEBHOOK_DRAIN_SECONDS,
  WEBHOOKS,
} from "./options.js";
import { openQueueProbe, type QueueProbe } from "./probe.js";
import { describeMachine, freePort, type Machine, startChild, waitForAnswer } from "./processes.js";
import { summariseProfile } from "./profile.js";
import { printApiReport, printCampaignReport, printLiveReport, printWebhookReport } from "./report.js";
import {
  apiRecord,
  campaignRecord,
  describeCommand,
  kannelRecord,
  liveRecord,
  type RunRecord,
  writeDatedResults,
} from "./results-file.js";
import {
  type ApiScenarioResult,
  apiScenario,
  bareScenario,
  runApi,
  sandboxHeaders,
} from "./scenarios/api-routes.js";
import { runLiveRoutesScenario } from "./scenarios/live-routes.js";
import {
  type LiveLoad,
  type LiveScenarioResult,
  liveDestination,
  loginCode,
  runLiveSmppScenario,
  SINGLE_SEND,
} from "./scenarios/live-smpp.js";
import {
  type CampaignScenarioResult,
  runOtpDuringCampaignScenario,
} from "./scenarios/otp-during-campaign.js";
import { createVerifyOtps } from "./scenarios/otp-verify.js";
import { BATCH_SEND } from "./scenarios/sms-batch.js";
import { compileServer, SERVER_ENV, startDakiya, waitForReady } from "./server.js";
import {
  createBenchDatabase,
  OTP_TEMPLATE_ID,
  SENDER,
  SMSC_CREDENTIALS,
  setUpAccount,
  TEMPLATE_CONTENT,
  TEMPLATE_ID,
} from "./setup.js";
import { startBenchSmsc } from "./smsc.js";
import { round } from "./summary.js";
import {
  measureWebhooks,
  startWebhookReceiver,
  type WebhookEnvironment,
  type WebhookFigures,
} from "./webhooks.js";

async function main(kannelBinaries: KannelBinaries | undefined): Promise<void> {
  const started = Date.now();
  const machine = describeMachine();
  // The server runs in production mode, which runs the compiled JavaScript: compile it fresh
  // (a round of --api-procs runs what its parent compiled).
  if (!SKIP_COMPILE) {
    compileServer();
    log(`compiled the server into dist/ (${ms(started)})`);
  }
  const temp = mkdtempSync(join(os.tmpdir(), "dakiya-bench-"));
  onCleanup(() => rmSync(temp, { recursive: true, force: true }));
  const secret = randomBytes(32).toString("base64url");
  const database = await createBenchDatabase(temp);
  const apiScenarios = API_SCENARIOS.filter((name) => SELECTED.has(name));
  const runBare = SELECTED.has("bare") || apiScenarios.length > 0;
  const liveScenarios = LIVE_SCENARIOS.filter((name) => SELECTED.has(name));
  const runLive = liveScenarios.length > 0;
  const runRoutes = SELECTED.has(ROUTES_SCENARIO);
  const runCampaign = SELECTED.has(CAMPAIGN_SCENARIO);
  log(
    `scenarios: ${[...liveScenarios, ...apiScenarios, ...(runBare ? ["bare"] : []), ...(runRoutes ? [ROUTES_SCENARIO] : []), ...(runCampaign ? [CAMPAIGN_SCENARIO] : [])].join(", ")}; database: ${DB_LABEL}`,
  );

  // Live endpoints must be https://: the receiver gets a TLS port when a live scenario runs.
  const receiver = WEBHOOKS
    ? await startWebhookReceiver(temp, runLive || runRoutes || runCampaign)
    : undefined;
  if (receiver) onCleanup(() => receiver.child.stop());
  const keys = await setUpAccount(database.url, secret, receiver?.urls);
  log(
    `set up an account, live and sandbox keys, sender ${SENDER}, templates ${TEMPLATE_ID} and ${OTP_TEMPLATE_ID} (OTP)${receiver ? `, webhook endpoints ${Object.values(receiver.urls).join(" and ")} for all events` : ""} (${ms(started)})`,
  );

  const results: Array<LiveScenarioResult | ApiScenarioResult> = [];
  const apiResults: ApiScenarioResult[] = [];

  // The bare route first, alone on the machine, as every scenario is.
  let bare: ApiScenarioResult | undefined;
  if (runBare) {
    const port = await freePort();
    const child = startChild(
      "bare",
      [join(ROOT, "bench", "bare.ts")],
      { HOST: "127.0.0.1", PORT: String(port) },
      process.execPath,
      true,
    );
    onCleanup(() => child.stop());
    const bareUrl = `http://127.0.0.1:${port}`;
    await waitForAnswer(bareUrl, "/v2/balance", child);
    log(
      `bare Fastify route up on ${bareUrl}; load: ${WARMUP_SECONDS} s warm-up, ${LOAD_SECONDS} s, ${CONNECTIONS} connections`,
    );
    bare = await runApi(bareUrl, child, machine, bareScenario(keys));
    await child.stop();
  }

  const smsc = runLive
    ? await startBenchSmsc({ ...SMSC_CREDENTIALS, receiptDelayMs: RECEIPT_DELAY_MS, nagle: SMSC_NAGLE })
    : undefined;
  if (smsc) onCleanup(() => smsc.stop());

  const port = await freePort();
  const serverEnv = {
    ...SERVER_ENV,
    PORT: String(port),
    DATABASE_URL: database.url,
    DAKIYA_SECRET: secret,
    ...(smsc ? { SMPP_URL: smsc.url } : {}),
    ...(receiver ? { WEBHOOK_ALLOW_PRIVATE: "true" } : {}),
    ...(receiver?.certificateFile ? { NODE_EXTRA_CA_CERTS: receiver.certificateFile } : {}),
  };
  const server = ROUND_API_PROCS ? startApiProcesses(serverEnv, ROUND_API_PROCS) : startDakiya(serverEnv);
  onCleanup(async () => {
    try {
      await server.stop();
    } finally {
      // Also when the run fails: the server's last lines say why a request failed.
      mkdirSync(RESULTS_DIR, { recursive: true });
      writeFileSync(join(RESULTS_DIR, "server.log"), server.logTail.join("\n"));
    }
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForReady(baseUrl, server, smsc !== undefined);
  log(
    `${ROUND_API_PROCS ? `${ROUND_API_PROCS} × dakiya serve --no-worker and a dakiya worker are` : "dakiya serve is"} up on ${baseUrl}${smsc ? `, bound to the SMSC on port ${smsc.port}` : ""} (${ms(started)})`,
  );

  let probe: QueueProbe | undefined;
  // The API scenarios wait for what they queued to be delivered: that work is part of their cost.
  if (smsc || receiver || runRoutes || runCampaign || (DELIVERY && apiScenarios.length > 0)) {
    const opened = await openQueueProbe(database);
    onCleanup(() => opened.close());
    probe = opened;
  }
  /** After a scenario: its events' delivery, once the backlog is empty (or the wait is over). */
  const webhooksAfter = async (
    scenario: string,
    environment: WebhookEnvironment,
    loadStartedAt: string,
    loadEndedAt: string,
    seconds?: number,
  ) => {
    if (!receiver || !probe) return null;
    const figures = await measureWebhooks({
      receiver,
      probe,
      environment,
      since: Date.parse(loadStartedAt),
      loadEnd: Date.parse(loadEndedAt),
      ...(seconds === undefined ? {} : { seconds }),
    });
    log(
      `${scenario}: ${figures.events_arrived} of ${figures.events_written} events arrived at the webhook receiver${figures.drained ? `, the last ${figures.drained_after_load_s} s after the load` : ` after waiting ${figures.waited_s} s`}`,
    );
    return figures;
  };
  const webhookSetting = receiver ? `one endpoint per environment, events ["*"]` : "off";

  const liveLoads: Record<(typeof LIVE_SCENARIOS)[number], LiveLoad> = {
    "sms-live-smpp": SINGLE_SEND,
    "sms-batch": BATCH_SEND,
  };
  for (const name of liveScenarios) {
    if (!smsc || !probe) break; // both are there whenever a live scenario runs
    if (server.exited) fail(`dakiya serve exited with ${server.exitCode ?? server.signal}`);
    log(`${name}:`);
    // Each live scenario's own peak, as the API scenarios have theirs.
    if (results.length > 0) server.resetPeak();
    let webhooks: WebhookFigures | null = null;
    const scenario = await runLiveSmppScenario({
      baseUrl,
      key: keys.live,
      smsc,
      server,
      queued: probe.queued,
      queueEmpty: probe.queueEmpty,
      awaitingReceipt: probe.awaitingReceipt,
      machine,
      load: liveLoads[name],
      tail: async (load) => {
        webhooks = await webhooksAfter(name, "live", load.startedAt, load.endedAt);
        return webhooks?.drained ?? true;
      },
    });
    const { byStatus, carrierParts } = await probe.totals();
    scenario.totals = {
      messages_by_status: byStatus,
      carrier_parts: carrierParts,
      smsc_submits: smsc.submits,
    };
    // Peak RSS of this scenario: VmHWM now (the API scenarios below start it again).
    scenario.server.peak_rss_mb = server.peakRssMb();
    scenario.settings.webhooks = webhookSetting;
    scenario.webhooks = webhooks;
    results.push(scenario);
  }

  let verifyNumbers = 0;
  if (apiScenarios.includes("otp-verify")) {
    // Before otp-send: every OTP send counts the account's sends of the past hour, so it slows
    // down as they pile up.
    const setupStart = new Date().toISOString();
    verifyNumbers = await createVerifyOtps(baseUrl, sandboxHeaders(keys));
    log(`created ${verifyNumbers} OTPs with known codes for otp-verify (${ms(started)})`);
    if (verifyNumbers === 0) fail("no OTP could be created for otp-verify");
    // Their events go out before the next scenario, which would otherwise compete with them.
    await webhooksAfter("otp-verify set-up", "sandbox", setupStart, new Date().toISOString());
  }
  for (const name of apiScenarios) {
    if (server.exited) fail(`dakiya serve exited with ${server.exitCode ?? server.signal}`);
    log(`${name}: ${WARMUP_SECONDS} s warm-up, then ${LOAD_SECONDS} s at ${CONNECTIONS} connections`);
    const extraSettings: Record<string, string | number> = {
      ...(name === "otp-verify" ? { verify_numbers: verifyNumbers } : {}),
      webhooks: webhookSetting,
      ...(DELIVERY ? {} : { delivery: "off" }),
    };
    const warmupStartedAt = new Date().toISOString();
    let webhooks: WebhookFigures | null = null;
    const result = await runApi(
      baseUrl,
      server,
      machine,
      apiScenario(name, keys, verifyNumbers),
      extraSettings,
      {
        // What the warm-up queued is delivered before the load, so that the load's CPU is its own.
        settle: async () => {
          if (receiver)
            await webhooksAfter(
              `${name} warm-up`,
              "sandbox",
              warmupStartedAt,
              new Date().toISOString(),
              WARMUP_DRAIN_SECONDS,
            );
          else if (probe) await waitUntil(probe.queueEmpty, WARMUP_DRAIN_SECONDS);
        },
        tail: async (load) => {
          if (receiver) {
            webhooks = await webhooksAfter(name, "sandbox", load.startedAt, load.endedAt);
            return webhooks?.drained ?? true;
          }
          return probe ? waitUntil(probe.queueEmpty, DRAIN_SECONDS) : true;
        },
      },
    );
    result.webhooks = webhooks;
    apiResults.push(result);
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
  if (runRoutes && probe) {
    // A server of its own, configured with SMPP_ROUTES, on the same database.
    log(`${ROUTES_SCENARIO}:`);
    const routed = await runLiveRoutesScenario({
      temp,
      serverEnv,
      port: await freePort(),
      key: keys.live,
      probe,
      machine,
      webhooks: (load) => webhooksAfter(ROUTES_SCENARIO, "live", load.startedAt, load.endedAt),
    });
    routed.settings.webhooks = webhookSetting;
    results.push(routed);
  }
  let campaign: CampaignScenarioResult | undefined;
  if (runCampaign && probe) {
    // Last: it leaves the rest of its campaign queued in the run's database.
    log(`${CAMPAIGN_SCENARIO}:`);
    campaign = await runOtpDuringCampaignScenario({
      serverEnv,
      port: await freePort(),
      key: keys.live,
      probe,
      machine,
    });
    campaign.settings.webhooks = webhookSetting;
  }
  results.push(...apiResults);
  const writeResults = (all: object[]) =>
    writeFileSync(
      ROUND_API_PROCS ? roundResultsFile(ROUND_API_PROCS) : join(RESULTS_DIR, "latest.json"),
      `${JSON.stringify(all, null, 2)}\n`,
    );
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeResults([...results, ...(campaign ? [campaign] : [])]);

  const live = results.filter((r): r is LiveScenarioResult => "queue" in r);
  if (live.length > 0) printLiveReport(live, (Date.now() - started) / 1000);
  printApiReport(apiResults, machine, serverPeak, server.logLines, (Date.now() - started) / 1000);
  if (campaign) printCampaignReport(campaign);
  printWebhookReport(results);
  if (PROFILE) summariseProfile();
  const kannelResults: KannelResult[] = [];
  if (kannelBinaries) {
    // Last, on a machine that Dakiya has left, with an SMSC of its own; one run per live scenario.
    // Kannel is compared on one SMSC: not with the routes scenario.
    for (const dakiya of live.filter((result) => !result.routes)) {
      const kannel = await runKannel(kannelBinaries, machine, dakiya);
      kannelResults.push(kannel);
      writeResults([...results, ...(campaign ? [campaign] : []), ...kannelResults]);
      printKannelReport(kannel, dakiya, (Date.now() - started) / 1000);
    }
  }
  // A round of --api-procs leaves its record to the parent, which writes both rounds' together.
  if (ROUND_API_PROCS === undefined) {
    const run: RunRecord = {
      database: DIALECT,
      webhooks: WEBHOOKS,
      delivery: DELIVERY,
      api_processes: null,
      scenarios: [
        ...live.map(liveRecord),
        ...(campaign ? [campaignRecord(campaign)] : []),
        ...apiResults.map(apiRecord),
        ...kannelResults.map(kannelRecord),
      ],
    };
    const path = writeDatedResults({
      startedAt: started,
      machine,
      command: describeCommand(process.argv.slice(2)),
      runs: [run],
    });
    log(`The run's record: ${path.slice(ROOT.length)} (npm run bench:table puts it in docs/performance.md).`);
  }
}

/**
 * The peer: the load of a live scenario through Kannel's sendsms, against an SMSC of its own;
 * for sms-batch, with as many recipients a sendsms as the batch has messages.
 */
async function runKannel(
  binaries: KannelBinaries,
  machine: Machine,
  dakiya: LiveScenarioResult,
): Promise<KannelResult> {
  const smsc = await startBenchSmsc({ ...SMSC_CREDENTIALS, nagle: SMSC_NAGLE });
  onCleanup(() => smsc.stop());
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
    recipientsPerRequest: dakiya.http.messages_per_request,
    freePort,
    startProcess: (name, command, args) => startChild(name, args, {}, command),
    onCleanup,
    log,
  });
  await smsc.stop();
  compareWithDakiya(result, dakiya);
  return result;
}

// ---------------------------------------------------------------------------------------------

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => abort(`stopped by ${signal}`, 130));
}

try {
  // Before the watchdog starts: apt-get has time limits of its own.
  const kannel = PEER === "kannel" ? await ensureKannel(log, onCleanup) : undefined;
  // With webhooks, each Dakiya scenario (and otp-verify's set-up) may wait for the backlog.
  const webhookWaits = WEBHOOKS ? [...SELECTED].filter((name) => name !== "bare").length : 0;
  const webhookSeconds = WEBHOOK_DRAIN_SECONDS * (webhookWaits + (SELECTED.has("otp-verify") ? 1 : 0));
  const liveCount = LIVE_SCENARIOS.filter((name) => SELECTED.has(name)).length;
  // Each API scenario waits for its warm-up's work before the load and, without webhooks (whose
  // wait is counted above), for its load's deliveries after it.
  const apiCount = API_SCENARIOS.filter((name) => SELECTED.has(name)).length;
  const apiWaitSeconds = apiCount * (WARMUP_DRAIN_SECONDS + (!WEBHOOKS && DELIVERY ? DRAIN_SECONDS : 0));
  const limit =
    RUN_SECONDS +
    apiWaitSeconds +
    Math.max(0, liveCount - 1) * LIVE_SCENARIO_SECONDS +
    webhookSeconds +
    (SELECTED.has(ROUTES_SCENARIO) ? LIVE_SCENARIO_SECONDS + READY_SECONDS : 0) +
    (SELECTED.has(CAMPAIGN_SCENARIO) ? CAMPAIGN_SCENARIO_SECONDS : 0) +
    (kannel ? KANNEL_SECONDS * liveCount : 0);
  // With --api-procs this process runs the rounds (bench/api-procs.ts), each a run of its own.
  const rounds = API_PROCS !== undefined && ROUND_API_PROCS === undefined ? (API_PROCS === 1 ? 1 : 2) : 0;
  const overall = rounds > 0 ? rounds * (limit + 30) : limit;
  const watchdog = setTimeout(() => abort(`the run took longer than ${overall} s`), overall * 1000);
  if (API_PROCS !== undefined && rounds > 0) await runScalingRounds(API_PROCS, process.argv.slice(2));
  else await main(kannel);
  await cleanUp();
  clearTimeout(watchdog);
  process.exit(0);
} catch (error) {
  if (!(error instanceof BenchError)) {
    const message = error instanceof Error ? error.message : String(error);
    abort(message.split("\n")[0] ?? "failed");
  }
}
