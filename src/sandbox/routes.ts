import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { errorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { isE164 } from "../lib/phone.js";
import { listSandboxInbox } from "./inbox.js";

const InboxItem = Type.Object({
  id: Type.String(),
  message_id: Type.String(),
  channel: Type.String({ description: "sms, whatsapp or voice" }),
  to: Type.String(),
  text: Type.String(),
  created_at: Type.String(),
});

export function sandboxRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/v2/sandbox/messages",
    {
      schema: {
        operationId: "listSandboxMessages",
        summary: "The sandbox inbox: what sandbox keys sent, newest first",
        description:
          "Every delivery made with a sandbox key, with its text (OTP codes included). Sandbox keys only: with a live key it is 404.",
        tags: ["Sandbox"],
        security: [{ apiKey: [] }],
        querystring: Type.Object(
          {
            to: Type.Optional(
              Type.String({
                maxLength: 32,
                description: "Only this number (E.164)",
                examples: ["+919876543210"],
              }),
            ),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(InboxItem) }),
          400: errorResponse(["invalid_request"]),
          404: errorResponse(["not_found"]),
        },
      },
    },
    async (request) => {
      const { accountId, environment } = principalOf(request);
      if (environment !== "sandbox")
        throw new ApiError("not_found", "The sandbox inbox is for sandbox keys.");
      const { limit } = request.query;
      // An unencoded `+` in a query string arrives as a space: read `?to=+9198…` as meant.
      const to = request.query.to?.replace(/^ (?=\d)/, "+");
      if (to !== undefined && !isE164(to)) {
        throw new ApiError(
          "invalid_request",
          "to must be an E.164 number with a leading +, like +919876543210.",
          "to",
        );
      }
      const data = await listSandboxInbox(ctx, accountId, { to, limit });
      return { data };
    },
  );
}
