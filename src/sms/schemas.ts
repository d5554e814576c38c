import { Type } from "typebox";
import { ERROR_STATUS } from "../errors.js";
import { Nullable, PUBLIC_ERROR_CODES } from "../http/schemas.js";
import { MAX_BATCH_MESSAGES } from "./batch.js";
import { MAX_VALIDITY_SECONDS, MIN_VALIDITY_SECONDS } from "./timing.js";

export const SmsSendBody = Type.Object(
  {
    to: Type.String({
      maxLength: 32,
      description: "E.164, an Indian mobile: +91 and 10 digits",
      examples: ["+919876543210"],
    }),
    sender: Type.String({ maxLength: 16, description: "A registered DLT header", examples: ["DAKIYA"] }),
    template_id: Type.String({
      maxLength: 40,
      description: "A registered DLT template id",
      examples: ["1107161234567890123"],
    }),
    variables: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        maxProperties: 30,
        description: "A value for every placeholder of the template, at most 30 characters each",
      }),
    ),
    reference: Type.Optional(Type.String({ maxLength: 64, description: "Your own id, echoed back" })),
    priority: Type.Optional(
      Type.Union([Type.Literal("otp"), Type.Literal("transactional"), Type.Literal("bulk")], {
        description:
          "Step down to bulk; never above what the send gets anyway (transactional for a single send on a transactional or service-implicit template, bulk otherwise)",
      }),
    ),
    validity_seconds: Type.Optional(
      Type.Integer({
        minimum: MIN_VALIDITY_SECONDS,
        maximum: MAX_VALIDITY_SECONDS,
        description:
          "Unsent after this long (from send_at, else acceptance), it fails as expired and is refunded; default 86400",
      }),
    ),
    send_at: Type.Optional(
      Type.String({
        format: "date-time",
        maxLength: 40,
        description: "RFC 3339, up to 30 days ahead: accepted and charged now, status scheduled until then",
        examples: ["2026-12-01T09:30:00+05:30"],
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The walk-through's template (README): `Your Dakiya login code is {#var1#}. Valid for {#var2#}
 * minutes. Do not share it.`, registered with the sender DAKIYA.
 */
const LOGIN_CODE_SMS = {
  to: "+919876543210",
  sender: "DAKIYA",
  template_id: "1107161234567890123",
  variables: { var1: "482913", var2: "10" },
  reference: "order-77",
};

/** Request examples for the OpenAPI document; each succeeds as it is with a sandbox key. */
export const SMS_SEND_EXAMPLES = {
  login_code: { summary: "A templated SMS", value: LOGIN_CODE_SMS },
  sandbox_undelivered: {
    summary: "Sandbox test number +919999999911: ends undelivered (invalid_number)",
    value: { ...LOGIN_CODE_SMS, to: "+919999999911", reference: "rehearse-undelivered" },
  },
  sandbox_failed: {
    summary: "Sandbox test number +919999999933: fails (carrier_rejected) and is refunded",
    value: { ...LOGIN_CODE_SMS, to: "+919999999933", reference: "rehearse-failed" },
  },
};

export const SMS_BATCH_EXAMPLES = {
  two_messages: {
    summary: "Two sends in one request; the second goes to a sandbox test number",
    value: {
      messages: [
        { ...LOGIN_CODE_SMS, to: "+919876543211", reference: "statement-1" },
        { ...LOGIN_CODE_SMS, to: "+919999999922", reference: "statement-2" },
      ],
    },
  },
};

export const Channel = Type.Union([Type.Literal("sms"), Type.Literal("whatsapp"), Type.Literal("voice")]);

/** Every status a message can have, in the order it can move through them (docs/sms.md). */
export const MessageStatusSchema = Type.Union([
  Type.Literal("scheduled"),
  Type.Literal("queued"),
  Type.Literal("submitted"),
  Type.Literal("delivered"),
  Type.Literal("undelivered"),
  Type.Literal("failed"),
  Type.Literal("cancelled"),
]);

export const MessageResponse = Type.Object({
  id: Type.String({ examples: ["msg_3kTz0aQ1vX9bWm2LcYp7RdN5"] }),
  status: MessageStatusSchema,
  environment: Type.Union([Type.Literal("live"), Type.Literal("sandbox")]),
  channel: Channel,
  to: Type.String({ examples: ["+919876543210"] }),
  sender: Nullable(Type.String({ examples: ["DAKIYA"] })),
  template_id: Nullable(Type.String({ examples: ["1107161234567890123"] })),
  reference: Nullable(Type.String({ examples: ["order-77"] })),
  text: Type.String({
    examples: ["Your Dakiya login code is 482913. Valid for 10 minutes. Do not share it."],
  }),
  encoding: Type.Union([Type.Literal("gsm7"), Type.Literal("ucs2")]),
  segments: Type.Integer(),
  cost: Type.String({ examples: ["0.2500"] }),
  currency: Type.Literal("INR"),
  error_code: Nullable(
    Type.String({
      description:
        "Why it failed or was undelivered, e.g. invalid_number, dnd_blocked, an operator's DLT rejection such as dlt_template_mismatch (docs/dlt-compliance.md)",
    }),
  ),
  error_message: Nullable(Type.String()),
  carrier_error: Nullable(
    Type.String({
      description:
        "The carrier's own code for a refusal or non-delivery, for support: the submit_sm_resp status or the receipt's err: and stat:",
      examples: ["receipt err:623 stat:REJECTD"],
    }),
  ),
  carrier_message_ids: Type.Array(Type.String()),
  route: Nullable(
    Type.String({ description: "The SMSC route that took a live SMS (docs/routes.md); null otherwise" }),
  ),
  priority: Type.Union([Type.Literal("otp"), Type.Literal("transactional"), Type.Literal("bulk")], {
    description: "Its lane in the queue: otp goes first, then transactional, then bulk",
  }),
  expires_at: Nullable(
    Type.String({
      description: "Unsent by then, it fails as expired and is refunded; null for messages of before",
    }),
  ),
  send_at: Nullable(
    Type.String({
      description: "When it joins the queue: the send's send_at, or the promotional window's opening",
    }),
  ),
  created_at: Type.String({ examples: ["2026-11-22T10:00:00.000Z"] }),
  submitted_at: Nullable(Type.String()),
  delivered_at: Nullable(Type.String()),
  undelivered_at: Nullable(Type.String()),
  failed_at: Nullable(Type.String()),
  cancelled_at: Nullable(Type.String()),
  campaign_id: Nullable(
    Type.String({ description: "The campaign it was sent for (cmp_…); null for other messages" }),
  ),
});

export const SmsBatchBody = Type.Object(
  {
    messages: Type.Array(SmsSendBody, {
      minItems: 1,
      maxItems: MAX_BATCH_MESSAGES,
      description: "1 to 1,000 sends, each as the body of POST /v2/sms/send",
    }),
  },
  { additionalProperties: false },
);

/** What a batch item can be refused for: what a single send can, but the request's own errors. */
const BATCH_ITEM_ERROR_CODES = PUBLIC_ERROR_CODES.filter(
  (code) =>
    [400, 402, 422, 429].includes(ERROR_STATUS[code]) &&
    code !== "idempotency_key_reused" &&
    code !== "resend_cooldown",
);

export const BatchItemError = Type.Object({
  error: Type.Object({
    code: Type.String({ enum: BATCH_ITEM_ERROR_CODES, examples: ["insufficient_balance"] }),
    message: Type.String(),
    param: Type.Optional(Type.String({ description: "The item's field at fault, e.g. to or variables.otp" })),
    retry_after: Type.Optional(Type.Integer({ description: "Seconds, for rate_limited" })),
  }),
});

export const SmsBatchResponse = Type.Object({
  data: Type.Array(Type.Union([MessageResponse, BatchItemError]), {
    description: "One entry per item, in request order: the queued message, or why the item was refused",
  }),
  accepted: Type.Integer(),
  rejected: Type.Integer(),
});
