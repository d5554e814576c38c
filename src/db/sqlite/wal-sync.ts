import { close, fdatasync, openSync } from "node:fs";

export interface CommitWaiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Makes SQLite commits durable without stopping the event loop. The connection runs with
 * `synchronous = NORMAL`, so COMMIT writes the WAL but does not sync it; this syncs the WAL file
 * on libuv's thread pool and only then tells the committed transactions they are done. A sync
 * covers every commit written before it began, so commits that arrive while one is running wait
 * for the next: one sync in flight at a time, as many commits per sync as came in meanwhile.
 *
 * An answer still goes out only after its transaction is on disk, as with `synchronous = FULL`;
 * what changes is that the process goes on serving while the disk works. (Checkpoints, which
 * copy the WAL into the database file, sync both files themselves under NORMAL.)
 */
export class WalSync {
  readonly #walPath: string;
  #fd: number | undefined;
  #syncing = false;
  #waiting: CommitWaiter[] = [];
  #idle: Array<() => void> = [];
  /**
   * Set by a failed sync. Linux may then drop the unsynced pages and report the next sync as a
   * success, so no later commit can be said to be on disk: every one fails until a restart.
   */
  #lost: Error | undefined;

  readonly #onSynced: () => void;

  /** `onSynced` runs after each sync, once its commits are told, before the next sync starts. */
  constructor(walPath: string, onSynced: () => void = () => {}) {
    this.#walPath = walPath;
    this.#onSynced = onSynced;
  }

  /** Whether a sync is running: a commit made now waits for the next one. */
  get syncing(): boolean {
    return this.#syncing;
  }

  /** Resolves `waiters` once everything committed so far is on disk. */
  afterCommit(waiters: CommitWaiter[]): void {
    if (waiters.length === 0) return;
    if (this.#lost) {
      for (const waiter of waiters) waiter.reject(this.#lost);
      return;
    }
    this.#waiting.push(...waiters);
    if (!this.#syncing) this.#sync();
  }

  #sync(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    this.#syncing = true;
    let fd: number;
    try {
      // The WAL exists once the first commit wrote it; SQLite keeps the file while connected.
      this.#fd ??= openSync(this.#walPath, "r+");
      fd = this.#fd;
    } catch (error) {
      this.#finish(batch, error);
      return;
    }
    fdatasync(fd, (error) => {
      if (error) {
        this.#lost = new Error(
          `syncing the SQLite write-ahead log failed (${error.code}); restart the server`,
        );
      }
      this.#finish(batch, this.#lost);
    });
  }

  #finish(batch: CommitWaiter[], error: unknown): void {
    this.#syncing = false;
    for (const waiter of batch) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
    this.#onSynced();
    if (this.#syncing) return;
    if (this.#waiting.length > 0) this.#sync();
    else for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Waits for the syncs under way, then lets the WAL file go. */
  async close(): Promise<void> {
    if (this.#syncing) await new Promise<void>((resolve) => this.#idle.push(resolve));
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) await new Promise<void>((resolve) => close(fd, () => resolve()));
  }
}
