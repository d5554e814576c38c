import { Type } from "typebox";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { createKey, deleteKey, listKeys, MAX_LABEL_LENGTH, rotateKey } from "../../keys/keys.js";
import { KEY_SCOPES } from "../../keys/scopes.js";
import { sessionOf } from "../auth.js";
import { EnvironmentQuery, EnvironmentSchema, HIDDEN } from "../schemas.js";

const KeyParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** An address or CIDR; the count (at most 20) and the form are checked by src/keys/allowed-ips.ts, which says what to write. */
const AllowedIp = Type.String({ maxLength: 64 });

export function keyRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/keys",
    { schema: { ...HIDDEN, querystring: EnvironmentQuery } },
    async (request) => {
      const keys = await listKeys(ctx, sessionOf(request).accountId);
      return { data: keys.filter((key) => key.environment === request.query.environment) };
    },
  );

  app.post(
    "/dashboard/api/keys",
    {
      schema: {
        ...HIDDEN,
        body: Type.Object(
          {
            environment: EnvironmentSchema,
            label: Type.Optional(Type.Union([Type.String({ maxLength: MAX_LABEL_LENGTH }), Type.Null()])),
            scope: Type.Optional(Type.Union(KEY_SCOPES.map((scope) => Type.Literal(scope)))),
            allowed_ips: Type.Optional(Type.Union([Type.Array(AllowedIp), Type.Null()])),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { allowed_ips: allowedIps, ...rest } = request.body;
      const key = await createKey(
        ctx,
        { accountId: sessionOf(request).accountId, ...rest, allowedIps },
        dashboardActor(request),
      );
      return reply.code(201).send(key);
    },
  );

  app.post(
    "/dashboard/api/keys/:id/rotate",
    {
      schema: {
        ...HIDDEN,
        params: KeyParams,
        body: Type.Object({ grace_seconds: Type.Integer() }, { additionalProperties: false }),
      },
    },
    async (request) =>
      rotateKey(
        ctx,
        {
          accountId: sessionOf(request).accountId,
          keyId: request.params.id,
          graceSeconds: request.body.grace_seconds,
        },
        dashboardActor(request),
      ),
  );

  app.delete(
    "/dashboard/api/keys/:id",
    { schema: { ...HIDDEN, params: KeyParams } },
    async (request, reply) => {
      await deleteKey(ctx, sessionOf(request).accountId, request.params.id, dashboardActor(request));
      return reply.code(204).send();
    },
  );
}
