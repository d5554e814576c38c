import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { newRequestId } from "../http/request-id.js";
import type { Logger } from "../lib/logger.js";
import type { Metrics, MetricsListenerConfig } from "./metrics.js";

export interface MetricsListener {
  /** `http://host:port` */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` on an address of its own (`METRICS_HOST`/`METRICS_PORT`), so the main port,
 * which a reverse proxy may expose, does not serve it. Anything else answers 404.
 */
export async function startMetricsListener(
  metrics: Metrics,
  where: MetricsListenerConfig,
  log: Logger,
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = request.url?.split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      const requestId = newRequestId();
      response.writeHead(404, {
        "content-type": "application/json; charset=utf-8",
        "x-request-id": requestId,
      });
      response.end(
        JSON.stringify({
          error: { code: "not_found", message: "Only GET /metrics is served here.", request_id: requestId },
        }),
      );
      return;
    }
    metrics.render().then(
      ({ contentType, text }) => {
        response.writeHead(200, { "content-type": contentType });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        log.error({ err: error }, "metrics: rendering failed");
        response.writeHead(500, { "content-type": "application/json; charset=utf-8" });
        response.end(JSON.stringify({ error: { code: "internal_error", message: "Metrics failed." } }));
      },
    );
  });
  // A scraper keeps its connection open between scrapes; closing must not wait for it.
  server.keepAliveTimeout = 5_000;
  server.listen(where.port, where.host);
  await once(server, "listening");
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
  log.info({ url }, "metrics listening");
  return {
    url,
    close: async () => {
      const closed = once(server, "close");
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
