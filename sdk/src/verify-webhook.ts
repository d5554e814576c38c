import type { DakiyaEvent } from "./types.js";

/** Request headers as a `Headers` object (fetch, Hono, Next.js) or a plain object (Node's `req.headers`, Express). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, either way; default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The time to check the timestamp against; default the current time. */
  now?: Date | number;
}

export type WebhookVerificationReason =
  | "missing_header"
  | "invalid_secret"
  | "invalid_timestamp"
  | "timestamp_out_of_tolerance"
  | "invalid_signature"
  | "invalid_body";

/** A delivery that must not be trusted; `reason` says why. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = "whsec_";
const encoder = new TextEncoder();

/**
 * Checks a webhook delivery the way Standard Webhooks defines it and returns its event:
 * an HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret must
 * match one of the `v1,` signatures (compared in constant time by Web Crypto), and the
 * timestamp must be within the tolerance. `body` is the raw body, exactly as it arrived.
 * Throws `WebhookVerificationError` otherwise.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<DakiyaEvent> {
  if (typeof body !== "string" && !(body instanceof Uint8Array)) {
    throw new WebhookVerificationError(
      "invalid_body",
      "Pass the raw body as it arrived (a string or bytes), not a parsed object: a body serialised again does not verify.",
    );
  }
  const id = headerValue(headers, "webhook-id");
  const timestamp = headerValue(headers, "webhook-timestamp");
  const signatures = headerValue(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      "missing_header",
      "A delivery needs the webhook-id, webhook-timestamp and webhook-signature headers.",
    );
  }
  checkTimestamp(timestamp, options);

  const key = await importSecret(secret);
  const bodyBytes = typeof body === "string" ? encoder.encode(body) : body;
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), bodyBytes);
  for (const signature of signatures.split(" ")) {
    const [version, value] = signature.split(",", 2);
    if (version !== "v1" || !value) continue;
    const expected = base64Bytes(value);
    if (expected && (await crypto.subtle.verify("HMAC", key, expected, signed))) {
      return parseEvent(typeof body === "string" ? body : new TextDecoder().decode(body));
    }
  }
  throw new WebhookVerificationError("invalid_signature", "No signature matches this secret and body.");
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp must be Unix seconds.");
  }
  const now = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const skew = Math.abs(now / 1000 - Number(timestamp));
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `webhook-timestamp is ${Math.round(skew)} s away from now, more than the ${tolerance} s allowed: a replayed or delayed delivery, or a clock out of sync.`,
    );
  }
}

/** `CryptoKey`, named without the DOM library so that the SDK also type-checks with Node's types alone. */
type SigningKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

async function importSecret(secret: string): Promise<SigningKey> {
  const bytes = base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (!bytes || bytes.length === 0) {
    throw new WebhookVerificationError("invalid_secret", "The secret must be whsec_ followed by base64.");
  }
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function concat(head: Uint8Array, tail: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(head.length + tail.length);
  joined.set(head);
  joined.set(tail, head.length);
  return joined;
}

function parseEvent(text: string): DakiyaEvent {
  try {
    return JSON.parse(text) as DakiyaEvent;
  } catch {
    throw new WebhookVerificationError("invalid_body", "The signed body is not JSON.");
  }
}
