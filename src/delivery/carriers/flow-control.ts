/** At most `size` holders at once; the rest wait in order. Used for the SMPP send window. */
export class Window {
  #inUse = 0;
  readonly #waiting: Array<(granted: boolean) => void> = [];

  constructor(readonly size: number) {}

  get inUse(): number {
    return this.#inUse;
  }

  /** A place at once, if one is free. */
  tryAcquire(): boolean {
    if (this.#inUse >= this.size) return false;
    this.#inUse += 1;
    return true;
  }

  /**
   * Resolves true with a place, or false when `timeoutMs` passes or `signal` aborts first (then
   * nothing is held). Without either it waits as long as it takes.
   */
  acquire(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
    if (this.tryAcquire()) return Promise.resolve(true);
    const { timeoutMs, signal } = options;
    if (timeoutMs === 0 || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const give = (granted: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", giveUp);
        resolve(granted);
      };
      const giveUp = () => {
        const index = this.#waiting.indexOf(give);
        if (index >= 0) {
          this.#waiting.splice(index, 1);
          give(false);
        }
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(giveUp, timeoutMs);
      signal?.addEventListener("abort", giveUp, { once: true });
      this.#waiting.push(give);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next(true);
    else this.#inUse -= 1;
  }
}

/**
 * Spaces sends to at most `perSecond`, and can be held back for a while when the other side
 * says it is overloaded (SMPP throttling).
 */
export class RateLimiter {
  readonly #intervalMs: number;
  #nextSlot = 0;

  constructor(perSecond: number) {
    this.#intervalMs = 1000 / perSecond;
  }

  /** Resolves when the caller may send. */
  async take(): Promise<void> {
    const now = Date.now();
    const slot = Math.max(now, this.#nextSlot);
    this.#nextSlot = slot + this.#intervalMs;
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
  }

  /** How long a send starting now would wait for its slot. */
  delayMs(): number {
    return Math.max(0, this.#nextSlot - Date.now());
  }

  /** No send starts before `ms` from now. */
  holdFor(ms: number): void {
    this.#nextSlot = Math.max(this.#nextSlot, Date.now() + ms);
  }
}
