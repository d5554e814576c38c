import { Type } from "typebox";
import {
  getLowBalance,
  parseThreshold,
  setLowBalanceThreshold,
  THRESHOLD_RANGE,
} from "../../accounts/low-balance.js";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import { ApiError } from "../../errors.js";
import type { App } from "../../http/types.js";
import { sessionOf } from "../auth.js";
import { EnvironmentQuery, HIDDEN } from "../schemas.js";

/** An environment's balance and its low-balance alert (docs/money.md#low-balance-alerts). */
export function billingRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/billing",
    { schema: { ...HIDDEN, querystring: EnvironmentQuery } },
    async (request) => getLowBalance(ctx.db, sessionOf(request).accountId, request.query.environment),
  );

  app.patch(
    "/dashboard/api/billing",
    {
      schema: {
        ...HIDDEN,
        querystring: EnvironmentQuery,
        body: Type.Object(
          { low_balance_threshold: Type.Union([Type.String({ maxLength: 20 }), Type.Null()]) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const typed = request.body.low_balance_threshold;
      const threshold = typed === null ? null : parseThreshold(typed);
      if (threshold === undefined) {
        throw new ApiError(
          "invalid_request",
          `low_balance_threshold must be an INR amount ${THRESHOLD_RANGE}, like "100.00", or null to turn the alert off.`,
          "low_balance_threshold",
        );
      }
      return setLowBalanceThreshold(
        ctx,
        { accountId: sessionOf(request).accountId, environment: request.query.environment },
        threshold,
        dashboardActor(request),
      );
    },
  );
}
