import { Type } from "typebox";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { sessionOf } from "../auth.js";
import { parseIndiaDateRange } from "../date-range.js";
import { ledgerCsv, ledgerCsvName, listLedger } from "../ledger.js";
import { EnvironmentSchema, HIDDEN } from "../schemas.js";

/** Days of India time, `YYYY-MM-DD`, both included (parseIndiaDateRange). */
const DateRangeQuery = {
  environment: EnvironmentSchema,
  from: Type.Optional(Type.String({ maxLength: 32 })),
  to: Type.Optional(Type.String({ maxLength: 32 })),
};
const RANGE_PARAMS = { from: "from", to: "to" } as const;

export function ledgerRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/ledger",
    {
      schema: {
        ...HIDDEN,
        querystring: Type.Object(
          {
            ...DateRangeQuery,
            before: Type.Optional(Type.String({ maxLength: 64 })),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { environment, from, to, before, limit } = request.query;
      const created = parseIndiaDateRange(from, to, RANGE_PARAMS);
      return listLedger(
        ctx,
        { accountId: sessionOf(request).accountId, environment },
        { created, before, limit },
      );
    },
  );

  app.get(
    "/dashboard/api/ledger.csv",
    {
      schema: {
        ...HIDDEN,
        querystring: Type.Object(DateRangeQuery, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const { environment, from, to } = request.query;
      // Validated before the first byte, so a bad date is still a JSON error.
      const created = parseIndiaDateRange(from, to, RANGE_PARAMS);
      const csv = ledgerCsv(ctx, { accountId: sessionOf(request).accountId, environment }, created);
      return reply
        .type("text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="${ledgerCsvName(environment, from, to)}"`)
        .header("Cache-Control", "no-store")
        .send(csv);
    },
  );
}
