import { Type } from "typebox";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import { addTemplate, listTemplates, setTemplateStatus } from "../../dlt/registry.js";
import { addSender, listSenders, removeSender } from "../../dlt/senders.js";
import { removeTemplate, updateTemplate } from "../../dlt/template-edits.js";
import type { App } from "../../http/types.js";
import { sessionOf } from "../auth.js";
import { HIDDEN } from "../schemas.js";

const CategorySchema = Type.Union([
  Type.Literal("transactional"),
  Type.Literal("service_implicit"),
  Type.Literal("service_explicit"),
  Type.Literal("promotional"),
]);

/** Longer than MAX_JUSTIFICATION_LENGTH, so the service's own check answers with its message. */
const JustificationSchema = Type.String({ maxLength: 4000 });

const TemplateIdParams = Type.Object({ template_id: Type.String({ maxLength: 30 }) });

export function registryRoutes(app: App, ctx: AppContext): void {
  app.get("/dashboard/api/senders", { schema: HIDDEN }, async (request) => ({
    data: await listSenders(ctx, sessionOf(request).accountId),
  }));

  app.post(
    "/dashboard/api/senders",
    {
      schema: {
        ...HIDDEN,
        body: Type.Object({ sender: Type.String({ maxLength: 32 }) }, { additionalProperties: false }),
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await addSender(ctx, sessionOf(request).accountId, request.body.sender, dashboardActor(request)),
        ),
  );

  app.delete(
    "/dashboard/api/senders/:sender",
    { schema: { ...HIDDEN, params: Type.Object({ sender: Type.String({ maxLength: 32 }) }) } },
    async (request, reply) => {
      await removeSender(ctx, sessionOf(request).accountId, request.params.sender, dashboardActor(request));
      return reply.code(204).send();
    },
  );

  app.get("/dashboard/api/templates", { schema: HIDDEN }, async (request) => ({
    data: await listTemplates(ctx, sessionOf(request).accountId),
  }));

  app.post(
    "/dashboard/api/templates",
    {
      schema: {
        ...HIDDEN,
        body: Type.Object(
          {
            template_id: Type.String({ maxLength: 30 }),
            entity_id: Type.String({ maxLength: 30 }),
            name: Type.String({ maxLength: 100 }),
            category: CategorySchema,
            senders: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 50 }),
            content: Type.String({ maxLength: 2000 }),
            variables_justification: Type.Optional(Type.Union([JustificationSchema, Type.Null()])),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { template_id, entity_id, variables_justification, ...rest } = request.body;
      const template = await addTemplate(
        ctx,
        {
          accountId: sessionOf(request).accountId,
          templateId: template_id,
          entityId: entity_id,
          variablesJustification: variables_justification ?? null,
          ...rest,
        },
        dashboardActor(request),
      );
      return reply.code(201).send(template);
    },
  );

  app.patch(
    "/dashboard/api/templates/:template_id",
    {
      schema: {
        ...HIDDEN,
        params: TemplateIdParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ maxLength: 100 })),
            entity_id: Type.Optional(Type.String({ maxLength: 30 })),
            category: Type.Optional(CategorySchema),
            senders: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 50 })),
            content: Type.Optional(Type.String({ maxLength: 2000 })),
            variables_justification: Type.Optional(Type.Union([JustificationSchema, Type.Null()])),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { entity_id, variables_justification, ...rest } = request.body;
      return updateTemplate(
        ctx,
        sessionOf(request).accountId,
        request.params.template_id,
        {
          ...rest,
          ...(entity_id === undefined ? {} : { entityId: entity_id }),
          ...(variables_justification === undefined
            ? {}
            : { variablesJustification: variables_justification }),
        },
        dashboardActor(request),
      );
    },
  );

  app.delete(
    "/dashboard/api/templates/:template_id",
    { schema: { ...HIDDEN, params: TemplateIdParams } },
    async (request, reply) => {
      await removeTemplate(
        ctx,
        sessionOf(request).accountId,
        request.params.template_id,
        dashboardActor(request),
      );
      return reply.code(204).send();
    },
  );

  app.post(
    "/dashboard/api/templates/:template_id/status",
    {
      schema: {
        ...HIDDEN,
        params: TemplateIdParams,
        body: Type.Object(
          { status: Type.Union([Type.Literal("active"), Type.Literal("inactive")]) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) =>
      setTemplateStatus(
        ctx,
        sessionOf(request).accountId,
        request.params.template_id,
        request.body.status,
        dashboardActor(request),
      ),
  );
}
