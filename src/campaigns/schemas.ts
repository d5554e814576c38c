import { Type } from "typebox";
import { Nullable } from "../http/schemas.js";
import { BatchItemError } from "../sms/schemas.js";
import { MAX_CAMPAIGN_RECIPIENTS } from "./check.js";

export const CampaignRecipientBody = Type.Object(
  {
    to: Type.String({ maxLength: 32, description: "E.164, an Indian mobile", examples: ["+919876543210"] }),
    variables: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        maxProperties: 30,
        description: "A value for every placeholder of the template",
      }),
    ),
    reference: Type.Optional(
      Type.String({ maxLength: 64, description: "Your own id, echoed on the message" }),
    ),
  },
  { additionalProperties: false },
);

export const CampaignBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, examples: ["Diwali offers"] }),
    template_id: Type.String({ maxLength: 40, examples: ["1107161234567890123"] }),
    sender: Type.String({ maxLength: 16, examples: ["DAKIYA"] }),
    send_at: Type.Optional(
      Type.String({
        maxLength: 40,
        description: "RFC 3339, up to 30 days ahead: the campaign starts then",
        examples: ["2026-12-01T10:00:00+05:30"],
      }),
    ),
    messages_per_minute: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: "Paces the campaign, on top of the routes' own pacing",
      }),
    ),
    recipients: Type.Array(CampaignRecipientBody, {
      minItems: 1,
      maxItems: MAX_CAMPAIGN_RECIPIENTS,
      description: "1 to 100,000 recipients, each sent the template once",
    }),
  },
  { additionalProperties: false },
);

const CampaignStatusSchema = Type.Union(
  [Type.Literal("scheduled"), Type.Literal("sending"), Type.Literal("completed"), Type.Literal("cancelled")],
  {
    description:
      "scheduled until send_at, sending while recipients wait or messages are queued, then completed or cancelled",
  },
);

const Count = Type.Integer({ minimum: 0 });

export const CampaignResponse = Type.Object({
  id: Type.String({ examples: ["cmp_3kTz0aQ1vX9bWm2LcYp7RdN5"] }),
  name: Type.String(),
  status: CampaignStatusSchema,
  environment: Type.Union([Type.Literal("live"), Type.Literal("sandbox")]),
  template_id: Type.String(),
  sender: Type.String(),
  send_at: Nullable(Type.String()),
  messages_per_minute: Nullable(Type.Integer()),
  recipients: Type.Integer({ description: "Rows the request had" }),
  accepted: Type.Integer({ description: "Recipients checked, charged and sent (or to be sent)" }),
  rejected: Type.Integer({ description: "Rows refused, each with its error in the create answer" }),
  counts: Type.Object(
    {
      pending: Count,
      scheduled: Count,
      queued: Count,
      submitted: Count,
      delivered: Count,
      undelivered: Count,
      failed: Count,
      cancelled: Count,
    },
    {
      description:
        "Accepted recipients by where they are: pending (not yet in the queue), or their message's status",
    },
  ),
  progress: Type.Number({ minimum: 0, maximum: 1, description: "Share handed to a carrier or ended" }),
  cost: Type.String({ examples: ["250.0000"] }),
  refunded: Type.String({ examples: ["0.0000"] }),
  currency: Type.Literal("INR"),
  created_at: Type.String(),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
  cancelled_at: Nullable(Type.String()),
});

export const RecipientErrorSchema = Type.Object({
  index: Type.Integer({ description: "The recipient's place in the request, from 0" }),
  to: Type.String(),
  ...BatchItemError.properties,
});

export const CampaignCreateResponse = Type.Object({
  ...CampaignResponse.properties,
  errors: Type.Array(RecipientErrorSchema, { description: "Each refused recipient, in request order" }),
});

export const CAMPAIGN_EXAMPLES = {
  two_recipients: {
    summary: "A campaign of two recipients",
    value: {
      name: "Order updates",
      template_id: "1107161234567890123",
      sender: "DAKIYA",
      recipients: [
        { to: "+919876543210", variables: { var1: "482913", var2: "10" }, reference: "cust-1" },
        { to: "+919876543211", variables: { var1: "771020", var2: "10" }, reference: "cust-2" },
      ],
    },
  },
};
