import { Type } from "typebox";

const ReportDate = (description: string) =>
  Type.String({ maxLength: 10, description, examples: ["2026-11-01"] });

/** `from` and `to`, India-time days; checked by parseReportPeriod so a bad one names its parameter. */
export const ReportPeriodQuery = {
  from: Type.Optional(ReportDate("The first day, YYYY-MM-DD, India time (default: 29 days before `to`)")),
  to: Type.Optional(ReportDate("The last day, included, YYYY-MM-DD, India time (default: today)")),
};

export const MessageGroupSchema = Type.Union(
  [
    Type.Literal("day"),
    Type.Literal("template"),
    Type.Literal("sender"),
    Type.Literal("status"),
    Type.Literal("channel"),
  ],
  { description: "What each row counts: a day, a template, a sender, a status or a channel" },
);

export const MessageReportQuery = Type.Object(
  { ...ReportPeriodQuery, group_by: Type.Optional(MessageGroupSchema) },
  { additionalProperties: false },
);

export const OtpReportQuery = Type.Object(ReportPeriodQuery, { additionalProperties: false });

const Count = (description: string) => Type.Integer({ description });

export const MessageReportResponse = Type.Object({
  from: Type.String({ examples: ["2026-11-01"] }),
  to: Type.String({ examples: ["2026-11-30"] }),
  group_by: MessageGroupSchema,
  data: Type.Array(
    Type.Object({
      key: Type.Union([Type.String(), Type.Null()], {
        description:
          "The day (YYYY-MM-DD), DLT template id, sender, status or channel; null for messages without a template or sender (OTPs by WhatsApp or voice)",
      }),
      messages: Count("Messages created in the period"),
      segments: Count("Their SMS parts (1 for WhatsApp and voice)"),
      delivered: Count("Of them, now delivered"),
      undelivered: Count("Now undelivered"),
      failed: Count("Now failed (refunded)"),
      cancelled: Count("Now cancelled before going out (refunded)"),
      cost: Type.String({
        description: "INR charged for them net of refunds, like the balance",
        examples: ["125.2500"],
      }),
    }),
  ),
});

export const OtpReportResponse = Type.Object({
  from: Type.String({ examples: ["2026-11-01"] }),
  to: Type.String({ examples: ["2026-11-30"] }),
  data: Type.Array(
    Type.Object({
      channel: Type.Union([Type.Literal("sms"), Type.Literal("whatsapp"), Type.Literal("voice")], {
        description: "The channel each OTP was first sent on",
      }),
      sent: Count("OTPs created in the period (test numbers' excluded)"),
      verified: Count("Of them, verified"),
      conversion_rate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
        description: "verified / sent; null when none was sent",
      }),
      median_seconds_to_verify: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
        description: "Median whole seconds from the first send to the verify; null when none was verified",
      }),
    }),
  ),
});
