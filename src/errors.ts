/**
 * Every error code of the API contract (docs/api-reference.md#errors), with its HTTP status, and the few the
 * dashboard's session routes add (docs/dashboard-api.md).
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  not_signed_in: 401,
  invalid_credentials: 401,
  insufficient_balance: 402,
  csrf_rejected: 403,
  forbidden: 403,
  ip_not_allowed: 403,
  two_factor_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_cancellable: 409,
  last_owner: 409,
  idempotency_key_in_use: 409,
  already_set_up: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  unknown_template: 422,
  unknown_sender: 422,
  template_sender_mismatch: 422,
  missing_variable: 422,
  unknown_variable: 422,
  variable_too_long: 422,
  invalid_variable: 422,
  message_too_long: 422,
  unsupported_destination: 422,
  channel_not_configured: 422,
  template_inactive: 422,
  invalid_caller_id: 422,
  cta_not_whitelisted: 422,
  template_rule: 422,
  resend_cooldown: 429,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The codes only the dashboard's routes answer (its sessions; settings the console and the CLI
 * save, such as `invalid_caller_id`): they stay out of the public OpenAPI document.
 */
export const DASHBOARD_ERROR_CODES: ReadonlySet<ErrorCode> = new Set([
  "not_signed_in",
  "invalid_credentials",
  "csrf_rejected",
  "already_set_up",
  "last_owner",
  "two_factor_required",
  "invalid_caller_id",
  "template_rule",
]);

/** An expected failure that the HTTP layer turns into the error envelope. */
export class ApiError extends Error {
  readonly status: number;
  /** Seconds, for `Retry-After` on a 429. */
  retryAfter: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_STATUS[code];
  }

  withRetryAfter(seconds: number): this {
    this.retryAfter = Math.max(1, Math.ceil(seconds));
    return this;
  }
}

/** Bad operator input (configuration, CLI arguments): reported as one line, never a stack. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * A provider's webhook refused (bad signature, wrong verify token): `invalid_request` in the
 * envelope, but 401 or 403, since the error table (docs/api-reference.md#errors) has no code of its own for it.
 */
export class WebhookRefused extends ApiError {
  override readonly status: number;

  constructor(status: 401 | 403, message: string) {
    super("invalid_request", message);
    this.status = status;
  }
}
