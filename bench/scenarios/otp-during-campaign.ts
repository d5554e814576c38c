// otp-during-campaign: a bulk campaign of BENCH_CAMPAIGN_SIZE messages (20,000 by default) queued
// through POST /v2/sms/batch, draining through one SMPP route held to BENCH_CAMPAIGN_TPS (100 a
// second by default, window 10) to a bench SMSC, and meanwhile OTPs by SMS through POST
// /v2/otp/send at a steady 5 a second. What an OTP waits behind a campaign: the time from its API
// acceptance (the 200 answer) to the SMSC's receipt of its submit_sm, p50 and p99; the campaign's
// submit_sm a second meanwhile; and the server's CPU a message reaching the SMSC. It runs on a
// server of its own, started after the other scenarios on the same database, and stops once the
// last OTP is in: what is left of the campaign stays queued (the run's database goes at its end).

import { fail, log, onCleanup, sleep, waitUntil } from "../lifecycle.js";
import {
  CAMPAIGN_OTPS_PER_S,
  CAMPAIGN_QUEUE_SECONDS,
  CAMPAIGN_SCENARIO,
  CAMPAIGN_SECONDS,
  CAMPAIGN_SIZE,
  CAMPAIGN_TAIL_SECONDS,
  CAMPAIGN_TPS,
  CAMPAIGN_WINDOW,
  DB_LABEL,
  DIALECT,
  SMSC_NAGLE,
} from "../options.js";
import type { QueueProbe } from "../probe.js";
import type { Machine } from "../processes.js";
import { SERVER_ENV, startDakiya, waitForReady } from "../server.js";
import { SENDER, SMSC_CREDENTIALS, TEMPLATE_ID } from "../setup.js";
import { startBenchSmsc } from "../smsc.js";
import { type CpuPerOperation, cpuPerOperation, round } from "../summary.js";

/** A batch request of the campaign: the most POST /v2/sms/batch takes. */
const BATCH_MESSAGES = 1_000;

export interface CampaignScenarioResult {
  scenario: typeof CAMPAIGN_SCENARIO;
  /**
   * The server's CPU (its worker's included) a message that reached the SMSC (bulk and OTP), from
   * the first OTP send until the last OTP's submit_sm (or the end of the wait for it).
   */
  cpu: CpuPerOperation;
  description: string;
  run_at: string;
  /** The end of the OTP sends (run_at is their start). */
  load_ended_at: string;
  machine: Machine;
  settings: Record<string, string | number>;
  campaign: {
    messages: number;
    queued_in_s: number;
    /** Bulk submit_sm a second at the SMSC while the OTPs were sent. */
    submit_sm_per_s: number;
    /** Still queued once the last OTP was in: the campaign had not drained. */
    queued_at_end: number;
  };
  otp: {
    sent: number;
    accepted: number;
    /** Accepted OTPs whose submit_sm the SMSC received. */
    arrived: number;
    /** From the 200 answer to the SMSC's receipt of the submit_sm. */
    submit_latency_ms: { p50: number | null; p99: number | null; max: number | null };
    /** The send's own answer time. */
    http_latency_ms: { p50: number | null; p99: number | null };
    sample_error_bodies: string[];
  };
  server: { peak_rss_mb: number; warn_log_lines: number; error_log_lines: number };
}

/** The nth message of the campaign, and the nth OTP: numbers of their own, so the SMSC tells them apart. */
const campaignDestination = (n: number) => `+9193${String(n).padStart(8, "0")}`;
const otpDestination = (n: number) => `+9192${String(n).padStart(8, "0")}`;

