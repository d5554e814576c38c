import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { transactionConflictOf } from "../db/transaction.js";
import { ApiError, type ErrorCode } from "../errors.js";
import { RouteMethods } from "./route-methods.js";
import type { App } from "./types.js";
import { type AjvIssue, describeAllowed } from "./validation-messages.js";
import type { PageFallback } from "./web.js";

interface ErrorBody {
  error: { code: ErrorCode; message: string; param?: string; retry_after?: number; request_id: string };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  const body: ErrorBody = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      ...(error.retryAfter === undefined ? {} : { retry_after: error.retryAfter }),
      request_id: request.id,
    },
  };
  if (error.code === "missing_api_key") reply.header("WWW-Authenticate", "Bearer");
  if (error.retryAfter !== undefined) reply.header("Retry-After", String(error.retryAfter));
  return reply.code(error.status).type("application/json; charset=utf-8").send(body);
}

/**
 * Turns everything Fastify or a route can throw into the error envelope of docs/api-reference.md#errors. A known
 * path with another method is a 405 with `Allow` (an OPTIONS request: 204 with `Allow`). An
 * unknown address is a 404 unless `pageFallback` answers it (with the dashboard's page). Call it
 * before the routes are added: it collects their methods as they come.
 */
export function registerErrorHandling(app: App, pageFallback: PageFallback = () => undefined): void {
  const routeMethods = RouteMethods.collect(app);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError.status >= 500) request.log.error({ err: error }, "request failed");
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const allowed = routeMethods.allowed(path);
    if (allowed.length > 0) {
      reply.header("Allow", allowed.join(", "));
      if (request.method === "OPTIONS") return reply.code(204).send();
      return sendError(
        request,
        reply,
        new ApiError(
          "method_not_allowed",
          `${request.method} is not allowed on ${path}; it takes ${allowed.join(", ")}.`,
        ),
      );
    }
    return (
      pageFallback(request, reply) ??
      sendError(request, reply, new ApiError("not_found", `No route ${request.method} ${path}.`))
    );
  });
}

function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) return validationError(error);
  if (transactionConflictOf(error)) {
    // Conflicts are run again (db/transaction.ts); this one kept conflicting. Nothing was written.
    return new ApiError("unavailable", "The request conflicted with others; try again.").withRetryAfter(1);
  }
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new ApiError("invalid_request", "The body is not valid JSON.");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new ApiError("invalid_request", "The body is empty; send a JSON object.");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError("payload_too_large", `The body is larger than ${bodyLimitText(request)}.`);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError("unsupported_media_type", "Send the body as Content-Type: application/json.");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ApiError("invalid_request", "Content-Length does not match the body.");
  }
  const status = error.statusCode ?? 500;
  if (status === 404) return new ApiError("not_found", "Not found.");
  if (status === 429) return new ApiError("rate_limited", "Too many requests.");
  if (status === 503) return new ApiError("unavailable", "The service is unavailable; try again shortly.");
  if (status >= 400 && status < 500) return new ApiError("invalid_request", "The request is invalid.");
  return new ApiError("internal_error", "Something went wrong on our side; it has been logged.");
}

/** The route's body limit (16 KiB, or 1 MiB on the batch route), as people write it. */
function bodyLimitText(request: FastifyRequest): string {
  const bytes = request.routeOptions.bodyLimit;
  if (bytes === undefined) return "the limit";
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function validationError(error: FastifyError): ApiError {
  const issue = error.validation?.[0] as AjvIssue | undefined;
  if (!issue) return new ApiError("invalid_request", "The request is invalid.");
  const path = issue.instancePath.split("/").filter(Boolean).map(decodePointer);
  if (issue.keyword === "required") {
    const param = [...path, String(issue.params.missingProperty)].join(".");
    return new ApiError("invalid_request", `${param} is required.`, param);
  }
  if (issue.keyword === "additionalProperties") {
    const param = [...path, String(issue.params.additionalProperty)].join(".");
    return new ApiError("invalid_request", `${param} is not a known field.`, param);
  }
  const param = path.join(".");
  const problem = describeAllowed(error.validation as AjvIssue[], issue) ?? issue.message ?? "is invalid";
  if (param === "")
    return new ApiError("invalid_request", `The ${error.validationContext ?? "request"} ${problem}.`);
  return new ApiError("invalid_request", `${param} ${problem}.`, param);
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
