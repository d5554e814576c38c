import { Type } from "typebox";
import { keyActor } from "../audit/actor.js";
import type { AppContext } from "../context.js";
import { EventResponse } from "../events/routes.js";
import { ErrorResponse, errorResponse, Nullable } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { listAttempts } from "./attempts.js";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
} from "./endpoints.js";
import { replayEvents, sendTestEvent } from "./replay.js";
import { MAX_URL_LENGTH } from "./ssrf.js";

const Url = Type.String({
  maxLength: MAX_URL_LENGTH,
  description: "http(s):// (https:// in live); never a loopback, private, link-local or metadata address",
  examples: ["https://example.com/hooks/dakiya"],
});
const Events = Type.Array(Type.String({ maxLength: 64 }), {
  minItems: 1,
  maxItems: 32,
  description: 'Event types to receive, or ["*"] for all',
  examples: [["sms.delivered", "sms.failed"]],
});
const Description = Type.String({ maxLength: 500 });
const Status = Type.Union([Type.Literal("enabled"), Type.Literal("disabled")]);

const EndpointResponse = Type.Object({
  id: Type.String({ examples: ["whk_3kTz0aQ1vX9bWm2LcYp7RdN5"] }),
  environment: Type.Union([Type.Literal("live"), Type.Literal("sandbox")]),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  status: Status,
  disabled_reason: Nullable(
    Type.Union([Type.Literal("manual"), Type.Literal("gone"), Type.Literal("failing")], {
      description: "manual; gone: it answered 410; failing: every attempt failed for 5 days",
    }),
  ),
  failing_since: Nullable(Type.String({ description: "Since when every attempt has failed" })),
  secret: Type.Optional(
    Type.String({ description: "whsec_ + base64 of 32 bytes: the key of the signatures" }),
  ),
  created_at: Type.String(),
  updated_at: Type.String(),
});
const Params = Type.Object({ id: Type.String({ maxLength: 64, description: "The endpoint id (whk_…)" }) });
const tags = ["Webhooks"];
const security = [{ apiKey: [] }];
const NotFound = errorResponse(["not_found"]);
/** The actions that take no fields still need a JSON body: `{}`. */
const NoFields = Type.Object(
  {},
  { additionalProperties: false, "x-examples": { empty: { summary: "No fields", value: {} } } },
);

/** Request examples for the OpenAPI document; each succeeds as it is with a sandbox key. */
const CREATE_EXAMPLES = {
  order_updates: {
    summary: "Delivery outcomes and verified OTPs",
    value: {
      url: "https://example.com/hooks/dakiya",
      events: ["sms.delivered", "sms.failed", "otp.verified"],
      description: "Order updates",
    },
  },
  everything: {
    summary: "Every event",
    value: { url: "https://example.com/hooks/dakiya-all", events: ["*"] },
  },
};
const UPDATE_EXAMPLES = {
  all_events: { summary: "Subscribe to every event", value: { events: ["*"], description: "All events" } },
};
const REPLAY_EXAMPLES = {
  since: { summary: "Every event since a time", value: { since: "2026-11-22T10:00:00Z" } },
};

