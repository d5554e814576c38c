import type { Logger } from "../../lib/logger.js";
import type { Carrier, OtpDetails, OutboundMessage, SendResult } from "../carrier.js";
import type { WhatsAppConfig } from "./whatsapp-config.js";

export const WHATSAPP_CARRIER = "whatsapp";

export const WHATSAPP_TIMEOUT_MS = 10_000;
/** A Retry-After beyond an hour outlives any OTP: cap it. */
const MAX_RETRY_AFTER_SECONDS = 3_600;
const MAX_ERROR_MESSAGE_LENGTH = 300;

/**
 * Graph error codes that mean "later", whatever the HTTP status (Meta answers several
 * throttles with 400), with the pause Meta's documentation suggests.
 */
const RETRYABLE_GRAPH_CODES = new Map<number, number | undefined>([
  [4, 60], // application request limit
  [80007, 60], // WhatsApp Business Account rate limit
  [130429, 1], // Cloud API throughput reached
  [131056, 6], // pair rate limit: one message to the same number every 6 s
  [131000, undefined], // something went wrong
  [131016, undefined], // service unavailable
  [133004, undefined], // server temporarily unavailable
]);

/** What an OTP message carries for the channels that need the code itself (`OutboundMessage.otp`). */
export type WhatsAppOtp = OtpDetails;

export interface WhatsAppCarrierDeps {
  log: Logger;
  /** The HTTP client; the global `fetch` by default. */
  fetch?: typeof fetch;
  /** Request deadline, body included; 10 s by default. */
  timeoutMs?: number;
}

/**
 * Live WhatsApp through Meta's Cloud API: OTPs only, on the account's approved authentication
 * template, with the code in the body and as the copy-code button's parameter. The token and the
 * code never reach a log line or an error message.
 */
export function createWhatsAppCarrier(config: WhatsAppConfig, deps: WhatsAppCarrierDeps): Carrier {
  const log = deps.log.child({ carrier: WHATSAPP_CARRIER });
  const doFetch = deps.fetch ?? fetch;
  const timeoutMs = deps.timeoutMs ?? WHATSAPP_TIMEOUT_MS;
  const endpoint = `${config.apiUrl}/${config.phoneNumberId}/messages`;

  async function send(message: OutboundMessage): Promise<SendResult> {
    const otp = message.otp;
    if (!otp?.whatsappTemplate) {
      return {
        outcome: "permanent",
        errorCode: "whatsapp_template_missing",
        errorMessage: "WhatsApp carries only OTPs on an approved authentication template; none is set.",
      };
    }
    const scrub = (text: string) => redact(text, [config.token, otp.code]);

    let response: Response;
    let text: string;
    try {
      response = await doFetch(endpoint, {
        method: "POST",
        headers: {
          authorization: `Bearer ${config.token}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify(
          templateRequest(message.to, otp.whatsappTemplate, otp.whatsappLanguage, otp.code),
        ),
        // A redirect would carry the token elsewhere: the Graph API never needs one.
        redirect: "error",
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const timedOut =
        error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      log.warn(
        { message_id: message.id, reason: timedOut ? "timeout" : describeNetworkError(error) },
        "WhatsApp Cloud API unreachable",
      );
      return {
        outcome: "retryable",
        errorCode: "whatsapp_unreachable",
        errorMessage: timedOut
          ? `The WhatsApp Cloud API did not answer within ${Math.round(timeoutMs / 100) / 10} s.`
          : "The WhatsApp Cloud API could not be reached.",
      };
    }

    const body = parseJson(text);
    const status = response.status;
    if (status >= 200 && status < 300) {
      const id = acceptedId(body);
      if (id) return { outcome: "accepted", carrierMessageIds: [id] };
      log.warn({ message_id: message.id, status }, "WhatsApp Cloud API answered without a message id");
      return {
        outcome: "retryable",
        errorCode: "whatsapp_invalid_response",
        errorMessage: `The WhatsApp Cloud API answered HTTP ${status} without a message id.`,
      };
    }

    const graph = graphError(body);
    const detail = graph.message ? `: ${scrub(graph.message)}` : "";
    const errorMessage = truncate(
      `The WhatsApp Cloud API answered HTTP ${status}${graph.code === undefined ? "" : ` (code ${graph.code})`}${detail}`,
    );
    const headerDelay = retryAfter(response.headers.get("retry-after"));

    let result: SendResult;
    if (status === 429 || status >= 500) {
      result = withDelay(
        { outcome: "retryable", errorCode: `whatsapp_${status}`, errorMessage },
        headerDelay,
      );
    } else if (graph.code !== undefined && RETRYABLE_GRAPH_CODES.has(graph.code)) {
      result = withDelay(
        { outcome: "retryable", errorCode: `whatsapp_${graph.code}`, errorMessage },
        headerDelay ?? RETRYABLE_GRAPH_CODES.get(graph.code),
      );
    } else if (status >= 400) {
      result = { outcome: "permanent", errorCode: `whatsapp_${graph.code ?? status}`, errorMessage };
    } else {
      result = { outcome: "retryable", errorCode: `whatsapp_${status}`, errorMessage };
    }
    log.warn(
      { message_id: message.id, status, graph_code: graph.code, outcome: result.outcome },
      "WhatsApp Cloud API refused the message",
    );
    return result;
  }

  return { name: WHATSAPP_CARRIER, send };
}

/** The Cloud API request for an authentication template with a copy-code (URL) button. */
export function templateRequest(to: string, template: string, language: string, code: string): unknown {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: to.replace(/^\+/, ""),
    type: "template",
    template: {
      name: template,
      language: { code: language },
      components: [
        { type: "body", parameters: [{ type: "text", text: code }] },
        { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: code }] },
      ],
    },
  };
}

function withDelay(
  result: Extract<SendResult, { outcome: "retryable" }>,
  seconds: number | undefined,
): SendResult {
  return seconds === undefined ? result : { ...result, retryAfterSeconds: seconds };
}

/** `Retry-After` as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  let seconds: number;
  if (/^\d+$/.test(value)) seconds = Number(value);
  else {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function acceptedId(body: unknown): string | undefined {
  if (!isRecord(body) || !Array.isArray(body.messages)) return undefined;
  const first: unknown = body.messages[0];
  return isRecord(first) && typeof first.id === "string" && first.id !== "" ? first.id : undefined;
}

/** `{"error": {"message", "code", "error_data": {"details"}}}`, the Graph API's error body. */
function graphError(body: unknown): { code: number | undefined; message: string | undefined } {
  if (!isRecord(body) || !isRecord(body.error)) return { code: undefined, message: undefined };
  const { code, message, error_data: data } = body.error;
  const numeric = typeof code === "number" ? code : typeof code === "string" ? Number(code) : Number.NaN;
  const details = isRecord(data) && typeof data.details === "string" ? data.details : undefined;
  const parts = [typeof message === "string" ? message : undefined, details].filter(Boolean);
  return {
    code: Number.isSafeInteger(numeric) && numeric >= 0 ? numeric : undefined,
    message: parts.length > 0 ? parts.join(" — ") : undefined,
  };
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return "unknown";
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === "string" ? cause.code : error.name;
}

function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join("[redacted]");
  return out;
}

function truncate(text: string): string {
  return text.length <= MAX_ERROR_MESSAGE_LENGTH ? text : `${text.slice(0, MAX_ERROR_MESSAGE_LENGTH - 1)}…`;
}
