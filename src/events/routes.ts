import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ErrorResponse, errorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { listEvents } from "./feed.js";
import { EVENT_TYPES } from "./outbox.js";

const EventTypeSchema = Type.Enum(EVENT_TYPES, {
  description: "An event type, e.g. sms.delivered",
  examples: ["sms.delivered"],
});

export const EventResponse = Type.Object({
  id: Type.String({ examples: ["evt_3kTz0aQ1vX9bWm2LcYp7RdN5"] }),
  type: EventTypeSchema,
  created_at: Type.String({ description: "RFC 3339 UTC" }),
  environment: Type.Union([Type.Literal("live"), Type.Literal("sandbox")]),
  data: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        "sms.*: the message object (GET /v2/sms/{id}); otp.*: the OTP object (GET /v2/otp/{id}, never its code), with `reason` on otp.failed",
    },
  ),
});

export function eventRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/v2/events",
    {
      schema: {
        operationId: "listEvents",
        summary: "Events, oldest first after a cursor",
        description:
          "Every status change of this environment's messages and OTPs, kept 30 days. Page with `after` set to the last event id read: each event is listed exactly once, even while new ones are being written.",
        tags: ["Events"],
        security: [{ apiKey: [] }],
        querystring: Type.Object(
          {
            type: Type.Optional(EventTypeSchema),
            after: Type.Optional(
              Type.String({ maxLength: 64, description: "The id of the last event read (evt_…)" }),
            ),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(EventResponse), has_more: Type.Boolean() }),
          400: ErrorResponse,
          404: errorResponse(["not_found"]),
        },
      },
    },
    async (request) => listEvents(ctx, principalOf(request), request.query),
  );
}
