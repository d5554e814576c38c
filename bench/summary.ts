// What every load scenario reports the same way: the CPU an operation cost, latency from
// autocannon, and the rate at which messages reached the SMSC.
import type autocannon from "autocannon";

/**
 * What one operation of a scenario cost the processes under test (Dakiya's server and worker, or
 * Kannel's boxes): their user + system CPU time from /proc, counted from the start of the measured
 * load until the work it caused was done (the queue drained, the webhook events delivered), divided
 * by the operations of the load. The figure speed is judged by: it does not move with the
 * machine's speed as much as throughput does.
 */
export interface CpuPerOperation {
  us_per_operation: number | null;
  /** An answered request (the API scenarios, the bare route) or an accepted message (live SMS). */
  operation: "request" | "message";
  operations: number;
  cpu_seconds: number;
  /** Seconds after the load that were counted, until its work was done or the wait ran out. */
  tail_seconds: number;
  /** Whether the work the load caused was all done when the count stopped. */
  tail_done: boolean;
}

export function cpuPerOperation(options: {
  operation: CpuPerOperation["operation"];
  operations: number;
  cpuSeconds: number;
  tailSeconds: number;
  tailDone: boolean;
}): CpuPerOperation {
  return {
    us_per_operation:
      options.operations > 0 ? round((1e6 * options.cpuSeconds) / options.operations, 0) : null,
    operation: options.operation,
    operations: options.operations,
    cpu_seconds: round(options.cpuSeconds, 3),
    tail_seconds: round(options.tailSeconds, 2),
    tail_done: options.tailDone,
  };
}

export interface LatencySummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p99_9: number;
  max: number;
}

export interface SmscSummary {
  submits_during_load: number;
  submit_sm_per_s_during_load: number;
  submits_until_drained: number;
  /** From the start of the load to the last submit_sm once the queue was empty. */
  submit_sm_per_s_until_drained: number;
  last_submit_after_load_s: number;
}

export function latencySummary(result: autocannon.Result, meanDigits = 1): LatencySummary {
  const { latency } = result;
  return {
    mean: round(latency.mean, meanDigits),
    p50: latency.p50,
    p90: latency.p90,
    p99: latency.p99,
    p99_9: latency.p99_9,
    max: latency.max,
  };
}

/** Submits counted by the SMSC: at the start of the load, at its end, and once drained. */
export function smscSummary(counts: {
  atStart: number;
  atLoadEnd: number;
  atEnd: number;
  loadStart: number;
  loadEnd: number;
  lastSubmitAt: number;
}): SmscSummary {
  const loadSeconds = (counts.loadEnd - counts.loadStart) / 1000;
  const untilDrained = counts.atEnd - counts.atStart;
  return {
    submits_during_load: counts.atLoadEnd - counts.atStart,
    submit_sm_per_s_during_load: round((counts.atLoadEnd - counts.atStart) / loadSeconds, 0),
    submits_until_drained: untilDrained,
    submit_sm_per_s_until_drained: round(
      untilDrained / Math.max(0.001, (counts.lastSubmitAt - counts.loadStart) / 1000),
      0,
    ),
    last_submit_after_load_s: round(Math.max(0, counts.lastSubmitAt - counts.loadEnd) / 1000, 2),
  };
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
