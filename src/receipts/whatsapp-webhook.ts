import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { Type } from "typebox";
import type { AppContext } from "../context.js";
import type { Receipt } from "../delivery/carrier.js";
import { WHATSAPP_CARRIER } from "../delivery/carriers/whatsapp.js";
import type { WhatsAppConfig } from "../delivery/carriers/whatsapp-config.js";
import { ApiError, WebhookRefused } from "../errors.js";
import type { App } from "../http/types.js";
import { applyReceipt } from "./receipts.js";

export const WHATSAPP_WEBHOOK_PATH = "/webhooks/whatsapp";
/** Meta documents webhook payloads of up to 3 MB; a 413 would only make it retry the same batch. */
export const WHATSAPP_WEBHOOK_BODY_LIMIT_BYTES = 3 * 1024 * 1024;
/** A status can overtake the record of the send that it reports on: try unknown ids again for a few seconds. */
const UNKNOWN_ID_RETRIES = 10;
const UNKNOWN_ID_RETRY_MS = 300;
const MAX_ERROR_MESSAGE_LENGTH = 300;

const HandshakeQuery = Type.Object({
  "hub.mode": Type.Optional(Type.String({ maxLength: 64 })),
  "hub.verify_token": Type.Optional(Type.String({ maxLength: 1024 })),
  "hub.challenge": Type.Optional(Type.String({ maxLength: 1024 })),
});

/**
 * Meta's webhook for WhatsApp, outside `/v2/` and without an API key:
 * - `GET /webhooks/whatsapp`: the subscription handshake. `hub.mode=subscribe` with the right
 *   `hub.verify_token` → 200 and `hub.challenge` as text/plain; a wrong mode or token → 403
 *   `invalid_request`; no WHATSAPP_VERIFY_TOKEN configured → 404 `not_found`.
 * - `POST /webhooks/whatsapp`: status updates, signed `X-Hub-Signature-256: sha256=<hex>` over
 *   the raw body with WHATSAPP_APP_SECRET. A missing or wrong signature → 401 `invalid_request`;
 *   no app secret configured → 404 `not_found`. `delivered`/`read` → delivered, `failed` →
 *   undelivered (`whatsapp_<error code>`), anything else is ignored; answers 200 `{"received": true}`.
 */
export function whatsappWebhookRoutes(app: App, ctx: AppContext, config: WhatsAppConfig): void {
  app.get(
    WHATSAPP_WEBHOOK_PATH,
    {
      schema: {
        summary: "WhatsApp webhook subscription handshake (called by Meta)",
        hide: true,
        querystring: HandshakeQuery,
      },
    },
    async (request, reply) => {
      if (config.verifyToken === undefined) {
        throw new ApiError("not_found", `No route GET ${WHATSAPP_WEBHOOK_PATH}.`);
      }
      const query = request.query;
      if (query["hub.mode"] !== "subscribe" || !sameSecret(query["hub.verify_token"], config.verifyToken)) {
        throw new WebhookRefused(403, "The verify token does not match WHATSAPP_VERIFY_TOKEN.");
      }
      const challenge = query["hub.challenge"];
      if (challenge === undefined) {
        throw new ApiError("invalid_request", "hub.challenge is required.", "hub.challenge");
      }
      return reply.type("text/plain; charset=utf-8").send(challenge);
    },
  );

  // The signature covers the raw bytes, so this route reads JSON as a buffer; the rest of the app
  // keeps its own parser.
  app.register(async (scope) => {
    scope.removeContentTypeParser("application/json");
    scope.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      WHATSAPP_WEBHOOK_PATH,
      {
        bodyLimit: WHATSAPP_WEBHOOK_BODY_LIMIT_BYTES,
        schema: {
          summary: "WhatsApp message status webhook (called by Meta, signed with the app secret)",
          hide: true,
        },
      },
      async (request) => {
        if (config.appSecret === undefined) {
          throw new ApiError("not_found", `No route POST ${WHATSAPP_WEBHOOK_PATH}.`);
        }
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = request.headers["x-hub-signature-256"];
        if (typeof signature !== "string" || signature === "") {
          throw new WebhookRefused(401, "X-Hub-Signature-256 is missing.");
        }
        if (!validSignature(raw, signature, config.appSecret)) {
          throw new WebhookRefused(401, "X-Hub-Signature-256 does not match the body.");
        }
        let payload: unknown;
        try {
          payload = JSON.parse(raw.toString("utf8"));
        } catch {
          throw new ApiError("invalid_request", "The body is not valid JSON.");
        }
        const unknown: Receipt[] = [];
        for (const receipt of statusReceipts(payload, config.phoneNumberId)) {
          // A database error fails the request: Meta sends the batch again, and receipts are idempotent.
          if (!(await applyReceipt(ctx, receipt))) unknown.push(receipt);
        }
        if (unknown.length > 0) void retryUnknown(ctx, unknown);
        return { received: true };
      },
    );
  });
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, compared in constant time. */
export function validSignature(raw: Buffer, header: string, appSecret: string): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match?.[1]) return false;
  const expected = createHmac("sha256", appSecret).update(raw).digest();
  return timingSafeEqual(Buffer.from(match[1], "hex"), expected);
}

