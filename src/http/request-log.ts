import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

/**
 * One log line per request, written when the response has gone out: method, route pattern,
 * status and duration, with the request id Fastify binds to the request's logger. The route
 * pattern (`/v2/sms/:id`), never the URL: paths and query strings carry phone numbers, and
 * clients put keys in `?api_key=`. A request no route matched logs `route: null`.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.info(line, "request completed");
  }
}
