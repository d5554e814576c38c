import type { AppContext } from "../context.js";
import { type Acceptance, recordAcceptances } from "./status.js";

/** Acceptances written in one transaction at most. */
const MAX_BATCH = 200;

interface Waiting {
  acceptance: Acceptance;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Records a worker's acceptances in batches: those that come back in the same turn of the event
 * loop, or while the batch before is being written, go in one transaction (`recordAcceptances`),
 * a few statements for the lot rather than a few per message. Each caller learns whether its
 * own was recorded. If a batch fails, its acceptances are written one by one, so that one bad
 * acceptance fails alone, as it would have without batching.
 */
export function batchedAcceptances(ctx: AppContext): (acceptance: Acceptance) => Promise<boolean> {
  const waiting: Waiting[] = [];
  let writing = false;

  const writeWaiting = async () => {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCH);
      try {
        const recorded = await recordAcceptances(
          ctx,
          batch.map(({ acceptance }) => acceptance),
        );
        batch.forEach(({ resolve }, index) => {
          resolve(recorded[index] === true);
        });
      } catch {
        for (const { acceptance, resolve, reject } of batch) {
          await recordAcceptances(ctx, [acceptance]).then(([recorded]) => resolve(recorded === true), reject);
        }
      }
    }
    writing = false;
  };

  return (acceptance) =>
    new Promise<boolean>((resolve, reject) => {
      waiting.push({ acceptance, resolve, reject });
      if (writing) return;
      writing = true;
      setImmediate(() => void writeWaiting());
    });
}
