import type { AppContext } from "../../src/context.js";
import type { WorkerOptions } from "../../src/delivery/worker-options.js";
import { type RunningWorker, startWorker } from "../../src/worker.js";
import { testCarriers } from "./context.js";

/** Runs a real worker until no message is queued any more (or `timeoutMs` passes), then stops it. */
export async function drainQueue(
  ctx: AppContext,
  options: Partial<WorkerOptions> = {},
  timeoutMs = 10_000,
): Promise<void> {
  const worker = startWorker(ctx, testCarriers(ctx), { pollIntervalMs: 10, ...options });
  try {
    await waitFor(async () => (await countQueued(ctx)) === 0, timeoutMs);
  } finally {
    await worker.stop();
  }
}

export async function countQueued(ctx: AppContext): Promise<number> {
  const row = await ctx.db
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("status", "=", "queued")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function waitFor(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export type { RunningWorker };
