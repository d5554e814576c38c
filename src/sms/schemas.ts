import { Type } from "typebox";
import { ERROR_STATUS } from "../errors.js";
import { MAX_BATCH_MESSAGES } from "./batch.js";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

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
  },
  { additionalProperties: false },
);

export const MessageResponse = Type.Object({
  id: Type.String(),
  status: Type.Union([
    Type.Literal("queued"),
    Type.Literal("submitted"),
    Type.Literal("delivered"),
    Type.Literal("undelivered"),
    Type.Literal("failed"),
  ]),
  environment: Type.Union([Type.Literal("live"), Type.Literal("sandbox")]),
  channel: Type.String(),
  to: Type.String(),
  sender: Nullable(Type.String()),
  template_id: Nullable(Type.String()),
  reference: Nullable(Type.String()),
  text: Type.String(),
  encoding: Type.Union([Type.Literal("gsm7"), Type.Literal("ucs2")]),
  segments: Type.Integer(),
  cost: Type.String({ examples: ["0.2500"] }),
  currency: Type.Literal("INR"),
  error_code: Nullable(Type.String()),
  error_message: Nullable(Type.String()),
  carrier_message_ids: Type.Array(Type.String()),
  created_at: Type.String(),
  submitted_at: Nullable(Type.String()),
  delivered_at: Nullable(Type.String()),
  undelivered_at: Nullable(Type.String()),
  failed_at: Nullable(Type.String()),
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

export const BatchItemError = Type.Object({
  error: Type.Object({
    code: Type.String({ enum: Object.keys(ERROR_STATUS), examples: ["insufficient_balance"] }),
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
