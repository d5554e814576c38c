export type CircuitState = "closed" | "open" | "half_open";

/**
 * A route's circuit breaker: `failures` failures in a row open it; while open the route gets no
 * traffic. After `cooldownMs` it is half-open: one message goes through as a probe, and its
 * success closes the circuit while its failure opens it for another cool-down.
 */
export class CircuitBreaker {
  #failures = 0;
  #openedAt: number | undefined;
  #probing = false;

  constructor(
    private readonly settings: { failures: number; cooldownMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  get state(): CircuitState {
    if (this.#openedAt === undefined) return "closed";
    return this.now() - this.#openedAt >= this.settings.cooldownMs ? "half_open" : "open";
  }

  /** Whether a message may go out on the route now (a half-open route takes one probe at a time). */
  allows(): boolean {
    const state = this.state;
    return state === "closed" || (state === "half_open" && !this.#probing);
  }

  /** A message is going out; on a half-open circuit it is the probe. Call only when `allows()`. */
  begin(): void {
    if (this.state === "half_open") this.#probing = true;
  }

  /** The message never went out (no window, the route dropped): a probe may go again. */
  abandon(): void {
    this.#probing = false;
  }

  succeeded(): void {
    this.#failures = 0;
    this.#openedAt = undefined;
    this.#probing = false;
  }

  failed(): void {
    this.#failures += 1;
    const probeFailed = this.#probing || this.state === "half_open";
    this.#probing = false;
    if (probeFailed || (this.#openedAt === undefined && this.#failures >= this.settings.failures)) {
      this.#openedAt = this.now();
    }
  }
}
