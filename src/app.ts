import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { balanceRoutes } from "./accounts/routes.js";
import type { AppContext } from "./context.js";
import { registerDashboardAuth } from "./dashboard/auth.js";
import { dashboardRoutes } from "./dashboard/routes.js";
import { eventRoutes } from "./events/routes.js";
import { registerApiKeyAuth } from "./http/auth.js";
import { createClientErrorHandler } from "./http/client-errors.js";
import { registerErrorHandling } from "./http/error-handler.js";
import { healthRoutes } from "./http/health.js";
import { RequestsInFlight } from "./http/in-flight.js";
import { registerJsonBodies } from "./http/json-body.js";
import { registerDocs } from "./http/openapi.js";
import { generateRequestId, registerRequestIdHeader } from "./http/request-id.js";
import { RequestLogController } from "./http/request-log.js";
import { lazyRequestLogger } from "./http/request-logger.js";
import { serializersOnFirstUse } from "./http/serialization.js";
import { answerFrameworkError, registerTextSafety, registerUtf8Json } from "./http/text-safety.js";
import type { App } from "./http/types.js";
import { registerValidation } from "./http/validation.js";
import { DEFAULT_WEB_ROOT, registerWeb } from "./http/web.js";
import { registerIdempotency } from "./idempotency/hooks.js";
import { registerMetrics } from "./metrics/http.js";
import { otpRoutes } from "./otp/routes.js";
import { voiceWebhookRoutes } from "./receipts/voice-webhook.js";
import { whatsappWebhookRoutes } from "./receipts/whatsapp-webhook.js";
import { reportRoutes } from "./reports/routes.js";
import { sandboxRoutes } from "./sandbox/routes.js";
import { smsListRoutes } from "./sms/list-routes.js";
import { smsRoutes } from "./sms/routes.js";
import { webhookRoutes } from "./webhooks/routes.js";

export const BODY_LIMIT_BYTES = 16 * 1024;

export interface AppOptions {
  /** The built dashboard app; `web/dist` unless a test serves another build. */
  webRoot?: string;
}

/** Builds the HTTP application on a context. It never listens: `server.ts` does, tests use `inject`. */
export async function buildApp(ctx: AppContext, options: AppOptions = {}): Promise<App> {
  const app: App = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: generateRequestId,
    requestIdHeader: false,
    frameworkErrors: answerFrameworkError,
    logController: new RequestLogController(),
    childLoggerFactory: lazyRequestLogger,
    clientErrorHandler: createClientErrorHandler(ctx.log),
    ...requestTimeouts(ctx.requestTimeoutMs),
    // Behind a reverse proxy, the client's address and scheme come from its X-Forwarded-* headers.
    trustProxy: ctx.trustedProxies.length > 0 ? ctx.trustedProxies : false,
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  const requestsInFlight = new RequestsInFlight();
  app.decorate("requestsInFlight", requestsInFlight);
  requestsInFlight.countArrivals(app);

  const pageFallback = await registerWeb(app, options.webRoot ?? DEFAULT_WEB_ROOT);
  registerErrorHandling(app, pageFallback);
  registerValidation(app);
  registerTextSafety(app);
  registerUtf8Json(app);
  registerRequestIdHeader(app);
  registerMetrics(app, ctx);
  registerApiKeyAuth(app, ctx);
  await registerDashboardAuth(app, ctx);
  registerJsonBodies(app);
  registerIdempotency(app, ctx);
  await registerDocs(app, ctx);
  requestsInFlight.countAnswers(app);

  healthRoutes(app, ctx);
  balanceRoutes(app, ctx);
  smsRoutes(app, ctx);
  smsListRoutes(app, ctx);
  otpRoutes(app, ctx);
  eventRoutes(app, ctx);
  webhookRoutes(app, ctx);
  reportRoutes(app, ctx);
  if (ctx.webhooks.whatsapp) whatsappWebhookRoutes(app, ctx, ctx.webhooks.whatsapp);
  if (ctx.webhooks.voice) voiceWebhookRoutes(app, ctx, ctx.webhooks.voice);
  sandboxRoutes(app, ctx);
  dashboardRoutes(app, ctx);
  return app;
}

/**
 * A request must arrive whole, headers and body, within `requestTimeoutMs`: one that stops coming
 * is answered 408 in the error envelope (`clientErrorHandler`) and its connection closed, instead
 * of holding a connection and a request in flight for ever. Node looks for late requests every
 * `connectionsCheckingInterval` (30 s by its default, too coarse for a limit of seconds): a tenth
 * of the limit here, from 50 ms to 5 s. The time a handler takes to answer is not limited.
 */
function requestTimeouts(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    http: {
      headersTimeout: Math.min(requestTimeoutMs, 60_000),
      connectionsCheckingInterval: Math.min(5_000, Math.max(50, Math.round(requestTimeoutMs / 10))),
    },
  };
}
