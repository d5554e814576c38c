import { createHmac, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context.js";
import type { Receipt } from "../delivery/carrier.js";
import { VOICE_CARRIER } from "../delivery/carriers/voice.js";
import { VOICE_STATUS_PATH, type VoiceConfig } from "../delivery/carriers/voice-config.js";
import { ApiError, WebhookRefused } from "../errors.js";
import type { App } from "../http/types.js";
import { applyReceipt } from "./receipts.js";

const FORM = "application/x-www-form-urlencoded";
const RECEIPT_RETRIES = 10;
const RECEIPT_RETRY_MS = 200;

type FormPairs = Array<[string, string]>;

/** How a finished call that did not reach the person is reported, by Twilio `CallStatus`. */
const UNDELIVERED: Record<string, string> = {
  busy: "The line was busy.",
  failed: "The call could not be placed.",
  "no-answer": "Nobody answered the call.",
  canceled: "The call was canceled.",
};

export interface VoiceWebhookOptions {
  /** A report can overtake the record of the call: how often to look for its SID again. */
  receiptRetries?: number;
  receiptRetryMs?: number;
}

/**
 * `POST /webhooks/voice/status`: Twilio's status callbacks (form-encoded, signed with
 * `X-Twilio-Signature`). Outside `/v2/`, so no API key. `completed` → delivered; `busy`,
 * `failed`, `no-answer`, `canceled` → undelivered (`voice_busy`, …); other statuses are ignored.
 * Any correctly signed report gets 200, also for a call Dakiya does not know, so Twilio does not
 * retry it forever.
 */
export function voiceWebhookRoutes(
  app: App,
  ctx: AppContext,
  config: VoiceConfig,
  options: VoiceWebhookOptions = {},
): void {
  const retries = options.receiptRetries ?? RECEIPT_RETRIES;
  const retryMs = options.receiptRetryMs ?? RECEIPT_RETRY_MS;

  app.register(async (scope) => {
    scope.addContentTypeParser(FORM, { parseAs: "string" }, (_request, body, done) => {
      done(null, [...new URLSearchParams(body as string)]);
    });

    scope.post(VOICE_STATUS_PATH, { schema: { hide: true } }, async (request, reply) => {
      if (!Array.isArray(request.body)) {
        throw new ApiError("unsupported_media_type", `Send the body as Content-Type: ${FORM}.`);
      }
      const pairs = request.body as FormPairs;
      const signature = request.headers["x-twilio-signature"];
      if (
        config.statusCallbackUrl === undefined ||
        typeof signature !== "string" ||
        !validSignature(config.authToken, config.statusCallbackUrl, pairs, signature)
      ) {
        request.log.warn("voice status callback with a missing or wrong signature");
        throw new WebhookRefused(
          401,
          "The request is not signed by the voice provider (X-Twilio-Signature).",
        );
      }

      const params = new Map(pairs);
      const callSid = params.get("CallSid");
      const callStatus = params.get("CallStatus");
      const receipt = callSid && callStatus ? toReceipt(callSid, callStatus) : undefined;
      if (receipt && !(await record(receipt))) {
        request.log.warn({ call_sid: callSid, call_status: callStatus }, "voice status for an unknown call");
      }
      return reply.code(200).send({ received: true });
    });
  });

  /** Applies the report, looking again for a while if the call is not recorded yet. */
  async function record(receipt: Receipt): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      if (await applyReceipt(ctx, receipt)) return true;
      if (attempt >= retries) return false;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}

function toReceipt(callSid: string, callStatus: string): Receipt | undefined {
  if (callStatus === "completed") {
    return { carrier: VOICE_CARRIER, carrierMessageId: callSid, state: "delivered" };
  }
  const reason = UNDELIVERED[callStatus];
  if (reason === undefined) return undefined;
  return {
    carrier: VOICE_CARRIER,
    carrierMessageId: callSid,
    state: "undelivered",
    errorCode: `voice_${callStatus.replace(/-/g, "_")}`,
    errorMessage: reason,
  };
}

/**
 * Twilio's request signature: base64 HMAC-SHA1, keyed with the auth token, of the URL it was
 * given followed by every POST parameter's name and value, sorted by name (then value).
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const sorted = [...params].sort(([aName, aValue], [bName, bValue]) =>
    compare(aName, bName) !== 0 ? compare(aName, bName) : compare(aValue, bValue),
  );
  let data = url;
  for (const [name, value] of sorted) data += name + value;
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function validSignature(authToken: string, url: string, pairs: FormPairs, signature: string): boolean {
  const expected = Buffer.from(twilioSignature(authToken, url, pairs));
  const given = Buffer.from(signature.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