export async function runOtpDuringCampaignScenario(options: {
  /** The main server's environment; its SMPP settings are replaced by the campaign's route. */
  serverEnv: Record<string, string>;
  port: number;
  key: string;
  probe: QueueProbe;
  machine: Machine;
}): Promise<CampaignScenarioResult> {
  const otpAcceptedAt = new Map<string, number>();
  const otpArrivedAt = new Map<string, number>();
  const smsc = await startBenchSmsc({
    ...SMSC_CREDENTIALS,
    nagle: SMSC_NAGLE,
    onSubmit: (destination, receivedAt) => {
      if (destination.startsWith("9192") && !otpArrivedAt.has(destination)) {
        otpArrivedAt.set(destination, receivedAt);
      }
    },
  });
  onCleanup(() => smsc.stop());
  const routeEnv = {
    SMPP_URL: smsc.url,
    SMPP_TPS: String(CAMPAIGN_TPS),
    SMPP_WINDOW: String(CAMPAIGN_WINDOW),
  };
  const env = Object.fromEntries(Object.entries(options.serverEnv).filter(([name]) => !/^SMPP_/.test(name)));
  const server = startDakiya({ ...env, ...routeEnv, PORT: String(options.port) });
  onCleanup(() => server.stop());
  const baseUrl = `http://127.0.0.1:${options.port}`;
  await waitForReady(baseUrl, server, true);
  log(
    `dakiya serve is up on ${baseUrl}, one route at ${CAMPAIGN_TPS} submit_sm/s (window ${CAMPAIGN_WINDOW}) to the SMSC on port ${smsc.port}`,
  );
  const headers = { authorization: `Bearer ${options.key}`, "content-type": "application/json" };

  // The campaign, as a sender queues one: batches of bulk messages (batch items are bulk).
  const queueStart = Date.now();
  for (let first = 0; first < CAMPAIGN_SIZE; first += BATCH_MESSAGES) {
    const count = Math.min(BATCH_MESSAGES, CAMPAIGN_SIZE - first);
    const messages = Array.from({ length: count }, (_, i) => ({
      to: campaignDestination(first + i),
      sender: SENDER,
      template_id: TEMPLATE_ID,
      variables: { var1: String(100_000 + ((first + i) % 900_000)) },
    }));
    const response = await fetch(`${baseUrl}/v2/sms/batch`, {
      method: "POST",
      headers,
      body: JSON.stringify({ messages }),
      signal: AbortSignal.timeout(CAMPAIGN_QUEUE_SECONDS * 1000),
    });
    const body = await response.text();
    const accepted = Number(/"accepted":(\d+)/.exec(body.slice(-64))?.[1] ?? 0);
    if (response.status !== 202 || accepted !== count) {
      fail(`${CAMPAIGN_SCENARIO}: a campaign batch was answered ${response.status} ${body.slice(0, 300)}`);
    }
    if (Date.now() - queueStart > CAMPAIGN_QUEUE_SECONDS * 1000) {
      fail(`${CAMPAIGN_SCENARIO}: the campaign took more than ${CAMPAIGN_QUEUE_SECONDS} s to queue`);
    }
  }
  const queuedInSeconds = (Date.now() - queueStart) / 1000;
  log(`queued a campaign of ${CAMPAIGN_SIZE} bulk messages in ${round(queuedInSeconds, 1)} s`);
  // The bulk flowing at the route's rate before the first OTP: the worker's hands are full of it.
  const steady = Math.min(CAMPAIGN_SIZE / 2, smsc.submits + CAMPAIGN_TPS);
  if (!(await waitUntil(() => smsc.submits >= steady, 10))) {
    fail(`${CAMPAIGN_SCENARIO}: the campaign did not reach the SMSC (${smsc.submits} submits)`);
  }

  log(`OTPs by SMS: ${CAMPAIGN_OTPS_PER_S} a second for ${CAMPAIGN_SECONDS} s while the campaign drains`);
  const httpLatencies: number[] = [];
  const errorBodies: string[] = [];
  const sendOtp = async (n: number) => {
    const to = otpDestination(n);
    const started = Date.now();
    try {
      const response = await fetch(`${baseUrl}/v2/otp/send`, {
        method: "POST",
        headers,
        body: JSON.stringify({ to, channel: "sms" }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = await response.text();
      const answered = Date.now();
      httpLatencies.push(answered - started);
      if (response.status === 200) otpAcceptedAt.set(to.slice(1), answered);
      else if (errorBodies.length < 5) errorBodies.push(`${response.status} ${body.slice(0, 300)}`);
    } catch (error) {
      if (errorBodies.length < 5) errorBodies.push((error as Error).message);
    }
  };
  const submitsAtStart = smsc.submits;
  const cpuAtStart = server.cpuSeconds();
  const loadStart = Date.now();
  const sends: Array<Promise<void>> = [];
  const total = CAMPAIGN_SECONDS * CAMPAIGN_OTPS_PER_S;
  for (let n = 0; n < total; n++) {
    // On a steady clock: a slow answer does not push the next send back.
    await sleep(Math.max(0, loadStart + (n * 1000) / CAMPAIGN_OTPS_PER_S - Date.now()));
    sends.push(sendOtp(n));
  }
  await Promise.all(sends);
  const loadEnd = Date.now();
  const submitsAtLoadEnd = smsc.submits;
  const otpsAtLoadEnd = otpArrivedAt.size;
  const allArrived = () => [...otpAcceptedAt.keys()].every((to) => otpArrivedAt.has(to));
  const tailDone = await waitUntil(allArrived, CAMPAIGN_TAIL_SECONDS);
  const tailEnd = Date.now();
  const cpuSeconds = server.cpuSeconds() - cpuAtStart;
  const submitsInCount = smsc.submits - submitsAtStart;
  if (server.exited)
    fail(`${CAMPAIGN_SCENARIO}: dakiya serve exited with ${server.exitCode ?? server.signal}`);
  const queuedAtEnd = options.probe.queued();

  const latencies = [...otpAcceptedAt]
    .filter(([to]) => otpArrivedAt.has(to))
    // A submit can reach the SMSC before the bench has read the answer: no wait at all.
    .map(([to, acceptedAt]) => Math.max(0, (otpArrivedAt.get(to) ?? acceptedAt) - acceptedAt));
  const loadSeconds = (loadEnd - loadStart) / 1000;
  const bulkDuringLoad = submitsAtLoadEnd - submitsAtStart - otpsAtLoadEnd;

  const peakRss = server.peakRssMb();
  await server.stop();
  if (server.exitCode !== 0)
    log(`note: the campaign's server exited with ${server.exitCode ?? server.signal}`);
  await smsc.stop();
  if (otpAcceptedAt.size === 0)
    fail(`${CAMPAIGN_SCENARIO}: no OTP was accepted (${errorBodies.join(" | ")})`);

  return {
    scenario: CAMPAIGN_SCENARIO,
    cpu: cpuPerOperation({
      operation: "message",
      operations: submitsInCount,
      cpuSeconds,
      tailSeconds: (tailEnd - loadEnd) / 1000,
      tailDone,
    }),
    description:
      `POST /v2/otp/send with a live key, SMS, ${CAMPAIGN_OTPS_PER_S} a second, while a campaign of ` +
      `${CAMPAIGN_SIZE} bulk messages queued through POST /v2/sms/batch drains from ${DB_LABEL} ` +
      `through one SMPP route at ${CAMPAIGN_TPS} submit_sm/s (window ${CAMPAIGN_WINDOW}) to a loopback SMSC`,
    run_at: new Date(loadStart).toISOString(),
    load_ended_at: new Date(loadEnd).toISOString(),
    machine: options.machine,
    settings: {
      ...SERVER_ENV,
      SMPP_TPS: routeEnv.SMPP_TPS,
      SMPP_WINDOW: routeEnv.SMPP_WINDOW,
      database: DIALECT,
      campaign_messages: CAMPAIGN_SIZE,
      otps_per_s: CAMPAIGN_OTPS_PER_S,
      smsc_tcp_nodelay: SMSC_NAGLE ? "no" : "yes",
    },
    campaign: {
      messages: CAMPAIGN_SIZE,
      queued_in_s: round(queuedInSeconds, 2),
      submit_sm_per_s: round(bulkDuringLoad / loadSeconds, 1),
      queued_at_end: queuedAtEnd,
    },
    otp: {
      sent: total,
      accepted: otpAcceptedAt.size,
      arrived: latencies.length,
      submit_latency_ms: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.length > 0 ? Math.max(...latencies) : null,
      },
      http_latency_ms: { p50: percentile(httpLatencies, 50), p99: percentile(httpLatencies, 99) },
      sample_error_bodies: errorBodies,
    },
    server: {
      peak_rss_mb: peakRss,
      warn_log_lines: server.logLines.warn,
      error_log_lines: server.logLines.error,
    },
  };
}

/** The nearest-rank percentile; null without values. */
function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
}
