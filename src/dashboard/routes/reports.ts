import { Type } from "typebox";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { MessageGroupSchema, ReportPeriodQuery } from "../../reports/schemas.js";
import { messageReportFor, otpReportFor } from "../../reports/service.js";
import { sessionOf } from "../auth.js";
import { EnvironmentSchema, HIDDEN } from "../schemas.js";

/** The reports of the API (docs/reports.md) for the console's charts, by environment. */
export function dashboardReportRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/reports/messages",
    {
      schema: {
        ...HIDDEN,
        querystring: Type.Object(
          {
            environment: EnvironmentSchema,
            ...ReportPeriodQuery,
            group_by: Type.Optional(MessageGroupSchema),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { environment, ...query } = request.query;
      return messageReportFor(ctx, { accountId: sessionOf(request).accountId, environment }, query);
    },
  );

  app.get(
    "/dashboard/api/reports/otp",
    {
      schema: {
        ...HIDDEN,
        querystring: Type.Object(
          { environment: EnvironmentSchema, ...ReportPeriodQuery },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { environment, ...query } = request.query;
      return otpReportFor(ctx, { accountId: sessionOf(request).accountId, environment }, query);
    },
  );
}
