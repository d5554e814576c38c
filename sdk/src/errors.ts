import type { ErrorCode } from "./types.js";

/** Codes the SDK gives failures that never got an answer in the API's error envelope. */
export type ClientErrorCode = "connection_error" | "timeout" | "unexpected_response";

export interface DakiyaErrorFields {
  status: number;
  code: ErrorCode | ClientErrorCode | (string & {});
  message: string;
  param?: string | undefined;
  request_id?: string | undefined;
  retry_after?: number | undefined;
  headers?: Headers | undefined;
  cause?: unknown;
}

/**
 * An API call that failed: the error envelope's `code`, `message`, `param` and `request_id`,
 * the HTTP `status`, and `retry_after` (seconds) from the `Retry-After` header. The subclasses
 * name the statuses worth catching on their own.
 */
export class DakiyaError extends Error {
  override name = "DakiyaError";
  /** The HTTP status; 0 when no answer came (see DakiyaConnectionError). */
  readonly status: number;
  readonly code: ErrorCode | ClientErrorCode | (string & {});
  /** The request field at fault, as a dotted path (`variables.otp`), when one is. */
  readonly param: string | undefined;
  /** The server's id of the request (`X-Request-Id`): quote it to the operator. */
  readonly request_id: string | undefined;
  /** Seconds to wait before trying again, from `Retry-After` (on 429 and some 503s). */
  readonly retry_after: number | undefined;
  readonly headers: Headers | undefined;

  constructor(fields: DakiyaErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.status = fields.status;
    this.code = fields.code;
    this.param = fields.param;
    this.request_id = fields.request_id;
    this.retry_after = fields.retry_after;
    this.headers = fields.headers;
  }
}

/** 400 `invalid_request` (and 413, 415): the request itself is malformed; `param` names the field. */
export class InvalidRequestError extends DakiyaError {
  override name = "InvalidRequestError";
}

/** 401 `missing_api_key` or `invalid_api_key`: unknown, malformed or deleted key. */
export class AuthenticationError extends DakiyaError {
  override name = "AuthenticationError";
}

/** 402 `insufficient_balance`: the environment's balance cannot pay; nothing was sent. */
export class InsufficientBalanceError extends DakiyaError {
  override name = "InsufficientBalanceError";
}

/** 404 `not_found`: no such resource for this key's account and environment. */
export class NotFoundError extends DakiyaError {
  override name = "NotFoundError";
}

/**
 * 409 `idempotency_key_in_use`: a request with the same Idempotency-Key is still running (tried
 * again by itself); or `not_cancellable`: the message was already handed to a carrier or has ended.
 */
export class ConflictError extends DakiyaError {
  override name = "ConflictError";
}

/** 422: a send's semantic check failed (`unknown_template`, `missing_variable`, …), or a reused Idempotency-Key. */
export class UnprocessableEntityError extends DakiyaError {
  override name = "UnprocessableEntityError";
}

/** 429 `rate_limited` or `resend_cooldown`; `retry_after` says how long to wait. */
export class RateLimitError extends DakiyaError {
  override name = "RateLimitError";
}

/** 5xx: the server failed or is unavailable. */
export class ServerError extends DakiyaError {
  override name = "ServerError";
}

/** No answer: the connection failed or the attempt timed out (`code` `connection_error` or `timeout`). */
export class DakiyaConnectionError extends DakiyaError {
  override name = "DakiyaConnectionError";
}

const ERROR_CLASSES: Record<number, typeof DakiyaError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  402: InsufficientBalanceError,
  404: NotFoundError,
  409: ConflictError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

interface Envelope {
  error: { code: string; message: string; param?: string; request_id?: string; retry_after?: number };
}

function isEnvelope(body: unknown): body is Envelope {
  const error = (body as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  return typeof error?.code === "string" && typeof error.message === "string";
}

/** The typed error for an answer that is not 2xx; `body` is what came, parsed as JSON where it was. */
export function errorFromResponse(response: Response, body: unknown): DakiyaError {
  const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
  const requestId = response.headers.get("x-request-id") ?? undefined;
  const ErrorClass = ERROR_CLASSES[response.status] ?? (response.status >= 500 ? ServerError : DakiyaError);
  if (!isEnvelope(body)) {
    const text = typeof body === "string" ? body.slice(0, 200) : "";
    return new ErrorClass({
      status: response.status,
      code: "unexpected_response",
      message: `HTTP ${response.status} without Dakiya's error body${text ? `: ${text}` : ""}`,
      request_id: requestId,
      retry_after: retryAfter,
      headers: response.headers,
    });
  }
  return new ErrorClass({
    status: response.status,
    code: body.error.code,
    message: body.error.message,
    param: body.error.param,
    request_id: body.error.request_id ?? requestId,
    retry_after: retryAfter ?? body.error.retry_after,
    headers: response.headers,
  });
}

/** `Retry-After` as delta-seconds or an HTTP date, in whole seconds from now; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
