import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ErrorResponse, errorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { answerIdempotently } from "../idempotency/hooks.js";
import { MessageStatusSchema } from "../sms/schemas.js";
import { sendOtp } from "./send.js";
import { verifyOtp } from "./verify.js";
import { getOtp } from "./view.js";

const ChannelSchema = Type.Union([Type.Literal("sms"), Type.Literal("whatsapp"), Type.Literal("voice")]);
const Environment = Type.Union([Type.Literal("live"), Type.Literal("sandbox")]);
const OtpStatus = Type.Union(
  [
    Type.Literal("pending"),
    Type.Literal("approved"),
    Type.Literal("expired"),
    Type.Literal("locked"),
    Type.Literal("cancelled"),
  ],
  {
    description:
      "pending until approved, expired, locked (attempts used up) or cancelled (a new code replaced it)",
  },
);
const VerifyReason = Type.Union(
  [
    Type.Literal("approved"),
    Type.Literal("incorrect_code"),
    Type.Literal("expired"),
    Type.Literal("max_attempts_reached"),
    Type.Literal("already_verified"),
    Type.Literal("not_found"),
  ],
  {
    description:
      "approved (verified: true; the OTP is used up), incorrect_code (one attempt used), expired, max_attempts_reached (locked), already_verified, not_found (no OTP sent to this number in this environment)",
  },
);
const OtpId = Type.String({ examples: ["otp_3kTz0aQ1vX9bWm2LcYp7RdN5"] });
const Code = Type.String({ pattern: "^[0-9]{4,10}$", description: "4 to 10 digits" });
const To = Type.String({
  maxLength: 32,
  description: "E.164, an Indian mobile",
  examples: ["+919876543210"],
});
const OtpResponse = Type.Object({
  id: OtpId,
  status: OtpStatus,
  environment: Environment,
  to: Type.String({ examples: ["+919876543210"] }),
  channel: ChannelSchema,
  expires_at: Type.String({ examples: ["2026-11-22T10:10:00.000Z"] }),
  resend_available_at: Type.String({
    description: "From then on a send to the number delivers the code again",
    examples: ["2026-11-22T10:00:30.000Z"],
  }),
  attempts_remaining: Type.Integer(),
  sends: Type.Integer(),
  message_id: Type.Union([Type.String(), Type.Null()], {
    description: "The message that carries the code; null for a test number with a fixed code",
  }),
});

/** Request examples for the OpenAPI document; each succeeds as it is with a sandbox key. */
const SEND_EXAMPLES = {
  whatsapp: {
    summary: "By WhatsApp (no set-up needed in the sandbox)",
    value: { to: "+919876543210", channel: "whatsapp" },
  },
  sms: {
    summary: "By SMS, on the OTP template and sender of the OTP settings",
    value: { to: "+919876543211", channel: "sms", length: 6 },
  },
  voice_then_whatsapp: {
    summary: "By a voice call, then WhatsApp if the call has not reported delivery in time",
    value: { to: "+919876543212", channel: "voice", fallback: "whatsapp" },
  },
  own_code: {
    summary: "With a code of your own",
    value: { to: "+919876543213", channel: "whatsapp", code: "482913" },
  },
};

const VERIFY_EXAMPLES = {
  code: {
    summary: "The code the user typed (here the one of the own-code send example)",
    value: { to: "+919876543213", code: "482913" },
  },
};

export function otpRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/v2/otp/send",
    {
      schema: {
        operationId: "sendOtp",
        summary: "Send a one-time passcode by SMS, WhatsApp or voice",
        description:
          "One pending OTP per number: inside the resend cooldown a send is refused (429 resend_cooldown); after it, a send without `code` delivers the same code again (on any channel) and keeps its expiry; a send with `code` replaces it. With `fallback`, the same code goes out once on the fallback channel if the first has not reported delivery within `fallback_after_seconds`. Accepts Idempotency-Key.",
        tags: ["OTP"],
        security: [{ apiKey: [] }],
        body: Type.Object(
          {
            to: To,
            channel: Type.Optional({ ...ChannelSchema, description: "sms (default), whatsapp or voice" }),
            fallback: Type.Optional({
              ...ChannelSchema,
              description: "Another channel for the same code if the first has not reported delivery in time",
            }),
            code: Type.Optional({ ...Code, description: "Your own code, 4 to 10 digits; else one is drawn" }),
            length: Type.Optional(
              Type.Integer({ minimum: 4, maximum: 10, description: "Digits of a drawn code (default 6)" }),
            ),
          },
          { additionalProperties: false, "x-examples": SEND_EXAMPLES },
        ),
        response: {
          200: OtpResponse,
          400: ErrorResponse,
          402: ErrorResponse,
          422: errorResponse(["unsupported_destination", "channel_not_configured"]),
          429: errorResponse(["resend_cooldown", "rate_limited"]),
        },
      },
    },
    async (request, reply) =>
      answerIdempotently(request, reply, 200, (record) =>
        sendOtp(ctx, principalOf(request), request.body, record),
      ),
  );

  app.post(
    "/v2/otp/verify",
    {
      schema: {
        operationId: "verifyOtp",
        summary: "Check a code",
        description:
          "Always 200 for a well-formed request: `verified` says whether the code was right and `reason` why not. Each wrong code uses an attempt; at the limit the OTP is locked.",
        tags: ["OTP"],
        security: [{ apiKey: [] }],
        body: Type.Object(
          { to: To, code: Code },
          { additionalProperties: false, "x-examples": VERIFY_EXAMPLES },
        ),
        response: {
          200: Type.Object({
            verified: Type.Boolean(),
            reason: VerifyReason,
            attempts_remaining: Type.Integer(),
          }),
          400: ErrorResponse,
          422: errorResponse(["unsupported_destination"]),
        },
      },
    },
    async (request, reply) =>
      answerIdempotently(request, reply, 200, (record) =>
        verifyOtp(ctx, principalOf(request), request.body, record),
      ),
  );

  app.get(
    "/v2/otp/:id",
    {
      schema: {
        operationId: "getOtp",
        summary: "An OTP and its deliveries (never its code)",
        tags: ["OTP"],
        security: [{ apiKey: [] }],
        params: Type.Object({ id: Type.String({ maxLength: 64, description: "The OTP id (otp_…)" }) }),
        response: {
          200: Type.Object({
            id: OtpId,
            status: OtpStatus,
            environment: Environment,
            to: Type.String(),
            channel: ChannelSchema,
            expires_at: Type.String(),
            attempts_remaining: Type.Integer(),
            sends: Type.Integer(),
            created_at: Type.String(),
            deliveries: Type.Array(
              Type.Object({
                message_id: Type.String(),
                channel: ChannelSchema,
                fallback: Type.Boolean({ description: "Sent on the fallback channel" }),
                status: MessageStatusSchema,
                created_at: Type.String(),
              }),
            ),
          }),
          404: errorResponse(["not_found"]),
        },
      },
    },
    async (request) => getOtp(ctx, principalOf(request), request.params.id),
  );
}
