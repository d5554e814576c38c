import { Type } from "typebox";
import { addCredits, getBalance } from "../../accounts/ledger.js";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import { ApiError } from "../../errors.js";
import type { App } from "../../http/types.js";
import { formatInr, parseInr, UNITS_PER_RUPEE } from "../../lib/money.js";
import { sessionOf } from "../auth.js";
import { listMessages } from "../messages.js";
import { EnvironmentQuery, HIDDEN } from "../schemas.js";

const LATEST_MESSAGES = 10;
/** Sandbox credits are test money; the cap only keeps a typo from overflowing anything. */
const MAX_SANDBOX_TOP_UP = 10_000 * UNITS_PER_RUPEE;

export function overviewRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/overview",
    { schema: { ...HIDDEN, querystring: EnvironmentQuery } },
    async (request) => {
      const { accountId } = sessionOf(request);
      const { environment } = request.query;
      const [live, sandbox, latest] = await Promise.all([
        getBalance(ctx.db, accountId, "live"),
        getBalance(ctx.db, accountId, "sandbox"),
        listMessages(ctx, { accountId, environment }, { limit: LATEST_MESSAGES }),
      ]);
      return {
        balances: { live: formatInr(live), sandbox: formatInr(sandbox) },
        currency: "INR" as const,
        messages: latest.data,
      };
    },
  );

  app.post(
    "/dashboard/api/sandbox/credits",
    {
      schema: {
        ...HIDDEN,
        body: Type.Object({ amount: Type.String({ maxLength: 20 }) }, { additionalProperties: false }),
      },
    },
    async (request) => {
      const amount = parseInr(request.body.amount);
      if (amount === undefined || amount <= 0 || amount > MAX_SANDBOX_TOP_UP) {
        throw new ApiError(
          "invalid_request",
          `amount must be an INR amount above 0 and at most ${formatInr(MAX_SANDBOX_TOP_UP)}, like "100.00".`,
          "amount",
        );
      }
      const entry = await addCredits(
        ctx,
        {
          accountId: sessionOf(request).accountId,
          environment: "sandbox",
          amount,
          reason: "sandbox_top_up",
          reference: null,
        },
        dashboardActor(request),
      );
      return {
        environment: "sandbox" as const,
        balance: formatInr(entry.balanceAfter),
        currency: "INR" as const,
      };
    },
  );
}
