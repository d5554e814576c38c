/**
 * Runs `run` every `intervalMs` until the returned function is called, one run at a time: a tick
 * that comes while a run is still going is skipped. A failed run goes to `onError`; the next
 * tick runs again. Stopping waits for a run in progress.
 */
export function runPeriodically(
  intervalMs: number,
  run: () => Promise<unknown>,
  onError: (error: unknown) => void,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= run()
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
