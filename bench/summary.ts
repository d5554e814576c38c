// What every load scenario reports the same way: latency from autocannon, and the rate at which
// messages reached the SMSC.
import type autocannon from "autocannon";

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
