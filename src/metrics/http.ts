import type { AppContext } from "../context.js";
import type { App } from "../http/types.js";

/**
 * Counts every answered request by its route pattern (`/v2/sms/:id`, never the URL, which carries
 * numbers and ids; `unmatched` when no route matched), method and status, and times it. Serves
 * `GET /metrics` here unless it has a listener of its own (`METRICS_PORT`).
 */
export function registerMetrics(app: App, ctx: AppContext): void {
  const { metrics } = ctx;
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    metrics.httpRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (metrics.listener) return;
  // Documented in docs/metrics.md rather than in the OpenAPI document, which describes the JSON API.
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    const { contentType, text } = await metrics.render();
    return reply.type(contentType).send(text);
  });
}
