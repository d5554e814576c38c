// Webhooks in the bench (on unless --no-webhooks): a customer's receiver on loopback
// (bench/webhook-receiver.ts, a child process), one endpoint per environment subscribed to every
// event, and after each scenario the event delivery figures: the events written from the start
// of the load against those that arrived, the lag from each status change to the receiver's 2xx,
// and how long after the load the backlog was empty (waiting up to WEBHOOK_DRAIN_SECONDS).

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fail, sleep } from "./lifecycle.js";
import { ROOT, WEBHOOK_DRAIN_SECONDS } from "./options.js";
import type { QueueProbe } from "./probe.js";
import { type ChildHandle, freePort, startChild, waitForAnswer } from "./processes.js";
import { round } from "./summary.js";
import type { ReceivedRecord } from "./webhook-receiver.js";

export type WebhookEnvironment = "live" | "sandbox";

export interface WebhookReceiver {
  /** The endpoint URL of each environment: http:// for sandbox, https:// for live (the contract's rule). */
  urls: Partial<Record<WebhookEnvironment, string>>;
  /** The certificate of the https:// receiver, for the server's NODE_EXTRA_CA_CERTS. */
  certificateFile: string | undefined;
  child: ChildHandle;
  /** Every request received so far, in arrival order (as of the last refresh). */
  records: ReceivedRecord[];
  /** Fetches what arrived since the last refresh. */
  refresh(): Promise<void>;
}

/** Starts the receiver; with `https`, also on a TLS port with a certificate made for 127.0.0.1. */
export async function startWebhookReceiver(temp: string, https: boolean): Promise<WebhookReceiver> {
  const httpPort = await freePort();
  const env: Record<string, string> = { HOST: "127.0.0.1", HTTP_PORT: String(httpPort) };
  const urls: WebhookReceiver["urls"] = { sandbox: `http://127.0.0.1:${httpPort}/sandbox` };
  let certificateFile: string | undefined;
  if (https) {
    const httpsPort = await freePort();
    certificateFile = join(temp, "receiver-cert.pem");
    const keyFile = join(temp, "receiver-key.pem");
    makeCertificate(keyFile, certificateFile);
    Object.assign(env, {
      HTTPS_PORT: String(httpsPort),
      TLS_KEY_FILE: keyFile,
      TLS_CERT_FILE: certificateFile,
    });
    urls.live = `https://127.0.0.1:${httpsPort}/live`;
  }
  const child = startChild(
    "webhook receiver",
    [join(ROOT, "bench", "webhook-receiver.ts")],
    env,
    process.execPath,
    true,
  );
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  await waitForAnswer(baseUrl, "/records?from=0", child);
  const records: ReceivedRecord[] = [];
  return {
    urls,
    certificateFile,
    child,
    records,
    async refresh() {
      if (child.exited) fail(`the webhook receiver exited with ${child.exitCode ?? child.signal}`);
      const response = await fetch(`${baseUrl}/records?from=${records.length}`, {
        signal: AbortSignal.timeout(5_000),
      });
      const body = (await response.json()) as { records: ReceivedRecord[] };
      for (const record of body.records) records.push(record);
    },
  };
}

function makeCertificate(keyFile: string, certificateFile: string): void {
  try {
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
        ...["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        ...["-keyout", keyFile, "-out", certificateFile],
      ],
      { stdio: "ignore" },
    );
  } catch (error) {
    fail(
      `openssl could not make the certificate of the https:// receiver that sms-live-smpp's live endpoint needs (${(error as Error).message}); install openssl or run with --no-webhooks`,
    );
  }
}

export interface WebhookFigures {
  environment: WebhookEnvironment;
  /** Events of the environment created from the start of the measured load on (the events table). */
  events_written: number;
  /** Of those, how many the receiver answered (distinct `webhook-id`s)… */
  events_arrived: number;
  /** …and how many it had not when the wait ended. */
  events_left: number;
  /** Requests the receiver answered for those events: more than events_arrived if some came twice. */
  deliveries_received: number;
  arrived_by_type: Record<string, number>;
  /**
   * From the status change to the receiver's 2xx, over the events that arrived: the status
   * timestamp of the message (`data.<status>_at`) for sms.*, the event's `created_at` otherwise.
   */
  lag_ms: { mean: number; p50: number; p90: number; p99: number; max: number } | null;
  /** Every event written had arrived and no message was left in the queue. */
  drained: boolean;
  drained_after_load_s: number | null;
  /** How long the bench waited after the scenario, at most WEBHOOK_DRAIN_SECONDS. */
  waited_s: number;
}

/**
 * Waits until every event written since `since` has arrived (and no message is queued, which
 * would write more), for at most `seconds` (WEBHOOK_DRAIN_SECONDS unless given), then sums up the
 * events since `since`.
 */
export async function measureWebhooks(options: {
  receiver: WebhookReceiver;
  probe: QueueProbe;
  environment: WebhookEnvironment;
  /** Date.now() at the start of the measured load, and at its end. */
  since: number;
  loadEnd: number;
  seconds?: number;
}): Promise<WebhookFigures> {
  const { receiver, probe, environment, since, loadEnd } = options;
  const sinceIso = new Date(since).toISOString();
  const waitStart = Date.now();
  const deadline = waitStart + (options.seconds ?? WEBHOOK_DRAIN_SECONDS) * 1000;
  let written = 0;
  let arrived = new Map<string, ReceivedRecord>();
  let drainedAt: number | undefined;
  for (;;) {
    await receiver.refresh();
    written = await probe.eventsWritten(environment, sinceIso);
    arrived = firstArrivals(receiver.records, environment, since);
    if (probe.queueEmpty() && arrived.size >= written) {
      drainedAt = Date.now();
      break;
    }
    if (Date.now() >= deadline) break;
    await sleep(250);
  }
  const requests = receiver.records.filter(([, , env, created]) => env === environment && created >= since);
  const byType: Record<string, number> = {};
  const lags: number[] = [];
  for (const [, type, , created, statusAt, answeredAt] of arrived.values()) {
    byType[type] = (byType[type] ?? 0) + 1;
    lags.push(answeredAt - (statusAt ?? created));
  }
  return {
    environment,
    events_written: written,
    events_arrived: arrived.size,
    events_left: Math.max(0, written - arrived.size),
    deliveries_received: requests.length,
    arrived_by_type: byType,
    lag_ms: lagSummary(lags),
    drained: drainedAt !== undefined,
    drained_after_load_s: drainedAt === undefined ? null : round(Math.max(0, drainedAt - loadEnd) / 1000, 2),
    waited_s: round((Date.now() - waitStart) / 1000, 2),
  };
}

/** The first arrival of each event of `environment` created at or after `since`. */
function firstArrivals(
  records: ReceivedRecord[],
  environment: string,
  since: number,
): Map<string, ReceivedRecord> {
  const first = new Map<string, ReceivedRecord>();
  for (const record of records) {
    const [id, , env, created] = record;
    if (env === environment && created >= since && !first.has(id)) first.set(id, record);
  }
  return first;
}

function lagSummary(lags: number[]): WebhookFigures["lag_ms"] {
  if (lags.length === 0) return null;
  const sorted = lags.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return {
    mean: round(sorted.reduce((sum, lag) => sum + lag, 0) / sorted.length, 1),
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: sorted.at(-1) ?? 0,
  };
}
