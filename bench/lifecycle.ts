// The run's life: everything started registers how to stop it; the steps run once, in reverse
// order, on success, on error, on a signal and on the overall time limit. Also the few waiting
// and printing helpers every part of the bench shares.

export class BenchError extends Error {}

const cleanups: Array<() => Promise<void> | void> = [];
let cleaning: Promise<void> | undefined;

/** Registers a clean-up step (run last-registered first). */
export function onCleanup(step: () => Promise<void> | void): void {
  cleanups.push(step);
}

export function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch {
        // keep going: the remaining steps still need to run
      }
    }
  })();
  return cleaning;
}

let aborting = false;

/** Prints one line, cleans up and exits; the first call wins. */
export function abort(message: string, code = 1): void {
  if (aborting) return;
  aborting = true;
  process.stderr.write(`bench: ${message}\n`);
  void cleanUp().finally(() => process.exit(code));
}

/** abort(), and throws to unwind the caller: the process exits once clean-up is done. */
export function fail(message: string, code = 1): never {
  abort(message, code);
  throw new BenchError(message);
}

export function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

/** Seconds since `since`, for the progress lines. */
export function ms(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Polls `done` every 100 ms until it holds (true) or `seconds` have passed (false). */
export async function waitUntil(done: () => boolean, seconds: number): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
}
