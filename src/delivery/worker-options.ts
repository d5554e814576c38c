export interface WorkerOptions {
  /** Messages claimed (and sent concurrently) per round. */
  batchSize: number;
  /** How long a claim lasts; a crashed worker's messages are due again after it. */
  leaseSeconds: number;
  /** How often an idle worker looks for due messages (a send in the same process wakes it at once). */
  pollIntervalMs: number;
  /** Attempts before a message that keeps failing is given up, failed and refunded. */
  maxAttempts: number;
}

export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  batchSize: 50,
  leaseSeconds: 30,
  pollIntervalMs: 250,
  maxAttempts: 8,
};
