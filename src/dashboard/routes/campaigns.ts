import { Type } from "typebox";
import { getBalance } from "../../accounts/ledger.js";
import { dashboardActor } from "../../audit/actor.js";
import { cancelCampaign } from "../../campaigns/cancel.js";
import { CAMPAIGN_BODY_LIMIT_BYTES, checkCampaign } from "../../campaigns/check.js";
import { createCampaign } from "../../campaigns/create.js";
import { CampaignBody } from "../../campaigns/schemas.js";
import { getCampaign, listCampaigns } from "../../campaigns/view.js";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { formatInr } from "../../lib/money.js";
import { sessionOf } from "../auth.js";
import { EnvironmentQuery, EnvironmentSchema, HIDDEN } from "../schemas.js";

const CampaignParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
/** A preview lists this many refused rows at most, and counts them all. */
const PREVIEW_ERRORS = 1_000;

/** The API's campaign routes (docs/campaigns.md) for the signed-in account, and a preview before sending. */
export function campaignRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/campaigns",
    {
      schema: {
        ...HIDDEN,
        querystring: Type.Object(
          {
            environment: EnvironmentSchema,
            starting_after: Type.Optional(Type.String({ maxLength: 64 })),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { environment, starting_after, limit } = request.query;
      return listCampaigns(
        ctx,
        { accountId: sessionOf(request).accountId, environment },
        { starting_after, limit },
      );
    },
  );

  app.get(
    "/dashboard/api/campaigns/:id",
    { schema: { ...HIDDEN, params: CampaignParams, querystring: EnvironmentQuery } },
    async (request) =>
      getCampaign(
        ctx,
        { accountId: sessionOf(request).accountId, environment: request.query.environment },
        request.params.id,
      ),
  );

  // What POST /v2/campaigns would accept and charge, without sending: each refused row with its
  // error, the cost, and the balance it would come from.
  app.post(
    "/dashboard/api/campaigns/preview",
    {
      bodyLimit: CAMPAIGN_BODY_LIMIT_BYTES,
      schema: { ...HIDDEN, querystring: EnvironmentQuery, body: CampaignBody },
    },
    async (request) => {
      const scope = { accountId: sessionOf(request).accountId, environment: request.query.environment };
      const [checked, balance] = await Promise.all([
        checkCampaign(ctx, scope, request.body),
        getBalance(ctx.db, scope.accountId, scope.environment),
      ]);
      return {
        recipients: request.body.recipients.length,
        accepted: checked.accepted.length,
        rejected: checked.errors.length,
        cost: formatInr(checked.cost),
        balance: formatInr(balance),
        currency: "INR" as const,
        errors: checked.errors.slice(0, PREVIEW_ERRORS),
      };
    },
  );

  app.post(
    "/dashboard/api/campaigns",
    {
      bodyLimit: CAMPAIGN_BODY_LIMIT_BYTES,
      schema: { ...HIDDEN, querystring: EnvironmentQuery, body: CampaignBody },
    },
    async (request, reply) => {
      const scope = { accountId: sessionOf(request).accountId, environment: request.query.environment };
      reply.code(202);
      return createCampaign(ctx, scope, request.body, dashboardActor(request));
    },
  );

  app.post(
    "/dashboard/api/campaigns/:id/cancel",
    { schema: { ...HIDDEN, params: CampaignParams, querystring: EnvironmentQuery } },
    async (request) =>
      cancelCampaign(
        ctx,
        { accountId: sessionOf(request).accountId, environment: request.query.environment },
        request.params.id,
        dashboardActor(request),
      ),
  );
}
