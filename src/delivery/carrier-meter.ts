/** How one `submit_sm` (or a provider call) on a route ended, as metrics count it. */
export type SubmitOutcome = "accepted" | "throttled" | "temporary_error" | "permanent_error" | "timeout";

/** One route's connection as /readyz and /metrics show it. */
export interface RouteState {
  name: string;
  bound: boolean;
  /** Outstanding submits allowed at once. */
  window: number;
  inFlight: number;
  /** The route's circuit breaker: `open` sends nothing until a probe succeeds. */
  circuit: "closed" | "open" | "half_open";
}

/**
 * What carriers report to metrics. Carriers depend on this interface only; the metrics module
 * implements it, and `unmetered` stands in where metrics are not wired (CLI, tests).
 */
export interface CarrierMeter {
  submit(route: string, outcome: SubmitOutcome): void;
  /** A delivery receipt arrived `seconds` after its message was accepted by the route. */
  receipt(route: string, seconds: number): void;
}

export const unmetered: CarrierMeter = {
  submit() {},
  receipt() {},
};
