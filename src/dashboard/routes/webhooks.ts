import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import type { Environment } from "../../db/schema.js";
import type { App } from "../../http/types.js";
import { listAttemptsPage } from "../../webhooks/attempts.js";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
} from "../../webhooks/endpoints.js";
import { replayEvents, sendTestEvent } from "../../webhooks/replay.js";
import { MAX_URL_LENGTH } from "../../webhooks/ssrf.js";
import { sessionOf } from "../auth.js";
import { EnvironmentQuery, EnvironmentSchema, HIDDEN } from "../schemas.js";

const EndpointParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const Url = Type.String({ maxLength: MAX_URL_LENGTH });
const Events = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 32 });
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);
const StatusSchema = Type.Union([Type.Literal("enabled"), Type.Literal("disabled")]);

/** The session's account and the page's environment: endpoints of any other are `not_found`. */
function scopeOf(request: FastifyRequest, environment: Environment) {
  return { accountId: sessionOf(request).accountId, environment };
}

/** Developers → Webhooks: the `/v2/webhooks` operations for the signed-in account. */
export function webhookRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/webhooks",
    { schema: { ...HIDDEN, querystring: EnvironmentQuery } },
    async (request) => ({
      data: await listEndpoints(ctx, scopeOf(request, request.query.environment)),
    }),
  );

  app.post(
    "/dashboard/api/webhooks",
    {
      schema: {
        ...HIDDEN,
        querystring: EnvironmentQuery,
        body: Type.Object(
          { url: Url, events: Type.Optional(Events), description: Type.Optional(Description) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const endpoint = await createEndpoint(
        ctx,
        scopeOf(request, request.query.environment),
        request.body,
        dashboardActor(request),
      );
      return reply.code(201).send(endpoint);
    },
  );

  app.get(
    "/dashboard/api/webhooks/:id",
    { schema: { ...HIDDEN, params: EndpointParams, querystring: EnvironmentQuery } },
    async (request) => getEndpoint(ctx, scopeOf(request, request.query.environment), request.params.id),
  );

  app.patch(
    "/dashboard/api/webhooks/:id",
    {
      schema: {
        ...HIDDEN,
        params: EndpointParams,
        querystring: EnvironmentQuery,
        body: Type.Object(
          {
            url: Type.Optional(Url),
            events: Type.Optional(Events),
            description: Type.Optional(Description),
            status: Type.Optional(StatusSchema),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { description, ...rest } = request.body;
      // A description cleared in the form arrives empty: it means "none".
      const change = description === undefined ? rest : { ...rest, description: description || null };
      return updateEndpoint(
        ctx,
        scopeOf(request, request.query.environment),
        request.params.id,
        change,
        dashboardActor(request),
      );
    },
  );

  app.delete(
    "/dashboard/api/webhooks/:id",
    { schema: { ...HIDDEN, params: EndpointParams, querystring: EnvironmentQuery } },
    async (request, reply) => {
      await deleteEndpoint(
        ctx,
        scopeOf(request, request.query.environment),
        request.params.id,
        dashboardActor(request),
      );
      return reply.code(204).send();
    },
  );

  app.post(
    "/dashboard/api/webhooks/:id/rotate-secret",
    { schema: { ...HIDDEN, params: EndpointParams, querystring: EnvironmentQuery } },
    async (request) =>
      rotateSecret(
        ctx,
        scopeOf(request, request.query.environment),
        request.params.id,
        dashboardActor(request),
      ),
  );

  app.post(
    "/dashboard/api/webhooks/:id/test",
    { schema: { ...HIDDEN, params: EndpointParams, querystring: EnvironmentQuery } },
    async (request, reply) => {
      const event = await sendTestEvent(ctx, scopeOf(request, request.query.environment), request.params.id);
      return reply.code(202).send(event);
    },
  );

  app.get(
    "/dashboard/api/webhooks/:id/attempts",
    {
      schema: {
        ...HIDDEN,
        params: EndpointParams,
        querystring: Type.Object(
          {
            environment: EnvironmentSchema,
            before: Type.Optional(Type.String({ maxLength: 64 })),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { environment, before, limit } = request.query;
      return listAttemptsPage(ctx, scopeOf(request, environment), request.params.id, { before, limit });
    },
  );

  app.post(
    "/dashboard/api/webhooks/:id/replay",
    {
      schema: {
        ...HIDDEN,
        params: EndpointParams,
        querystring: EnvironmentQuery,
        body: Type.Object(
          { since: Type.String({ format: "date-time", maxLength: 64 }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { since } = request.body;
      const queued = await replayEvents(
        ctx,
        scopeOf(request, request.query.environment),
        request.params.id,
        since,
      );
      return reply.code(202).send({ webhook_id: request.params.id, since, queued });
    },
  );
}
