/** Wakes an idle worker in this process as soon as a message is queued, instead of at its next poll. */
export class QueueSignal {
  readonly #waiters = new Set<() => void>();
  #version = 0;

  /** Changes on every notify: a worker reads it before claiming, to know whether it missed one. */
  get version(): number {
    return this.#version;
  }

  notify(): void {
    this.#version += 1;
    for (const wake of this.#waiters) wake();
  }

  /** Resolves on the next notify (at once if one came after `sinceVersion`), or after `ms`. */
  wait(ms: number, sinceVersion?: number): Promise<void> {
    if (sinceVersion !== undefined && sinceVersion !== this.#version) return Promise.resolve();
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
