/** Items written in one transaction at most. */
const MAX_BURST = 200;

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes items in bursts: those that come in the same turn of the event loop, or while the burst
 * before is being written, go to one call of `writeMany` (one transaction, a few statements for
 * the lot rather than a few per item), which answers a result for each, in order.
 *
 * Failure policy: a failed burst is written again item by item, each in a call of its own, so
 * that one bad item fails alone, as it would without bursts (unlike sqlite/transaction-bursts.ts, where
 * a failed burst fails every item).
 */
export function burstsRetriedOneByOne<T, R>(
  writeMany: (items: readonly T[]) => Promise<R[]>,
): (item: T) => Promise<R> {
  const waiting: Array<Waiting<T, R>> = [];
  let writing = false;

  const settle = (entries: Array<Waiting<T, R>>, results: R[]) => {
    entries.forEach(({ resolve, reject }, index) => {
      if (index < results.length) resolve(results[index] as R);
      else reject(new Error("a burst writer answered fewer results than it was given items"));
    });
  };

  const writeWaiting = async () => {
    while (waiting.length > 0) {
      const burst = waiting.splice(0, MAX_BURST);
      try {
        settle(burst, await writeMany(burst.map(({ item }) => item)));
      } catch {
        for (const entry of burst) {
          await writeMany([entry.item]).then((results) => settle([entry], results), entry.reject);
        }
      }
    }
    writing = false;
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (writing) return;
      writing = true;
      setImmediate(() => void writeWaiting());
    });
}
