import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ErrorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { answerIdempotently } from "../idempotency/hooks.js";
import { getOtp, sendOtp, verifyOtp } from "./otp.js";

const ChannelSchema = Type.Union([Type.Literal("sms"), Type.Literal("whatsapp"), Type.Literal("voice")]);
const Code = Type.String({ pattern: "^[0-9]{4,10}$", description: "4 to 10 digits" });
const To = Type.String({
  maxLength: 32,
  description: "E.164, an Indian mobile",
  examples: ["+919876543210"],
});
const OtpResponse = Type.Object({
  id: Type.String(),
  status: Type.String(),
  environment: Type.String(),
  to: Type.String(),
  channel: Type.String(),
  expires_at: Type.String(),
  resend_available_at: Type.String(),
  attempts_remaining: Type.Integer(),
  sends: Type.Integer(),
  message_id: Type.Union([Type.String(), Type.Null()]),
});

export function otpRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/v2/otp/send",
    {
      schema: {
        summary: "Send a one-time passcode by SMS, WhatsApp or voice",
        tags: ["OTP"],
        security: [{ apiKey: [] }],
        body: Type.Object(
          {
            to: To,
            channel: Type.Optional(ChannelSchema),
            fallback: Type.Optional(ChannelSchema),
            code: Type.Optional(Code),
            length: Type.Optional(Type.Integer({ minimum: 4, maximum: 10 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: OtpResponse,
          400: ErrorResponse,
          402: ErrorResponse,
          422: ErrorResponse,
          429: ErrorResponse,
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
        summary: "Check a code",
        tags: ["OTP"],
        security: [{ apiKey: [] }],
        body: Type.Object({ to: To, code: Code }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            verified: Type.Boolean(),
            reason: Type.String(),
            attempts_remaining: Type.Integer(),
          }),
          400: ErrorResponse,
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
        summary: "An OTP and its deliveries (never its code)",
        tags: ["OTP"],
        security: [{ apiKey: [] }],
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({
            id: Type.String(),
            status: Type.String(),
            environment: Type.String(),
            to: Type.String(),
            channel: Type.String(),
            expires_at: Type.String(),
            attempts_remaining: Type.Integer(),
            sends: Type.Integer(),
            created_at: Type.String(),
            deliveries: Type.Array(
              Type.Object({
                message_id: Type.String(),
                channel: Type.String(),
                fallback: Type.Boolean(),
                status: Type.String(),
                created_at: Type.String(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
    },
    async (request) => getOtp(ctx, principalOf(request), request.params.id),
  );
}
