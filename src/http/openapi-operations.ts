import type { FastifySchema, RouteOptions } from "fastify";
import { Type } from "typebox";
import { ERROR_STATUS, type ErrorCode } from "../errors.js";
import { methodsOf, takesBody } from "./route-hooks.js";
import { errorResponse, PUBLIC_ERROR_CODES } from "./schemas.js";

/**
 * What the OpenAPI document says of each operation beyond its route's own schema: the answers
 * every `/v2/` request can get (401, 429, and for bodies and Idempotency-Key their 400, 409,
 * 413, 415 and 422), the Idempotency-Key header, and what each error code of an answer means.
 * It only shapes the document: requests are still validated by the route's schema alone.
 */

/** What each public code means (docs/api-reference.md#errors), for the descriptions of the answers that carry it. */
const ERROR_MEANINGS: Partial<Record<ErrorCode, string>> = {
  invalid_request: "malformed JSON, a wrong type, a missing or unknown field, a bad format",
  missing_api_key: "no `Authorization` header, or not `Bearer <key>`",
  invalid_api_key: "an unknown, malformed or deleted key",
  forbidden: "the key's scope does not allow this request; the message names the scope",
  ip_not_allowed: "the key has `allowed_ips` and the client address is not in them",
  insufficient_balance: "the balance of the key's environment cannot pay for it; nothing is sent",
  not_found: "no such resource in this account and environment",
  idempotency_key_in_use: "a request with the same Idempotency-Key is still being processed",
  payload_too_large: "the body is over 16 KiB (1 MiB on POST /v2/sms/batch)",
  unsupported_media_type: "the body is not sent as `Content-Type: application/json`",
  idempotency_key_reused: "the Idempotency-Key was used with another method, path or body",
  unknown_template: "`template_id` is not registered for the account",
  unknown_sender: "`sender` is not registered for the account",
  template_sender_mismatch: "the template may not go out under this sender",
  missing_variable: "a placeholder of the template has no value in `variables`",
  unknown_variable: "`variables` has a name the template does not use",
  variable_too_long: "a value is over the DLT length limit (30 characters unless the server sets another)",
  invalid_variable: "a value does not fit its typed DLT slot (numeric, url, email, …)",
  message_too_long: "the text is over 10 segments",
  unsupported_destination: "a valid number of a country other than India",
  channel_not_configured:
    "the channel needs set-up first (an SMSC in live; the OTP template and sender for SMS OTPs; a 1600-series caller ID for a BFSI account's voice OTPs)",
  template_inactive: "the template is registered but inactive",
  cta_not_whitelisted:
    "a `url`/`urlott` value does not start with one of the account's whitelisted URL prefixes, or a `cbn` value is not one of its whitelisted numbers; nothing is charged",
  resend_cooldown:
    "an OTP was sent to this number less than the cooldown ago; `Retry-After` says when to resend",
  unavailable: "the server is shutting down, or its database cannot be reached",
  rate_limited:
    "over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again",
};

const AUTHENTICATE_HEADER = {
  "WWW-Authenticate": { type: "string", description: "`Bearer`, when the key is missing" },
};

const IDEMPOTENCY_KEY_HEADERS = Type.Object({
  "Idempotency-Key": Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: "^[\\x20-\\x7e]+$",
      description:
        "Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id.",
    }),
  ),
});

/** @fastify/swagger's key for a response's description, apart from its schema's. */
const RESPONSE_DESCRIPTION = "x-response-description";

type Responses = Record<string, { description?: string; headers?: unknown; [key: string]: unknown }>;

/** The `transform` of @fastify/swagger: the route's schema as the document shows it. */
export function documentOperation({
  schema,
  url,
  route,
}: {
  schema: FastifySchema;
  url: string;
  route: RouteOptions;
}): { schema: FastifySchema; url: string } {
  if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
  const declared = { ...(schema.response as Responses | undefined) };
  const responses: Responses = {};
  for (const [status, response] of Object.entries(declared)) {
    responses[status] =
      Number(status) < 400
        ? { ...response, [RESPONSE_DESCRIPTION]: successDescription(response, status) }
        : { ...response, [RESPONSE_DESCRIPTION]: describeCodes(declaredCodes(response, Number(status))) };
  }
  if (!url.startsWith("/v2/")) return { url, schema: { ...schema, response: responses } };

  const takesIdempotencyKey = methodsOf(route).includes("POST");
  const hasBody = takesBody(route);
  const hasInput = Boolean(hasBody || schema.params || schema.querystring);

  const success = Object.entries(declared).find(([status]) => status.startsWith("2"))?.[1];
  const rateLimitHeaders = success?.headers;
  const codes = new Map<string, Set<ErrorCode>>();
  const add = (status: number, ...more: ErrorCode[]) => {
    const set = codes.get(String(status)) ?? new Set<ErrorCode>();
    for (const code of more) set.add(code);
    codes.set(String(status), set);
  };
  for (const [status, response] of Object.entries(declared)) {
    if (Number(status) < 400) continue;
    add(Number(status), ...declaredCodes(response, Number(status)));
  }
  add(401, "missing_api_key", "invalid_api_key");
  add(403, "forbidden", "ip_not_allowed");
  add(429, "rate_limited");
  // Bad input, and a malformed Idempotency-Key, are 400s.
  if (hasInput || takesIdempotencyKey) add(400, "invalid_request");
  if (hasBody) {
    add(413, "payload_too_large");
    add(415, "unsupported_media_type");
  }
  if (takesIdempotencyKey) {
    add(409, "idempotency_key_in_use");
    add(422, "idempotency_key_reused");
  }

  for (const status of [...codes.keys()].sort()) {
    const statusCodes = [...(codes.get(status) ?? [])];
    const headers = status === "401" ? AUTHENTICATE_HEADER : (declared[status]?.headers ?? rateLimitHeaders);
    responses[status] = {
      ...errorResponse(statusCodes),
      [RESPONSE_DESCRIPTION]: describeCodes(statusCodes),
      ...(headers ? { headers } : {}),
    };
  }

  return {
    url,
    schema: {
      ...schema,
      ...(takesIdempotencyKey ? { headers: IDEMPOTENCY_KEY_HEADERS } : {}),
      response: responses,
    },
  };
}

/** The codes a route's error answer names, or every public code of its status when it names them all. */
function declaredCodes(response: Responses[string], status: number): ErrorCode[] {
  const properties = (response as { properties?: { error?: { properties?: { code?: { enum?: unknown } } } } })
    .properties;
  const named = properties?.error?.properties?.code?.enum;
  const candidates = Array.isArray(named) ? (named as ErrorCode[]) : PUBLIC_ERROR_CODES;
  return candidates.filter((code) => PUBLIC_ERROR_CODES.includes(code) && ERROR_STATUS[code] === status);
}

function describeCodes(codes: ErrorCode[]): string {
  return codes
    .map((code) => `- \`${code}\`${ERROR_MEANINGS[code] ? `: ${ERROR_MEANINGS[code]}` : ""}`)
    .join("\n");
}

const SUCCESS = { "200": "OK", "201": "Created", "202": "Accepted" } as Record<string, string>;

function successDescription(response: Responses[string], status: string): string {
  return response.description ?? SUCCESS[status] ?? "Success";
}
