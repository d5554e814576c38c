// sms-live-routes: the load of sms-live-smpp through a Dakiya whose live SMS goes out over two
// carrier routes (SMPP_ROUTES) of equal priority, weighted 3:1, each bound to a bench SMSC of its
// own. It runs on a server of its own, started after the other scenarios on the same database,
// and reports what sms-live-smpp reports (the SMSC figures summed over both) and how the
// messages split between the routes.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fail, log, onCleanup } from "../lifecycle.js";
import { RECEIPT_DELAY_MS, ROUTES_SCENARIO, SMSC_NAGLE } from "../options.js";
import type { QueueProbe } from "../probe.js";
import type { Machine } from "../processes.js";
import { startDakiya, waitForReady } from "../server.js";
import { SMSC_CREDENTIALS } from "../setup.js";
import { type BenchSmsc, startBenchSmsc } from "../smsc.js";
import { round } from "../summary.js";
import type { WebhookFigures } from "../webhooks.js";
import { type LiveScenarioResult, runLiveSmppScenario, SINGLE_SEND } from "./live-smpp.js";

/** The two routes: names, weights, and each SMSC's share of the submits they should get. */
const ROUTES = [
  { name: "bench-a", weight: 3 },
  { name: "bench-b", weight: 1 },
] as const;

/** The variables SMPP_ROUTES replaces (their values go into the file instead). */
const SHORTHAND = /^SMPP_(?!ROUTES$)/;

export async function runLiveRoutesScenario(options: {
  temp: string;
  /** The main server's environment: its SMPP_* settings become the routes' fields. */
  serverEnv: Record<string, string>;
  port: number;
  key: string;
  probe: QueueProbe;
  machine: Machine;
  /**
   * The scenario's webhook figures, taken while its server still runs to deliver them (their
   * wait is part of the load's tail, so their CPU counts towards the messages').
   */
  webhooks: (load: { startedAt: string; endedAt: string }) => Promise<WebhookFigures | null>;
}): Promise<LiveScenarioResult> {
  const { serverEnv } = options;
  const smscs: BenchSmsc[] = [];
  for (const _route of ROUTES) {
    const smsc = await startBenchSmsc({
      ...SMSC_CREDENTIALS,
      receiptDelayMs: RECEIPT_DELAY_MS,
      nagle: SMSC_NAGLE,
    });
    onCleanup(() => smsc.stop());
    smscs.push(smsc);
  }
  const file = join(options.temp, "routes.json");
  writeFileSync(
    file,
    JSON.stringify(
      ROUTES.map((route, index) => ({
        name: route.name,
        url: smscs[index]?.url,
        priority: 1,
        weight: route.weight,
        tps: Number(serverEnv.SMPP_TPS ?? 50),
        window: Number(serverEnv.SMPP_WINDOW ?? 10),
      })),
    ),
  );
  const env = Object.fromEntries(Object.entries(serverEnv).filter(([name]) => !SHORTHAND.test(name)));
  const server = startDakiya({ ...env, PORT: String(options.port), SMPP_ROUTES: file });
  onCleanup(() => server.stop());
  const baseUrl = `http://127.0.0.1:${options.port}`;
  await waitForReady(baseUrl, server, true);
  log(
    `dakiya serve is up on ${baseUrl} with routes ${ROUTES.map((r, i) => `${r.name} (weight ${r.weight}, SMSC port ${smscs[i]?.port})`).join(" and ")}`,
  );

  let webhooks: WebhookFigures | null = null;
  const result = await runLiveSmppScenario({
    baseUrl,
    key: options.key,
    smsc: combined(smscs),
    server,
    queued: options.probe.queued,
    queueEmpty: options.probe.queueEmpty,
    awaitingReceipt: options.probe.awaitingReceipt,
    machine: options.machine,
    load: {
      ...SINGLE_SEND,
      scenario: ROUTES_SCENARIO,
      description: `${SINGLE_SEND.description}, over two routes of equal priority weighted ${ROUTES.map((r) => r.weight).join(":")}`,
    },
    tail: async (load) => {
      webhooks = await options.webhooks(load);
      return webhooks?.drained ?? true;
    },
  });
  const submits = smscs.map((smsc) => smsc.submits);
  const total = submits.reduce((sum, n) => sum + n, 0);
  const weights = ROUTES.reduce((sum, route) => sum + route.weight, 0);
  result.description = result.description.replace(
    "to a loopback SMSC",
    "to two loopback SMSCs, one per route",
  );
  result.settings = {
    ...result.settings,
    routes: ROUTES.map((route) => `${route.name} weight ${route.weight}`).join(", "),
  };
  result.routes = ROUTES.map((route, index) => ({
    name: route.name,
    weight: route.weight,
    smsc_submits: submits[index] ?? 0,
    share_percent: total > 0 ? round((100 * (submits[index] ?? 0)) / total, 1) : 0,
    weight_share_percent: round((100 * route.weight) / weights, 1),
  }));
  const { byStatus, carrierParts } = await options.probe.totals();
  result.totals = { messages_by_status: byStatus, carrier_parts: carrierParts, smsc_submits: total };
  result.server.peak_rss_mb = server.peakRssMb();
  result.webhooks = webhooks;
  await server.stop();
  if (server.exitCode !== 0) log(`note: the routes server exited with ${server.exitCode ?? server.signal}`);
  result.server.warn_log_lines = server.logLines.warn;
  result.server.error_log_lines = server.logLines.error;
  if (total === 0) fail(`${ROUTES_SCENARIO}: no submit reached either SMSC`);
  await Promise.all(smscs.map((smsc) => smsc.stop()));
  return result;
}

/** The SMSCs of the routes seen as one, as the live scenario counts an SMSC. */
function combined(smscs: BenchSmsc[]): BenchSmsc {
  const sum = (read: (smsc: BenchSmsc) => number) => smscs.reduce((total, smsc) => total + read(smsc), 0);
  const times = (read: (smsc: BenchSmsc) => number | undefined) =>
    smscs.map(read).filter((t): t is number => t !== undefined);
  return {
    port: smscs[0]?.port ?? 0,
    url: smscs[0]?.url ?? "",
    get submits() {
      return sum((s) => s.submits);
    },
    get firstSubmitAt() {
      const all = times((s) => s.firstSubmitAt);
      return all.length > 0 ? Math.min(...all) : undefined;
    },
    get lastSubmitAt() {
      const all = times((s) => s.lastSubmitAt);
      return all.length > 0 ? Math.max(...all) : undefined;
    },
    get boundSessions() {
      return sum((s) => s.boundSessions);
    },
    get refusedBinds() {
      return sum((s) => s.refusedBinds);
    },
    get receiptsSent() {
      return sum((s) => s.receiptsSent);
    },
    get receiptsAcked() {
      return sum((s) => s.receiptsAcked);
    },
    get receiptsPending() {
      return sum((s) => s.receiptsPending);
    },
    stop: async () => {
      await Promise.all(smscs.map((smsc) => smsc.stop()));
    },
  };
}