export function webhookRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/v2/webhooks",
    {
      schema: {
        operationId: "createWebhookEndpoint",
        summary: "Create a webhook endpoint",
        description: "Events of this key's environment are posted to the URL, signed per Standard Webhooks.",
        tags,
        security,
        body: Type.Object(
          { url: Url, events: Type.Optional(Events), description: Type.Optional(Description) },
          { additionalProperties: false, "x-examples": CREATE_EXAMPLES },
        ),
        response: { 201: EndpointResponse, 400: ErrorResponse },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return createEndpoint(ctx, principalOf(request), request.body, keyActor(request));
    },
  );

  app.get(
    "/v2/webhooks",
    {
      schema: {
        operationId: "listWebhookEndpoints",
        summary: "List webhook endpoints (without their secrets)",
        tags,
        security,
        response: { 200: Type.Object({ data: Type.Array(EndpointResponse) }) },
      },
    },
    async (request) => ({ data: await listEndpoints(ctx, principalOf(request)) }),
  );

  app.get(
    "/v2/webhooks/:id",
    {
      schema: {
        operationId: "getWebhookEndpoint",
        summary: "A webhook endpoint, with its secret",
        tags,
        security,
        params: Params,
        response: { 200: EndpointResponse, 404: NotFound },
      },
    },
    async (request) => getEndpoint(ctx, principalOf(request), request.params.id),
  );

  app.patch(
    "/v2/webhooks/:id",
    {
      schema: {
        operationId: "updateWebhookEndpoint",
        summary: "Change a webhook endpoint",
        description:
          "Disabling gives up the deliveries waiting for it; replay sends them again once enabled.",
        tags,
        security,
        params: Params,
        body: Type.Object(
          {
            url: Type.Optional(Url),
            events: Type.Optional(Events),
            description: Type.Optional(Nullable(Description)),
            status: Type.Optional(Status),
          },
          { additionalProperties: false, "x-examples": UPDATE_EXAMPLES },
        ),
        response: { 200: EndpointResponse, 400: ErrorResponse, 404: NotFound },
      },
    },
    async (request) =>
      updateEndpoint(ctx, principalOf(request), request.params.id, request.body, keyActor(request)),
  );

  app.delete(
    "/v2/webhooks/:id",
    {
      schema: {
        operationId: "deleteWebhookEndpoint",
        summary: "Delete a webhook endpoint, its waiting deliveries and its attempt log",
        tags,
        security,
        params: Params,
        response: {
          200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }),
          404: NotFound,
        },
      },
    },
    async (request) => {
      await deleteEndpoint(ctx, principalOf(request), request.params.id, keyActor(request));
      return { id: request.params.id, deleted: true as const };
    },
  );

  app.post(
    "/v2/webhooks/:id/rotate-secret",
    {
      schema: {
        operationId: "rotateWebhookSecret",
        summary: "Replace the signing secret",
        description: "For 24 hours deliveries carry signatures under both the new and the replaced secret.",
        tags,
        security,
        params: Params,
        body: NoFields,
        response: { 200: EndpointResponse, 404: NotFound },
      },
    },
    async (request) => rotateSecret(ctx, principalOf(request), request.params.id, keyActor(request)),
  );

  app.post(
    "/v2/webhooks/:id/test",
    {
      schema: {
        operationId: "sendWebhookTestEvent",
        summary: "Send a webhook.test event to this endpoint only",
        description: "A disabled endpoint is refused (400): enable it first.",
        tags,
        security,
        params: Params,
        body: NoFields,
        response: { 202: EventResponse, 400: ErrorResponse, 404: NotFound },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return sendTestEvent(ctx, principalOf(request), request.params.id);
    },
  );

  app.get(
    "/v2/webhooks/:id/attempts",
    {
      schema: {
        operationId: "listWebhookAttempts",
        summary: "Recent delivery attempts, newest first (kept 30 days)",
        tags,
        security,
        params: Params,
        querystring: Type.Object(
          { limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            data: Type.Array(
              Type.Object({
                id: Type.String(),
                event_id: Type.String(),
                event_type: Type.String({ description: "The event's type, e.g. sms.delivered" }),
                attempt: Type.Integer({ description: "1 for a delivery's first attempt" }),
                status_code: Nullable(Type.Integer()),
                error: Nullable(Type.String()),
                duration_ms: Type.Integer(),
                created_at: Type.String(),
              }),
            ),
          }),
          400: ErrorResponse,
          404: NotFound,
        },
      },
    },
    async (request) => ({
      data: await listAttempts(ctx, principalOf(request), request.params.id, request.query.limit),
    }),
  );

  app.post(
    "/v2/webhooks/:id/replay",
    {
      schema: {
        operationId: "replayWebhookEvents",
        summary: "Deliver again every event since a time",
        description:
          "Every event of this environment created at or after `since` that the endpoint subscribes to is delivered again, with its original `webhook-id`.",
        tags,
        security,
        params: Params,
        body: Type.Object(
          { since: Type.String({ format: "date-time", description: "RFC 3339", maxLength: 64 }) },
          { additionalProperties: false, "x-examples": REPLAY_EXAMPLES },
        ),
        response: {
          202: Type.Object({
            webhook_id: Type.String(),
            since: Type.String(),
            queued: Type.Integer({ description: "Events queued for delivery again" }),
          }),
          400: ErrorResponse,
          404: NotFound,
        },
      },
    },
    async (request, reply) => {
      const queued = await replayEvents(ctx, principalOf(request), request.params.id, request.body.since);
      reply.code(202);
      return { webhook_id: request.params.id, since: request.body.since, queued };
    },
  );
}
