// API scenarios of `npm run bench`: one route of a running server loaded with autocannon, a warm-up
// then the measured load, with the server's CPU and memory watched meanwhile. bench/run.ts sets up
// the account, starts the servers (Dakiya, and bench/bare.ts for the baseline) and prints the table.

import autocannon from "autocannon";
import {
  type CpuPerOperation,
  cpuPerOperation,
  type LatencySummary,
  latencySummary,
  round,
} from "./summary.js";

/** What a scenario needs to know about the server process it loads. */
export interface MeasuredProcess {
  readonly exited: boolean;
  /** Resident set size now, in MB. */
  rssMb(): number;
  /** VmHWM (the largest resident set size since the last resetPeak), in MB. */
  peakRssMb(): number;
  /** Starts VmHWM again from the current RSS (Linux clear_refs); false where that is not possible. */
  resetPeak(): boolean;
  /** CPU seconds (user + system) used so far. */
  cpuSeconds(): number;
}

export interface ApiScenario {
  name: string;
  description: string;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  /** The body of the nth request (n from 1, warm-up included); none for a GET. */
  body?: (n: number) => string;
  /** Groups the answers of the measured load, e.g. by the `reason` of a verification. */
  outcome?: (status: number, body: string) => string;
}

export interface ApiLoadResult {
  /** The server's CPU per answered request, over the load and the work it left (see `tail`). */
  cpu: CpuPerOperation;
  /** When the measured load started and ended (the warm-up before it). */
  load_started_at: string;
  load_ended_at: string;
  load_seconds: number;
  connections: number;
  warmup_seconds: number;
  http: {
    requests_completed: number;
    ok_2xx: number;
    /** 2xx answers per second: the figure the ratio to the bare route is taken from. */
    requests_per_s: number;
    latency_ms: LatencySummary;
    non_2xx: number;
    status_codes: Record<string, number>;
    errors: number;
    timeouts: number;
    outcomes?: Record<string, number>;
    sample_error_bodies: string[];
  };
  server: {
    idle_rss_mb: number;
    /** VmHWM over the warm-up and the load (reset before the warm-up where Linux allows). */
    peak_rss_mb: number;
    peak_rss_since: "scenario start" | "server start";
    max_sampled_rss_mb: number;
    cpu_percent_during_load: number;
    /** The server's CPU time (all its threads) during the load alone ÷ the requests it answered. */
    cpu_us_per_request: number | null;
  };
  bench_process_cpu_percent_during_load: number;
}

export async function runApiLoad(
  baseUrl: string,
  scenario: ApiScenario,
  server: MeasuredProcess,
  options: {
    connections: number;
    warmupSeconds: number;
    loadSeconds: number;
    /**
     * After the warm-up, before the measured load: waits until the work the warm-up queued is
     * done, so that the load's CPU is its own.
     */
    settle?: () => Promise<void>;
    /**
     * After the load: waits until the work it caused is done (messages delivered, webhook events
     * arrived) and says whether it all was. Its time and CPU count towards the load's.
     */
    tail?: (load: { startedAt: string; endedAt: string }) => Promise<boolean>;
  },
): Promise<ApiLoadResult> {
  const statusCodes: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  const errorBodies: string[] = [];
  let sequence = 0;
  const { body, outcome } = scenario;
  const load = (seconds: number) =>
    autocannon({
      url: baseUrl,
      connections: options.connections,
      duration: seconds,
      sampleInt: 100,
      timeout: 10,
      requests: [
        {
          method: scenario.method,
          path: scenario.path,
          headers: scenario.headers,
          ...(body
            ? {
                setupRequest: (request: autocannon.Request) => {
                  sequence += 1;
                  return { ...request, body: body(sequence) };
                },
              }
            : {}),
          onResponse: (status: number, responseBody: string) => {
            statusCodes[status] = (statusCodes[status] ?? 0) + 1;
            if (outcome) {
              const key = outcome(status, responseBody);
              outcomes[key] = (outcomes[key] ?? 0) + 1;
            }
            if ((status < 200 || status > 299) && errorBodies.length < 5) {
              errorBodies.push(`${status} ${responseBody.slice(0, 300)}`);
            }
          },
        },
      ],
    });

  const idleRss = server.rssMb();
  const resetWorked = server.resetPeak();
  let maxSampledRss = 0;
  const sampler = setInterval(() => {
    maxSampledRss = Math.max(maxSampledRss, server.rssMb());
  }, 200);
  try {
    await load(options.warmupSeconds);
    await options.settle?.();
    for (const record of [statusCodes, outcomes]) for (const key of Object.keys(record)) delete record[key];
    errorBodies.length = 0;
    const cpuAtStart = server.cpuSeconds();
    const benchCpuAtStart = process.cpuUsage();
    const loadStart = Date.now();
    const result = await load(options.loadSeconds);
    const loadEnd = Date.now();
    const loadSeconds = (loadEnd - loadStart) / 1000;
    const serverCpu = server.cpuSeconds() - cpuAtStart;
    const benchCpu = process.cpuUsage(benchCpuAtStart);
    maxSampledRss = Math.max(maxSampledRss, server.rssMb());
    const loadStartedAt = new Date(loadStart).toISOString();
    const loadEndedAt = new Date(loadEnd).toISOString();
    const tailDone = options.tail
      ? await options.tail({ startedAt: loadStartedAt, endedAt: loadEndedAt })
      : true;
    const tailSeconds = (Date.now() - loadEnd) / 1000;
    const cpu = cpuPerOperation({
      operation: "request",
      operations: result.requests.total,
      cpuSeconds: server.cpuSeconds() - cpuAtStart,
      tailSeconds,
      tailDone,
    });
    const ok = result["2xx"];
    return {
      cpu,
      load_started_at: loadStartedAt,
      load_ended_at: loadEndedAt,
      load_seconds: round(loadSeconds, 2),
      connections: options.connections,
      warmup_seconds: options.warmupSeconds,
      http: {
        requests_completed: result.requests.total,
        ok_2xx: ok,
        requests_per_s: round(ok / loadSeconds, 0),
        latency_ms: latencySummary(result, 2),
        non_2xx: result.non2xx,
        status_codes: { ...statusCodes },
        errors: result.errors,
        timeouts: result.timeouts,
        ...(outcome ? { outcomes: { ...outcomes } } : {}),
        sample_error_bodies: [...errorBodies],
      },
      server: {
        idle_rss_mb: idleRss,
        peak_rss_mb: server.peakRssMb(),
        peak_rss_since: resetWorked ? "scenario start" : "server start",
        max_sampled_rss_mb: round(maxSampledRss, 1),
        cpu_percent_during_load: round((100 * serverCpu) / loadSeconds, 0),
        cpu_us_per_request:
          result.requests.total > 0 ? round((1e6 * serverCpu) / result.requests.total, 0) : null,
      },
      bench_process_cpu_percent_during_load: round(
        (100 * (benchCpu.user + benchCpu.system)) / 1e6 / loadSeconds,
        0,
      ),
    };
  } finally {
    clearInterval(sampler);
  }
}

/** The `reason` of a /v2/otp/verify answer, or its status when it has none. */
export function verifyOutcome(status: number, body: string): string {
  return /"reason":"([a-z_]+)"/.exec(body)?.[1] ?? String(status);
}
