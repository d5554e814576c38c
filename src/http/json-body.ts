import type { FastifyRequest } from "fastify";
import { ApiError } from "../errors.js";
import { addRouteOnRequest, addRoutePreValidation, BODY_METHODS, takesBody } from "./route-hooks.js";
import type { App } from "./types.js";

/**
 * Bodies are JSON (docs/api-reference.md#conventions). A POST, PUT or PATCH with a body of any
 * other type, or with a body and no `Content-Type`, is 415 `unsupported_media_type`. A request
 * with no body at all (no `Content-Type` and no or an empty body, however it is framed, or
 * `application/json` with an empty body) is taken as `{}`, so `curl -X POST …/rotate-secret`
 * works and a route that needs fields still answers 400 naming the first one missing.
 *
 * The JSON parser (text-safety.ts) and the parser of requests without a type below answer an
 * empty body as none; this is the one place that turns none into `{}`.
 */
export function registerJsonBodies(app: App): void {
  // Carriers' webhooks come in their providers' formats (form posts, signed raw JSON).
  const takesJson = (route: { url: string; method: string | string[] }) =>
    !route.url.startsWith("/webhooks/") && takesBody(route);
  app.removeContentTypeParser("text/plain");
  app.addContentTypeParser("*", takeOnlyAnEmptyBody);
  addRouteOnRequest(app, takesJson, (request, _reply, done) => {
    if (!BODY_METHODS.has(request.method)) return done();
    const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
    if (type !== undefined && type !== "application/json") throw unsupportedMediaType();
    done();
  });
  addRoutePreValidation(app, takesJson, (request, _reply, done) => {
    if (request.body === undefined && BODY_METHODS.has(request.method)) request.body = {};
    done();
  });
}

/**
 * Parses what no other parser takes: a request without `Content-Type` that Fastify could not
 * tell has no body (a `Content-Length` other than 0, or chunked), or a type no route here reads.
 * Only an empty chunked body passes, as no body; the first byte of any other is refused.
 */
function takeOnlyAnEmptyBody(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (error: Error | null, body?: unknown) => void,
): void {
  if (request.is404) {
    // An unknown address answers 404 whatever it was sent.
    done(null, undefined);
    return;
  }
  const chunked = request.headers["transfer-encoding"] !== undefined;
  if (request.headers["content-type"] !== undefined || !chunked) {
    done(unsupportedMediaType());
    return;
  }
  let settled = false;
  const settle = (error: Error | null) => {
    if (settled) return;
    settled = true;
    payload.removeListener("data", onData);
    payload.removeListener("end", onEnd);
    payload.removeListener("error", settle);
    done(error, undefined);
  };
  const onData = (chunk: Buffer | string) => {
    if (chunk.length > 0) settle(unsupportedMediaType());
  };
  const onEnd = () => settle(null);
  payload.on("data", onData);
  payload.on("end", onEnd);
  payload.on("error", settle);
}

function unsupportedMediaType(): ApiError {
  return new ApiError("unsupported_media_type", "Send the body as Content-Type: application/json.");
}
