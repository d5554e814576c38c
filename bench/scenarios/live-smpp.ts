// sms-live-smpp: POST /v2/sms/send with the live key, one distinct destination each, through the
// worker to the bench SMSC. What the API accepted, what reached the SMSC, the queue over time,
// and with BENCH_RECEIPTS=1 the delivery receipts; the server's memory and CPU meanwhile.

import autocannon from "autocannon";
import { fail, log, onCleanup, sleep, waitUntil } from "../lifecycle.js";
import {
  CONNECTIONS,
  DB_LABEL,
  DIALECT,
  DRAIN_SECONDS,
  LOAD_SECONDS,
  RECEIPT_DELAY_MS,
  SMSC_NAGLE,
  WARMUP_DRAIN_SECONDS,
  WARMUP_SECONDS,
} from "../options.js";
import type { ChildHandle, Machine } from "../processes.js";
import { SERVER_ENV } from "../server.js";
import { SENDER, TEMPLATE_ID } from "../setup.js";
import type { BenchSmsc } from "../smsc.js";
import {
  type CpuPerOperation,
  cpuPerOperation,
  type LatencySummary,
  latencySummary,
  round,
  type SmscSummary,
  smscSummary,
} from "../summary.js";
import type { WebhookFigures } from "../webhooks.js";

interface Sample {
  t_s: number;
  queued: number;
  smsc_submits: number;
  receipts_acked?: number;
  rss_mb: number;
}

