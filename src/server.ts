import type { AddressInfo } from "node:net";
import type { AppContext } from "./context.js";
import { type CarrierSettings, createCarriers } from "./delivery/carriers/wiring.js";
import type { WorkerOptions } from "./delivery/worker-options.js";
import { logTemplateWarnings } from "./dlt/registry.js";
import type { App } from "./http/types.js";
import { startMetricsListener } from "./metrics/listener.js";
import { startBackgroundLoops } from "./worker.js";

/** The longest a stopping server waits for requests whose clients have gone. */
const REQUEST_DRAIN_MS = 10_000;

export interface RunningServer {
  url: string;
  /** Where `/metrics` listens when it has a listener of its own (METRICS_PORT). */
  metricsUrl: string | undefined;
  /**
   * Stops accepting connections, lets in-flight requests finish, stops the periodic clean-up,
   * lets the worker finish the messages in hand, then closes the database.
   */
  stop(): Promise<void>;
}

/**
 * Serves `app`, with the periodic clean-up, and a delivery worker when `options.worker` is given;
 * the worker's carriers are wired from the carrier settings in `options` (the sandbox alone when
 * there are none).
 */
export async function startServer(
  app: App,
  ctx: AppContext,
  options: { host: string; port: number; worker?: Partial<WorkerOptions> } & CarrierSettings,
): Promise<RunningServer> {
  // A response sent once shutdown has begun closes its connection: a keep-alive connection left
  // open after its in-flight request would hold `app.close()` up until the keep-alive timeout.
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (ctx.shuttingDown) reply.header("Connection", "close");
    done(null, payload);
  });
  await logTemplateWarnings(ctx);
  await app.listen({ host: options.host, port: options.port });
  const { address, port } = app.server.address() as AddressInfo;
  const metricsListener = ctx.metrics.listener
    ? await startMetricsListener(ctx.metrics, ctx.metrics.listener, ctx.log).catch(async (error: unknown) => {
        await app.close();
        throw error;
      })
    : undefined;
  const loops = startBackgroundLoops(ctx, {
    maintenance: true,
    ...(options.worker
      ? { worker: { carriers: createCarriers(ctx, options), options: options.worker } }
      : {}),
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      ctx.shuttingDown = true;
      await app.close();
      // A request whose client hung up has no connection left for app.close() to wait for.
      await app.requestsInFlight.drained(REQUEST_DRAIN_MS);
      await loops.stop();
      // Open until the worker has stopped, so a last scrape still sees its final counts.
      await metricsListener?.close();
      await ctx.close();
      ctx.log.info("server stopped");
    })();
    return stopping;
  };
  return {
    url: `http://${address.includes(":") ? `[${address}]` : address}:${port}`,
    metricsUrl: metricsListener?.url,
    stop,
  };
}