/** Constant-time equality for secrets of any length (both sides hashed to the same size first). */
function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Every `entry[].changes[].value.statuses[]` of our phone number as a receipt: `delivered` and
 * `read` are delivered, `failed` is undelivered; `sent` (Dakiya already shows `submitted`) and
 * anything else are skipped.
 */
export function statusReceipts(payload: unknown, phoneNumberId: string): Receipt[] {
  const receipts: Receipt[] = [];
  if (!isRecord(payload)) return receipts;
  for (const entry of asArray(payload.entry)) {
    if (!isRecord(entry)) continue;
    for (const change of asArray(entry.changes)) {
      if (!isRecord(change) || !isRecord(change.value)) continue;
      const value = change.value;
      const metadata = isRecord(value.metadata) ? value.metadata : {};
      const number = metadata.phone_number_id;
      // Other numbers of the same app are none of Dakiya's business.
      if (number !== undefined && String(number) !== phoneNumberId) continue;
      for (const status of asArray(value.statuses)) {
        const receipt = toReceipt(status);
        if (receipt) receipts.push(receipt);
      }
    }
  }
  return receipts;
}

function toReceipt(status: unknown): Receipt | undefined {
  if (!isRecord(status) || typeof status.id !== "string" || status.id === "") return undefined;
  const base = { carrier: WHATSAPP_CARRIER, carrierMessageId: status.id };
  switch (status.status) {
    case "delivered":
    case "read":
      return { ...base, state: "delivered" };
    case "failed": {
      const error = asArray(status.errors).find(isRecord);
      const code = error?.code;
      const title = typeof error?.title === "string" && error.title ? error.title : undefined;
      const message = typeof error?.message === "string" && error.message ? error.message : undefined;
      const text = title ?? message;
      return {
        ...base,
        state: "undelivered",
        errorCode:
          typeof code === "number" || (typeof code === "string" && /^\d+$/.test(code))
            ? `whatsapp_${code}`
            : "whatsapp_failed",
        errorMessage: text
          ? text.slice(0, MAX_ERROR_MESSAGE_LENGTH)
          : "WhatsApp could not deliver the message.",
      };
    }
    default:
      return undefined;
  }
}

/** Receipts whose send is not recorded yet (or never will be): a few more tries, off the request. */
async function retryUnknown(ctx: AppContext, receipts: Receipt[]): Promise<void> {
  let waiting = receipts;
  for (let attempt = 0; attempt < UNKNOWN_ID_RETRIES && waiting.length > 0; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, UNKNOWN_ID_RETRY_MS).unref());
    const still: Receipt[] = [];
    for (const receipt of waiting) {
      try {
        if (!(await applyReceipt(ctx, receipt))) still.push(receipt);
      } catch (error) {
        ctx.log.warn(
          { err: error, carrier_message_id: receipt.carrierMessageId },
          "storing a WhatsApp status failed",
        );
      }
    }
    waiting = still;
  }
  for (const receipt of waiting) {
    ctx.log.warn(
      { carrier: WHATSAPP_CARRIER, carrier_message_id: receipt.carrierMessageId },
      "WhatsApp status for an unknown message id",
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
