import type { AppContext } from "./context.js";
import type { Carriers } from "./delivery/carrier.js";
import { startScheduleSweeps } from "./delivery/schedule.js";
import { startDeliveryLoop } from "./delivery/worker.js";
import { DEFAULT_WORKER_OPTIONS, type WorkerOptions } from "./delivery/worker-options.js";
import { randomBase62 } from "./lib/ids.js";
import { startMaintenance } from "./maintenance.js";
import { startOtpExpirySweep } from "./otp/expiry.js";
import { sendDueFallbacks } from "./otp/fallback.js";
import { startWebhookDispatcher } from "./webhooks/dispatcher.js";

/*
 * Every loop that runs in the background starts here: a worker's (the delivery queue, OTP
 * fallbacks, the OTP expiry sweep, scheduled messages and the expiry of unsent ones, the webhook
 * relay and dispatcher) and the server's periodic
 * clean-up (maintenance.ts).
 */

export interface RunningWorker {
  readonly id: string;
  /** Stops its loops in order, the delivery loop finishing the messages in hand. */
  stop(): Promise<void>;
}

/**
 * A worker's loops, until stopped. The delivery loop owns `carriers` from then on (it starts,
 * shows and closes them); OTP fallbacks choose among their SMS routes.
 */
export function startWorker(
  ctx: AppContext,
  carriers: Carriers,
  options: Partial<WorkerOptions> = {},
): RunningWorker {
  const settings = { ...DEFAULT_WORKER_OPTIONS, ...options };
  const id = `wkr_${randomBase62(12)}`;
  const delivery = startDeliveryLoop(ctx, carriers, id, settings);

  // OTP fallbacks fall due by the clock, not by a send: look for them every second.
  let fallbacks: Promise<unknown> = Promise.resolve();
  const fallbackTimer = setInterval(
    () => {
      fallbacks = fallbacks
        .then(() => sendDueFallbacks(ctx, { smsRoutes: () => carriers.live.sms?.routes?.() ?? [] }))
        .catch((error: unknown) => ctx.log.error({ err: error, worker: id }, "sending OTP fallbacks failed"));
    },
    Math.min(1_000, settings.pollIntervalMs * 4),
  );
  fallbackTimer.unref();
  const stopExpirySweep = startOtpExpirySweep(ctx);
  const stopScheduleSweeps = startScheduleSweeps(ctx);
  // Events to customers' webhook endpoints: a loop of its own, so no endpoint can hold up sends.
  const webhooks = startWebhookDispatcher(ctx, {
    owner: id,
    pollIntervalMs: Math.min(50, settings.pollIntervalMs),
  });

  ctx.log.info({ worker: id }, "delivery worker started");
  return {
    id,
    async stop() {
      clearInterval(fallbackTimer);
      await fallbacks;
      await delivery.stop();
      await stopExpirySweep();
      await stopScheduleSweeps();
      await webhooks.stop();
      ctx.log.info({ worker: id }, "delivery worker stopped");
    },
  };
}

/**
 * The background loops of a process: the periodic clean-up where `maintenance` says (`serve`
 * runs it, `worker` does not), and a worker where `worker` is given. Stopping stops the clean-up
 * first, then the worker.
 */
export function startBackgroundLoops(
  ctx: AppContext,
  loops: { maintenance: boolean; worker?: { carriers: Carriers; options: Partial<WorkerOptions> } },
): { stop(): Promise<void> } {
  const stopMaintenance = loops.maintenance ? startMaintenance(ctx) : undefined;
  const worker = loops.worker ? startWorker(ctx, loops.worker.carriers, loops.worker.options) : undefined;
  return {
    async stop() {
      await stopMaintenance?.();
      await worker?.stop();
    },
  };
}
