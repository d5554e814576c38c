/** Items written in one transaction at most. */
const MAX_BURST = 200;

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes items in bursts: those that come in the same turn of the event loop, or while the burst
 * before is being written, go to one call of `write` (one transaction, a few statements for the
 * lot rather than a few per item), which answers a result for each, in order. If a burst fails,
 * its items are written one by one, so that one bad item fails alone, as it would without bursts.
 */
export function inBursts<T, R>(write: (items: readonly T[]) => Promise<R[]>): (item: T) => Promise<R> {
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
        settle(burst, await write(burst.map(({ item }) => item)));
      } catch {
        for (const entry of burst) {
          await write([entry.item]).then((results) => settle([entry], results), entry.reject);
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
