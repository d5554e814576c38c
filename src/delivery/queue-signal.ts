/** Wakes an idle worker in this process as soon as a message is queued, instead of at its next poll. */
export class QueueSignal {
  readonly #waiters = new Set<() => void>();

  notify(): void {
    for (const wake of this.#waiters) wake();
  }

  /** Resolves on the next notify, or after `ms`. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#waiters.add(wake);
    });
  }
}
