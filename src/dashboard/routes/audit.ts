import { Type } from "typebox";
import { listAuditLog, MAX_AUDIT_PAGE } from "../../audit/log.js";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { sessionOf } from "../auth.js";
import { HIDDEN } from "../schemas.js";

const Filter = Type.String({ maxLength: 254 });
const Instant = Type.String({ format: "date-time", maxLength: 64 });

/** Settings → Audit log: the signed-in account's audit rows, newest first (docs/audit.md). */
export function auditRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/audit",
    {
      schema: {
        ...HIDDEN,
        querystring: Type.Object(
          {
            action: Type.Optional(Filter),
            actor: Type.Optional(Filter),
            target: Type.Optional(Filter),
            created_after: Type.Optional(Instant),
            created_before: Type.Optional(Instant),
            starting_after: Type.Optional(Type.String({ maxLength: 64 })),
            limit: Type.Integer({ minimum: 1, maximum: MAX_AUDIT_PAGE, default: 50 }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const query = request.query;
      return listAuditLog(ctx.db, sessionOf(request).accountId, {
        action: query.action,
        actor: query.actor,
        target: query.target,
        createdAfter: utc(query.created_after),
        createdBefore: utc(query.created_before),
        startingAfter: query.starting_after,
        limit: query.limit,
      });
    },
  );
}

/** An RFC 3339 time in the stored form (UTC, milliseconds), so it compares with stored times as text. */
function utc(instant: string | undefined): string | undefined {
  return instant === undefined ? undefined : new Date(instant).toISOString();
}
