import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ErrorResponse, errorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { answerIdempotently } from "../idempotency/hooks.js";
import { getMessage } from "../messages/store.js";
import { BATCH_BODY_LIMIT_BYTES, sendSmsBatch } from "./batch.js";
import { cancelMessage } from "./cancel.js";
import {
  MessageResponse,
  SMS_BATCH_EXAMPLES,
  SMS_SEND_EXAMPLES,
  SmsBatchBody,
  SmsBatchResponse,
  SmsSendBody,
} from "./schemas.js";
import { sendSms } from "./send.js";

export function smsRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/v2/sms/send",
    {
      schema: {
        operationId: "sendSms",
        summary: "Send a DLT-templated SMS",
        description:
          "Checks the destination, sender, template and variables, renders and prices the text, debits the balance and queues the message. Accepts Idempotency-Key.",
        tags: ["SMS"],
        security: [{ apiKey: [] }],
        body: { ...SmsSendBody, "x-examples": SMS_SEND_EXAMPLES },
        response: { 202: MessageResponse, 400: ErrorResponse, 402: ErrorResponse, 422: ErrorResponse },
      },
    },
    async (request, reply) =>
      answerIdempotently(request, reply, 202, (record) =>
        sendSms(ctx, principalOf(request), request.body, record),
      ),
  );

  app.post(
    "/v2/sms/batch",
    {
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      schema: {
        operationId: "sendSmsBatch",
        summary: "Send up to 1,000 DLT-templated SMS in one request",
        description:
          "Each item is checked, priced, charged and queued as POST /v2/sms/send would, on its own: a refused item does not stop the others. Answers each item's message or error in request order. The body may be up to 1 MiB. An Idempotency-Key covers the whole batch.",
        tags: ["SMS"],
        security: [{ apiKey: [] }],
        body: { ...SmsBatchBody, "x-examples": SMS_BATCH_EXAMPLES },
        response: { 202: SmsBatchResponse, 400: ErrorResponse, 413: ErrorResponse },
      },
    },
    async (request, reply) =>
      answerIdempotently(request, reply, 202, (record) =>
        sendSmsBatch(ctx, principalOf(request), request.body, record),
      ),
  );

  app.get(
    "/v2/sms/:id",
    {
      schema: {
        operationId: "getSms",
        summary: "A message and its delivery status",
        tags: ["SMS"],
        security: [{ apiKey: [] }],
        params: Type.Object({
          id: Type.String({ maxLength: 64, description: "The message id (msg_…)" }),
        }),
        response: { 200: MessageResponse, 404: errorResponse(["not_found"]) },
      },
    },
    async (request) => getMessage(ctx, principalOf(request), request.params.id),
  );

  app.post(
    "/v2/sms/:id/cancel",
    {
      schema: {
        operationId: "cancelSms",
        summary: "Cancel a scheduled or queued message, refunded",
        description:
          "While a message is `scheduled`, or `queued` and not yet taken for delivery, it ends `cancelled` and its cost is refunded (event `sms.cancelled`). Once a delivery has taken it, or it has ended, the answer is 409 `not_cancellable`. The body may be empty.",
        tags: ["SMS"],
        security: [{ apiKey: [] }],
        params: Type.Object({
          id: Type.String({ maxLength: 64, description: "The message id (msg_…)" }),
        }),
        response: {
          200: MessageResponse,
          404: errorResponse(["not_found"]),
          409: errorResponse(["not_cancellable", "idempotency_key_in_use"]),
        },
      },
    },
    async (request, reply) =>
      answerIdempotently(request, reply, 200, (record) =>
        cancelMessage(ctx, principalOf(request), request.params.id, record),
      ),
  );
}
