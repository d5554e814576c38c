import type { Logger } from "../../lib/logger.js";
import type { Carrier, OutboundMessage, SendResult } from "../carrier.js";
import type { VoiceConfig } from "./voice-config.js";

export const VOICE_CARRIER = "voice";

const DEFAULT_TIMEOUT_MS = 10_000;
const LANGUAGE = "en-IN";
const MAX_ERROR_MESSAGE = 200;

/** One reading of the code: `Your verification code is 4, 8, 2, 9, 1, 3.` */
function sentence(code: string): string {
  return `Your verification code is ${[...code].join(", ")}.`;
}

/** Exactly what the call says: the sentence, twice (the sandbox inbox shows this). */
export function spokenText(code: string): string {
  return `${sentence(code)} ${sentence(code)}`;
}

/** The call's TwiML: the sentence in Indian English, a one-second pause, the sentence again. */
export function twiml(code: string): string {
  const say = `<Say language="${LANGUAGE}">${escapeXml(sentence(code))}</Say>`;
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${say}<Pause length="1"/>${say}</Response>`;
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/**
 * Live voice OTPs through Twilio's Programmable Voice: one `POST …/Calls.json` per message with
 * the TwiML inline. The call's SID is the carrier message id; how the call ended comes back to
 * `POST /webhooks/voice/status` (src/receipts/voice-webhook.ts) when a status callback URL is configured.
 */
export function createVoiceCarrier(config: VoiceConfig, deps: { log: Logger; timeoutMs?: number }): Carrier {
  const log = deps.log.child({ carrier: VOICE_CARRIER });
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const endpoint = `${config.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Calls.json`;
  const authorization = `Basic ${Buffer.from(`${config.accountSid}:${config.authToken}`).toString("base64")}`;

  /** Provider text can echo what it was sent: keep the token and the code out of errors and logs. */
  function scrub(text: string, code: string): string {
    return text
      .split(config.authToken)
      .join("[redacted]")
      .split(code)
      .join("[redacted]")
      .slice(0, MAX_ERROR_MESSAGE);
  }

  return {
    name: VOICE_CARRIER,
    async send(message: OutboundMessage): Promise<SendResult> {
      const code = message.otp?.code;
      if (!code) {
        return {
          outcome: "permanent",
          errorCode: "voice_code_missing",
          errorMessage: "A voice message must carry an OTP code to speak.",
        };
      }
      const form = new URLSearchParams({
        To: message.to.startsWith("+") ? message.to : `+${message.to}`,
        From: message.otp?.voiceCallerId ?? config.from,
        Twiml: twiml(code),
      });
      if (config.statusCallbackUrl !== undefined) {
        form.set("StatusCallback", config.statusCallbackUrl);
        form.set("StatusCallbackMethod", "POST");
        form.set("StatusCallbackEvent", "completed");
      }

      let response: Response;
      let body: string;
      try {
        response = await fetch(endpoint, {
          method: "POST",
          headers: {
            authorization,
            "content-type": "application/x-www-form-urlencoded",
            accept: "application/json",
          },
          body: form.toString(),
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
        body = await response.text();
      } catch (error) {
        const timedOut = error instanceof Error && error.name === "TimeoutError";
        log.warn(
          { message_id: message.id, reason: timedOut ? "timeout" : errorName(error) },
          "voice provider unreachable",
        );
        return {
          outcome: "retryable",
          errorCode: "voice_unreachable",
          errorMessage: timedOut
            ? `The voice provider did not answer within ${timeoutMs} ms.`
            : "The voice provider could not be reached.",
        };
      }

      const status = response.status;
      const json = parseJson(body);
      if (status === 200 || status === 201) {
        const sid = json?.sid;
        if (typeof sid === "string" && sid !== "") {
          log.debug({ message_id: message.id, call_sid: sid }, "call placed");
          return { outcome: "accepted", carrierMessageIds: [sid] };
        }
        log.warn({ message_id: message.id, status }, "voice provider answered without a call sid");
        return {
          outcome: "retryable",
          errorCode: "voice_bad_response",
          errorMessage: "The voice provider's answer did not name the call.",
        };
      }

      const providerMessage =
        typeof json?.message === "string"
          ? scrub(json.message, code)
          : `HTTP ${status} from the voice provider.`;
      if (status === 429 || status >= 500) {
        log.warn({ message_id: message.id, status }, "voice provider busy or failing");
        const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
        return {
          outcome: "retryable",
          errorCode: `voice_${status}`,
          errorMessage: providerMessage,
          ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
        };
      }
      const providerCode = json?.code;
      const errorCode =
        typeof providerCode === "number" ||
        (typeof providerCode === "string" && /^\w{1,32}$/.test(providerCode))
          ? `voice_${providerCode}`
          : `voice_${status}`;
      const level = status === 401 || status === 403 ? "error" : "warn";
      log[level](
        { message_id: message.id, status, error_code: errorCode },
        "voice provider refused the call",
      );
      return { outcome: "permanent", errorCode, errorMessage: providerMessage };
    },
  };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `Retry-After` in seconds (the HTTP-date form is rare from APIs and ignored). */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || !/^\d{1,6}$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

function errorName(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: unknown } }).cause;
    return typeof cause?.code === "string" ? cause.code : error.name;
  }
  return "unknown";
}
