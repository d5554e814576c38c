export { Dakiya, type DakiyaOptions, DEFAULT_BASE_URL, SDK_VERSION } from "./client.js";
export {
  AuthenticationError,
  type ClientErrorCode,
  ConflictError,
  DakiyaConnectionError,
  DakiyaError,
  InsufficientBalanceError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  ServerError,
  UnprocessableEntityError,
} from "./errors.js";
export { AutoPaginatedList, type Page } from "./pagination.js";
export type { components, paths } from "./schema.js";
export type { RequestOptions } from "./transport.js";
export type * from "./types.js";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "./verify-webhook.js";
