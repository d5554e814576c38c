import { type MessagePriority, PRIORITY_LANE } from "../../messages/traffic.js";

/** Of every this many grants to waiters, one goes to the lowest lane waiting (docs/routes.md#priority-inside-a-route). */
export const LOWEST_LANE_TURN = 10;

type Waiter = (granted: boolean) => void;

/**
 * At most `size` holders at once; the rest wait in a lane by their message's priority. A place
 * that frees goes to the oldest waiter of the highest lane (`otp`, then `transactional`, then
 * `bulk`), except that every `LOWEST_LANE_TURN`th grant while several lanes wait goes to the
 * oldest waiter of the lowest lane: a window kept full by OTPs still gives bulk a tenth of its
 * places. Used for the SMPP send window.
 */
export class Window {
  #inUse = 0;
  /** One queue per lane, oldest first; indexed by `PRIORITY_LANE`. */
  readonly #lanes: Waiter[][] = [[], [], []];
  /** Grants to a higher lane since the lowest lane waiting last had one. */
  #passedOver = 0;

  constructor(readonly size: number) {}

  get inUse(): number {
    return this.#inUse;
  }

  /** Waiters in every lane. */
  get waiting(): number {
    return this.#lanes.reduce((sum, lane) => sum + lane.length, 0);
  }

  /** A place at once, if one is free. */
  tryAcquire(): boolean {
    if (this.#inUse >= this.size) return false;
    this.#inUse += 1;
    return true;
  }

  /**
   * Resolves true with a place, or false when `timeoutMs` passes or `signal` aborts first (then
   * nothing is held). Without either it waits as long as it takes, in the lane of `priority`.
   */
  acquire(
    priority: MessagePriority,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<boolean> {
    if (this.tryAcquire()) return Promise.resolve(true);
    const { timeoutMs, signal } = options;
    if (timeoutMs === 0 || signal?.aborted) return Promise.resolve(false);
    const lane = this.#lanes[PRIORITY_LANE[priority]] as Waiter[];
    return new Promise<boolean>((resolve) => {
      const give = (granted: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", giveUp);
        resolve(granted);
      };
      const giveUp = () => {
        const index = lane.indexOf(give);
        if (index >= 0) {
          lane.splice(index, 1);
          give(false);
        }
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(giveUp, timeoutMs);
      signal?.addEventListener("abort", giveUp, { once: true });
      lane.push(give);
    });
  }

  release(): void {
    const next = this.#nextWaiter();
    if (next) next(true);
    else this.#inUse -= 1;
  }

  #nextWaiter(): Waiter | undefined {
    const lanes = this.#lanes;
    let highest = -1;
    let lowest = -1;
    for (let index = 0; index < lanes.length; index++) {
      if ((lanes[index] as Waiter[]).length === 0) continue;
      if (highest < 0) highest = index;
      lowest = index;
    }
    if (highest < 0) return undefined;
    // Only one lane waiting, or the lowest one's turn: it goes, and the count starts again.
    if (highest === lowest || this.#passedOver >= LOWEST_LANE_TURN - 1) {
      this.#passedOver = 0;
      return (lanes[lowest] as Waiter[]).shift();
    }
    this.#passedOver += 1;
    return (lanes[highest] as Waiter[]).shift();
  }
}

/** Node's timers fire at whole milliseconds: a slot less than this ahead (in µs) is taken at once. */
const TIMER_RESOLUTION_US = 1_000;

/**
 * Spaces sends to at most `perSecond`, and can be held back for a while when the other side
 * says it is overloaded (SMPP throttling). Each send has a slot `1 / perSecond` after the one
 * before, in whole microseconds rounded up, so the rate is never above `perSecond`. Those that
 * must wait share one timer, which lets go at once all whose slots have come: their sends then
 * start in the same turn of the event loop, and leave the socket in one write.
 */
export class RateLimiter {
  readonly #intervalUs: number;
  #nextSlotUs = 0;
  readonly #waiting: Array<{ slotUs: number; go: () => void }> = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(perSecond: number) {
    this.#intervalUs = Math.ceil(1_000_000 / perSecond);
  }

  /** Resolves when the caller may send. */
  take(): Promise<void> {
    const nowUs = Date.now() * 1000;
    const slotUs = Math.max(nowUs, this.#nextSlotUs);
    this.#nextSlotUs = slotUs + this.#intervalUs;
    if (slotUs - nowUs < TIMER_RESOLUTION_US && this.#waiting.length === 0) return Promise.resolve();
    return new Promise<void>((go) => {
      this.#waiting.push({ slotUs, go });
      this.#arm();
    });
  }

  #arm(): void {
    const first = this.#waiting[0];
    if (this.#timer || !first) return;
    this.#timer = setTimeout(() => this.#letGo(), (first.slotUs - Date.now() * 1000) / 1000);
  }

  #letGo(): void {
    this.#timer = undefined;
    const nowUs = Date.now() * 1000;
    while ((this.#waiting[0]?.slotUs ?? Number.POSITIVE_INFINITY) - nowUs < TIMER_RESOLUTION_US) {
      this.#waiting.shift()?.go();
    }
    this.#arm();
  }

  /** How long a send starting now would wait for its slot. */
  delayMs(): number {
    return Math.max(0, this.#nextSlotUs / 1000 - Date.now());
  }

  /** No send starts before `ms` from now. */
  holdFor(ms: number): void {
    this.#nextSlotUs = Math.max(this.#nextSlotUs, (Date.now() + ms) * 1000);
  }
}
