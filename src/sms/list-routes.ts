import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ErrorResponse, errorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { listMessagesPage } from "./list.js";
import { MessageResponse, MessageStatusSchema } from "./schemas.js";

const Rfc3339 = (description: string) =>
  Type.String({ format: "date-time", maxLength: 40, description, examples: ["2026-11-22T10:00:00Z"] });

export function smsListRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/v2/sms",
    {
      schema: {
        operationId: "listSms",
        summary: "Messages, newest first",
        description:
          "This environment's messages (every channel), filtered and paged: pass the last id of a page as `starting_after` for the next one.",
        tags: ["SMS"],
        security: [{ apiKey: [] }],
        querystring: Type.Object(
          {
            status: Type.Optional(MessageStatusSchema),
            to: Type.Optional(
              Type.String({
                pattern: "^\\+[1-9][0-9]{6,14}$",
                description: "E.164",
                examples: ["+919876543210"],
              }),
            ),
            reference: Type.Optional(Type.String({ maxLength: 64 })),
            created_after: Type.Optional(Rfc3339("Created at or after this time")),
            created_before: Type.Optional(Rfc3339("Created before this time")),
            starting_after: Type.Optional(
              Type.String({ maxLength: 64, description: "The last message id of the previous page (msg_…)" }),
            ),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(MessageResponse), has_more: Type.Boolean() }),
          400: ErrorResponse,
          404: errorResponse(["not_found"]),
        },
      },
    },
    async (request) => listMessagesPage(ctx, principalOf(request), request.query),
  );
}
