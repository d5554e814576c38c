import type { AddressInfo } from "node:net";
import type { AppContext } from "./context.js";
import type { App } from "./http/types.js";
import { startMaintenance } from "./maintenance.js";

export interface RunningServer {
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

export async function startServer(
  app: App,
  ctx: AppContext,
  listen: { host: string; port: number },
): Promise<RunningServer> {
  await app.listen({ host: listen.host, port: listen.port });
  const { address, port } = app.server.address() as AddressInfo;
  const stopMaintenance = startMaintenance(ctx);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      ctx.shuttingDown = true;
      stopMaintenance();
      await app.close();
      await ctx.close();
      ctx.log.info("server stopped");
    })();
    return stopping;
  };
  return { url: `http://${address.includes(":") ? `[${address}]` : address}:${port}`, stop };
}
