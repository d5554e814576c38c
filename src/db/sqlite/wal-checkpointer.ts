import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** How often the thread copies what the log gained into the database file. */
const CHECKPOINT_INTERVAL_MS = 100;
/**
 * The serving connection's own checkpoint threshold while the thread runs, in pages (64 MiB).
 * A log starts over only at a write that finds it fully copied; under unbroken load the thread
 * never quite catches up, so at this size the serving connection checkpoints once itself, copying
 * the little the thread has not, and the log starts over at its next write.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_384;

/**
 * The thread's code, as CommonJS text so that it runs alike from the TypeScript sources (tests)
 * and from the compiled server. It opens its own connection: SQLite lets a checkpoint run beside
 * the writer, which it never blocks (PASSIVE). Under `synchronous = NORMAL` the checkpoint syncs
 * the log before copying it and the database file after, so copied pages are durable before the
 * log can start over.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driverPath);
const db = new Database(workerData.databasePath, { fileMustExist: true });
db.pragma("synchronous = NORMAL");
db.pragma("wal_autocheckpoint = 0");
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage({ failed: String(error && error.message) });
  }
}, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints a WAL-mode SQLite database on a thread of its own. SQLite's automatic checkpoint
 * runs in the COMMIT that crosses its threshold (1,000 pages), on the event loop: copying 4 MiB
 * into the database file and two fsyncs, 4–8 ms during which no request moves. Here the thread
 * does that work every 100 ms, pages written many times in between are copied once, and the
 * serving connection's threshold is raised to FALLBACK_AUTOCHECKPOINT_PAGES.
 */
export class WalCheckpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;

  /** `onFailure` hears of a checkpoint that failed; the next one tries again. */
  constructor(databasePath: string, onFailure: (message: string) => void) {
    this.#worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        databasePath,
        driverPath: createRequire(import.meta.url).resolve("better-sqlite3"),
        intervalMs: CHECKPOINT_INTERVAL_MS,
      },
      // A connection and a timer: keep the thread's heap small.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
    });
    this.#worker.unref();
    this.#worker.on("message", (message: { failed: string }) => onFailure(message.failed));
    this.#exited = new Promise((resolve) => {
      this.#worker.once("exit", () => resolve());
      this.#worker.once("error", (error) => onFailure(error.message));
    });
  }

  /** Stops the thread between checkpoints and closes its connection. */
  async close(): Promise<void> {
    // Unreferenced while it runs, so it never keeps a process alive; referenced while it stops,
    // so the process waits for it.
    this.#worker.ref();
    this.#worker.postMessage("stop");
    await this.#exited;
  }
}
