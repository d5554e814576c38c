// The tables printed at the end of a run: sms-live-smpp's metrics side by side, one row per API
// scenario with the CPU a request cost first, the targets, and the webhook delivery figures.

import {
  CONNECTIONS,
  DB_LABEL,
  DELIVERY,
  LOAD_SECONDS,
  ROUND_API_PROCS,
  WARMUP_SECONDS,
  WEBHOOK_DRAIN_SECONDS,
} from "./options.js";
import type { Machine } from "./processes.js";
import type { ApiScenarioResult } from "./scenarios/api-routes.js";
import type { LiveScenarioResult } from "./scenarios/live-smpp.js";
import type { CampaignScenarioResult } from "./scenarios/otp-during-campaign.js";
import { round } from "./summary.js";
import type { WebhookFigures } from "./webhooks.js";

export function printLiveReport(results: LiveScenarioResult[], elapsedSeconds: number): void {
  const [first] = results;
  if (!first) return;
  const m = first.machine;
  const rows: Array<[string, (r: LiveScenarioResult) => string]> = [
    [
      "server CPU µs a message, load and drain",
      (r) => `${r.cpu.us_per_operation ?? "–"}${r.cpu.tail_done ? "" : " (the drain was cut short)"}`,
    ],
    ["load", (r) => `${r.load_seconds} s, ${r.connections} connections`],
    ["messages a request", (r) => String(r.http.messages_per_request)],
    ["messages accepted/s (202)", (r) => String(r.http.accepted_per_s)],
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
        ] satisfies Array<[string, (r: LiveScenarioResult) => string]>)
      : []),
    ...(results.some((r) => r.routes)
      ? ([
          [
            "submits by route (share / weight's share)",
            (r) =>
              r.routes
                ?.map(
                  (route) =>
                    `${route.name} ${route.smsc_submits} (${route.share_percent}% / ${route.weight_share_percent}%)`,
                )
                .join(", ") ?? "–",
          ],
        ] satisfies Array<[string, (r: LiveScenarioResult) => string]>)
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
  const single = results.find((r) => r.scenario === "sms-live-smpp");
  if (single) {
    const after = single.queue.drained_after_load_s;
    lines.push(
      `  ${after !== null && after <= 2 ? "met    " : "not met"}  sms-live-smpp: queue empty ${after === null ? "never" : `${after} s`} after the load (target ≤ 2 s)`,
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

/** otp-during-campaign: how long the OTPs waited behind the campaign, and what the campaign kept doing. */
export function printCampaignReport(result: CampaignScenarioResult): void {
  const { otp, campaign, cpu } = result;
  const ms = (value: number | null) => (value === null ? "–" : `${value} ms`);
  const lines = [
    "",
    `${result.scenario}: ${result.description}.`,
    "",
    "| metric | value |",
    "|---|---|",
    `| server CPU µs a message at the SMSC | ${cpu.us_per_operation ?? "–"}${cpu.tail_done ? "" : " (an OTP never arrived)"} |`,
    `| OTP acceptance → submit_sm p50 / p99 / max | ${ms(otp.submit_latency_ms.p50)} / ${ms(otp.submit_latency_ms.p99)} / ${ms(otp.submit_latency_ms.max)} |`,
    `| OTPs sent / accepted / at the SMSC | ${otp.sent} / ${otp.accepted} / ${otp.arrived} |`,
    `| OTP send answered p50 / p99 | ${ms(otp.http_latency_ms.p50)} / ${ms(otp.http_latency_ms.p99)} |`,
    `| campaign submit_sm/s meanwhile | ${campaign.submit_sm_per_s} (route at ${result.settings.SMPP_TPS}) |`,
    `| campaign queued in / still queued at the end | ${campaign.queued_in_s} s / ${campaign.queued_at_end} of ${campaign.messages} |`,
    `| server peak RSS | ${result.server.peak_rss_mb} MB |`,
    "",
  ];
  if (otp.sample_error_bodies.length > 0)
    lines.push(`Sample failed OTP sends: ${otp.sample_error_bodies.join(" | ")}`, "");
  if (campaign.queued_at_end === 0) {
    lines.push(
      "Note: the campaign drained before the OTPs ended: the later OTPs had no bulk to wait behind.",
      "",
    );
  }
  process.stdout.write(lines.join("\n"));
}

/** The API scenarios' latency targets: p99 in ms. */
const P99_TARGETS_MS: ReadonlyArray<readonly [scenario: string, p99Ms: number]> = [
  ["balance", 15],
  ["otp-send", 30],
  ["sms-send-sandbox", 25],
];

/** The API scenarios and the bare route: one row each, and the targets. */
export function printApiReport(
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
    `API scenarios on ${DB_LABEL}${DELIVERY ? "" : ", delivery off"}: ${WARMUP_SECONDS} s warm-up, then ${LOAD_SECONDS} s at ${CONNECTIONS} connections each.`,
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gb} GB, Node ${m.node} (${m.platform})`,
    "",
    "| scenario | server CPU µs/request, load and tail | req/s (2xx) | p50 / p99 / max ms | non-2xx | errors | tail s | CPU µs/request, load alone | peak RSS MB |",
    "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ...results.map((r) => {
      const l = r.http.latency_ms;
      const tail = `${r.cpu.tail_seconds}${r.cpu.tail_done ? "" : " (cut short)"}`;
      return `| ${r.scenario} | ${r.cpu.us_per_operation ?? "–"} | ${thousands(r.http.requests_per_s)} | ${l.p50} / ${l.p99} / ${l.max} | ${r.http.non_2xx} | ${r.http.errors + r.http.timeouts} | ${tail} | ${r.server.cpu_us_per_request ?? "–"} | ${r.server.peak_rss_mb} |`;
    }),
    "",
    "The tail: after the load, until what it queued was delivered and its webhook events had arrived; its CPU counts towards the requests'.",
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
  if (!DELIVERY) {
    lines.push(
      "",
      "Delivery off (--no-delivery): the server ran without its worker, so nothing it queued was delivered and the CPU is the API's alone. The targets count delivery and are not judged here.",
      `Results in bench/results/latest.json; the run took ${round(elapsedSeconds, 1)} s.`,
      "",
    );
    process.stdout.write(lines.join("\n"));
    return;
  }
  lines.push("", "Targets (speed itself is judged by the CPU a request costs, against the build before):");
  for (const [name, p99] of P99_TARGETS_MS) {
    target(name, (r) => [
      r.http.latency_ms.p99 <= p99,
      `p99 ${r.http.latency_ms.p99} ms (target ≤ ${p99} ms)`,
    ]);
  }
  if (results.some((r) => r.scenario !== "bare")) {
    lines.push(
      ROUND_API_PROCS === undefined
        ? `  ${serverPeakMb <= 200 ? "met    " : "not met"}  server RSS: peak ${serverPeakMb} MB over the scenarios (target ≤ 200 MB)`
        : `  not judged  RSS: peak ${serverPeakMb} MB summed over the cluster's primary, its ${ROUND_API_PROCS} API process${ROUND_API_PROCS === 1 ? "" : "es"} and the worker (the target of ≤ 200 MB is one dakiya serve's)`,
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

/** Unless --no-webhooks: per scenario that wrote events, the sends/s and how the events followed. */
export function printWebhookReport(results: Array<LiveScenarioResult | ApiScenarioResult>): void {
  const rows = results.filter((r) => r.webhooks !== null && r.webhooks.events_written > 0);
  if (rows.length === 0) return;
  const thousands = (n: number) => n.toLocaleString("en-US");
  const lines = [
    "",
    `Webhooks: one endpoint per environment subscribed to "*", answered 200 at once by a receiver on loopback (a child process); events written from the start of each load, waiting up to ${WEBHOOK_DRAIN_SECONDS} s after it. Lag: from the status change to the receiver's 2xx.`,
    "",
    "| scenario | sends/s | events written | arrived | left | lag p50 / p99 / max ms | backlog empty |",
    "|---|---:|---:|---:|---:|---|---|",
    ...rows.map((r) => {
      const w = r.webhooks as WebhookFigures;
      const sends = "accepted_per_s" in r.http ? r.http.accepted_per_s : r.http.requests_per_s;
      const lag = w.lag_ms ? `${w.lag_ms.p50} / ${w.lag_ms.p99} / ${w.lag_ms.max}` : "–";
      const empty = w.drained
        ? `${w.drained_after_load_s} s after the load`
        : `no (${thousands(w.events_left)} left after ${w.waited_s} s more)`;
      return `| ${r.scenario} | ${thousands(sends)} | ${thousands(w.events_written)} | ${thousands(w.events_arrived)} | ${thousands(w.events_left)} | ${lag} | ${empty} |`;
    }),
    "",
  ];
  for (const r of rows) {
    const w = r.webhooks as WebhookFigures;
    const types = Object.entries(w.arrived_by_type)
      .map(([type, n]) => `${type} ${thousands(n)}`)
      .join(", ");
    const repeats = w.deliveries_received - w.events_arrived;
    lines.push(`${r.scenario} events arrived: ${types}${repeats > 0 ? ` (${repeats} delivered twice)` : ""}`);
  }
  lines.push("");
  process.stdout.write(lines.join("\n"));
}