export interface LiveScenarioResult {
  scenario: string;
  /**
   * The server's CPU (its worker's included) per accepted message, from the start of the load
   * until the queue drained (with receipts, until they were all in) and the webhook events arrived.
   */
  cpu: CpuPerOperation;
  description: string;
  run_at: string;
  /** The end of the measured load (run_at is its start). */
  load_ended_at: string;
  machine: Machine;
  settings: Record<string, string | number>;
  load_seconds: number;
  connections: number;
  http: {
    requests_completed: number;
    accepted_202: number;
    messages_per_request: number;
    /** Messages the 202 answers accepted (one per 202 for single sends). */
    messages_accepted: number;
    /** Messages accepted a second. */
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
  /** Unless --no-webhooks: the live endpoint's events (bench/webhooks.ts). */
  webhooks: WebhookFigures | null;
  /** sms-live-routes: each route's SMSC and its share of the submits (scenarios/live-routes.ts). */
  routes?: Array<{
    name: string;
    weight: number;
    smsc_submits: number;
    share_percent: number;
    weight_share_percent: number;
  }>;
}

/**
 * What each request of a live scenario sends: one message (sms-live-smpp, below) or a batch of
 * them (scenarios/sms-batch.ts). Messages are numbered through the run, warm-up included, from 1.
 */
export interface LiveLoad {
  scenario: string;
  /** What the load is, for the result's description. */
  description: string;
  path: string;
  messagesPerRequest: number;
  /** The body of a request whose first message is the nth. */
  body(first: number): string;
  /** How many messages a 202 answer with this body accepted. */
  accepted(body: string): number;
}

/** POST /v2/sms/send: one message a request, a distinct destination each. */
export const SINGLE_SEND: LiveLoad = {
  scenario: "sms-live-smpp",
  description:
    "POST /v2/sms/send with a live key (one-variable transactional template, a distinct destination each)",
  path: "/v2/sms/send",
  messagesPerRequest: 1,
  body: (n) => JSON.stringify(liveSend(n)),
  accepted: () => 1,
};

/** The send of the nth message of a live scenario (and what Kannel is sent for it). */
export function liveSend(n: number) {
  return {
    to: liveDestination(n),
    sender: SENDER,
    template_id: TEMPLATE_ID,
    variables: { var1: loginCode(n) },
    reference: `bench-${n}`,
  };
}

/** The destination of the nth request of sms-live-smpp (and of Kannel's load). */
export function liveDestination(n: number): string {
  return `+9198${String(n % 100_000_000).padStart(8, "0")}`;
}

/** The variable of the nth request of sms-live-smpp; Kannel is sent the text it renders. */
export function loginCode(n: number): string {
  return String(100_000 + (n % 900_000));
}

export async function runLiveSmppScenario(options: {
  baseUrl: string;
  key: string;
  smsc: BenchSmsc;
  server: ChildHandle;
  queued: () => number;
  queueEmpty: () => boolean;
  awaitingReceipt: () => number;
  machine: Machine;
  /** SINGLE_SEND unless given. */
  load?: LiveLoad;
  /**
   * Once the queue drained: waits for the rest of the work the load caused (the webhook events)
   * and says whether it all arrived; its CPU counts towards the messages'.
   */
  tail?: (load: { startedAt: string; endedAt: string }) => Promise<boolean>;
}): Promise<LiveScenarioResult> {
  const { baseUrl, key, smsc, server, queued, queueEmpty, awaitingReceipt, machine } = options;
  const liveLoad = options.load ?? SINGLE_SEND;
  const receipts = RECEIPT_DELAY_MS !== undefined;
  /** Nothing left to do: the queue is empty and, with receipts, every receipt is in. */
  const settled = () =>
    queueEmpty() &&
    (!receipts ||
      (smsc.receiptsPending === 0 && smsc.receiptsAcked === smsc.receiptsSent && awaitingReceipt() === 0));
  const idleRss = server.rssMb();
  const statusCodes: Record<string, number> = {};
  const errorBodies: string[] = [];
  let sequence = 0;
  let acceptedMessages = 0;
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
          path: liveLoad.path,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          setupRequest: (request) => {
            const first = sequence + 1;
            sequence += liveLoad.messagesPerRequest;
            return { ...request, body: liveLoad.body(first) };
          },
          onResponse: (status, body) => {
            statusCodes[status] = (statusCodes[status] ?? 0) + 1;
            if (status === 202) acceptedMessages += liveLoad.accepted(body);
            else if (errorBodies.length < 5) errorBodies.push(`${status} ${body.slice(0, 300)}`);
          },
        },
      ],
    });

  let maxSampledRss = 0;
  const sampler = setInterval(() => {
    maxSampledRss = Math.max(maxSampledRss, server.rssMb());
  }, 200);
  onCleanup(() => clearInterval(sampler));

  log(`warm-up: ${WARMUP_SECONDS} s, ${CONNECTIONS} connections`);
  await load(WARMUP_SECONDS);
  // Requests still in flight when autocannon stops are finished by the server all the same.
  await sleep(500);
  const warmupDrained = await waitUntil(settled, WARMUP_DRAIN_SECONDS);
  if (!warmupDrained)
    log(`note: the warm-up's messages were not all through within ${WARMUP_DRAIN_SECONDS} s`);
  for (const code of Object.keys(statusCodes)) delete statusCodes[code];
  errorBodies.length = 0;
  acceptedMessages = 0;

  log(`load: ${LOAD_SECONDS} s, ${CONNECTIONS} connections, POST ${liveLoad.path} with a live key`);
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
  const drained = await waitUntil(sampled(queueEmpty), (drainDeadline - Date.now()) / 1000);
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
  const tailDone = options.tail
    ? await options.tail({
        startedAt: new Date(loadStart).toISOString(),
        endedAt: new Date(loadEnd).toISOString(),
      })
    : true;
  const cpuSeconds = server.cpuSeconds() - cpuAtStart;
  const tailSeconds = (Date.now() - loadEnd) / 1000;
  const queuedAtEnd = queued();
  const lastSubmitAt = smsc.lastSubmitAt ?? loadStart;
  const submitsUntilDrained = smsc.submits - submitsAtStart;
  const accepted = result.statusCodeStats?.["202"]?.count ?? statusCodes["202"] ?? 0;
  // Answers still in flight when autocannon stops are not counted, as with accepted_202.
  const messagesAccepted = Math.min(acceptedMessages, accepted * liveLoad.messagesPerRequest);

  return {
    scenario: `${liveLoad.scenario}${receipts ? "-receipts" : ""}${SMSC_NAGLE ? "-nagle" : ""}`,
    cpu: cpuPerOperation({
      operation: "message",
      operations: messagesAccepted,
      cpuSeconds,
      tailSeconds,
      tailDone: drained && (!receipts || allDeliveredAt !== undefined) && tailDone,
    }),
    description:
      `${liveLoad.description}, queued in ` +
      DB_LABEL +
      " and submitted over SMPP to a loopback SMSC that answers at once" +
      (SMSC_NAGLE ? " (Nagle's algorithm on)" : " (TCP_NODELAY)") +
      (receipts ? ", and sends a DELIVRD receipt 1 s after each submit" : ""),
    run_at: new Date(loadStart).toISOString(),
    load_ended_at: new Date(loadEnd).toISOString(),
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
      messages_per_request: liveLoad.messagesPerRequest,
      messages_accepted: messagesAccepted,
      accepted_per_s: round(messagesAccepted / loadSeconds, 0),
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
    webhooks: null,
  };
}
