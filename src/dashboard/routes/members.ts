import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import {
  changeRole,
  type IssuedLink,
  inviteMember,
  linkUrl,
  listMembers,
  removeMember,
} from "../../members/members.js";
import { ROLES } from "../../members/roles.js";
import { sessionOf } from "../auth.js";
import { HIDDEN } from "../schemas.js";

const RoleSchema = Type.Union(ROLES.map((role) => Type.Literal(role)));
const MemberParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** Where an invite's link points: the server's public address, or the one the console was opened at. */
export function inviteUrl(ctx: AppContext, request: FastifyRequest, link: IssuedLink): string {
  return linkUrl(ctx.publicUrl ?? `${request.protocol}://${request.host}`, link.token);
}

/** Settings → Team: the account's members, invites, roles and removals (owners and admins). */
export function memberRoutes(app: App, ctx: AppContext): void {
  app.get("/dashboard/api/members", { schema: HIDDEN }, async (request) => ({
    data: await listMembers(ctx.db, sessionOf(request).accountId),
  }));

  app.post(
    "/dashboard/api/members",
    {
      schema: {
        ...HIDDEN,
        body: Type.Object(
          { email: Type.String({ minLength: 1, maxLength: 254 }), role: RoleSchema },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const link = await inviteMember(
        ctx,
        {
          ...request.body,
          accountId: session.accountId,
          by: session.role,
        },
        dashboardActor(request),
      );
      return reply.code(201).send({
        ...link.member,
        invite_url: inviteUrl(ctx, request, link),
        invite_expires_at: link.expires_at,
      });
    },
  );

  app.patch(
    "/dashboard/api/members/:id",
    {
      schema: {
        ...HIDDEN,
        params: MemberParams,
        body: Type.Object({ role: RoleSchema }, { additionalProperties: false }),
      },
    },
    async (request) => {
      const session = sessionOf(request);
      return changeRole(
        ctx,
        {
          accountId: session.accountId,
          memberId: request.params.id,
          role: request.body.role,
          by: session.role,
        },
        dashboardActor(request),
      );
    },
  );

  app.delete(
    "/dashboard/api/members/:id",
    { schema: { ...HIDDEN, params: MemberParams } },
    async (request, reply) => {
      const session = sessionOf(request);
      await removeMember(
        ctx,
        {
          accountId: session.accountId,
          memberId: request.params.id,
          by: session.role,
        },
        dashboardActor(request),
      );
      return reply.code(204).send();
    },
  );
}
