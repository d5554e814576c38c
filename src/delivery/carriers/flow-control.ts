/** At most `size` holders at once; the rest wait in order. Used for the SMPP send window. */
export class Window {
  #inUse = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly size: number) {}

  get inUse(): number {
    return this.#inUse;
  }

  async acquire(): Promise<void> {
    if (this.#inUse < this.size) {
      this.#inUse += 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
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

  /** No send starts before `ms` from now. */
  holdFor(ms: number): void {
    this.#nextSlot = Math.max(this.#nextSlot, Date.now() + ms);
  }
}
