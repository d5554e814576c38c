import { Type } from "typebox";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import { MAX_URL_PREFIX_LENGTH } from "../../dlt/cta/entries.js";
import { addCtaEntry, listCtaEntries, removeCtaEntry } from "../../dlt/cta/store.js";
import type { App } from "../../http/types.js";
import { sessionOf } from "../auth.js";
import { HIDDEN } from "../schemas.js";

/** An entry as the console sends it: its kind and the text typed (checked and made canonical by the service). */
const CtaEntryInput = Type.Object(
  {
    kind: Type.Union([Type.Literal("url"), Type.Literal("number")]),
    value: Type.String({ maxLength: MAX_URL_PREFIX_LENGTH + 100 }),
  },
  { additionalProperties: false },
);

/** The signed-in account's whitelisted links and callback numbers (docs/dashboard-api.md, CtaEntry). */
export function ctaRoutes(app: App, ctx: AppContext): void {
  app.get("/dashboard/api/cta", { schema: HIDDEN }, async (request) => ({
    data: await listCtaEntries(ctx, sessionOf(request).accountId),
  }));

  app.post("/dashboard/api/cta", { schema: { ...HIDDEN, body: CtaEntryInput } }, async (request, reply) =>
    reply
      .code(201)
      .send(
        await addCtaEntry(
          ctx,
          sessionOf(request).accountId,
          request.body.kind,
          request.body.value,
          dashboardActor(request),
        ),
      ),
  );

  // The entry goes in the query: a URL does not fit in a path segment.
  app.delete(
    "/dashboard/api/cta",
    { schema: { ...HIDDEN, querystring: CtaEntryInput } },
    async (request, reply) => {
      await removeCtaEntry(
        ctx,
        sessionOf(request).accountId,
        request.query.kind,
        request.query.value,
        dashboardActor(request),
      );
      return reply.code(204).send();
    },
  );
}
