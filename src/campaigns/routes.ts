import { Type } from "typebox";
import { keyActor } from "../audit/actor.js";
import type { AppContext } from "../context.js";
import { ErrorResponse, errorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { answerIdempotently } from "../idempotency/hooks.js";
import { cancelCampaign } from "./cancel.js";
import { CAMPAIGN_BODY_LIMIT_BYTES } from "./check.js";
import { createCampaign } from "./create.js";
import { CAMPAIGN_EXAMPLES, CampaignBody, CampaignCreateResponse, CampaignResponse } from "./schemas.js";
import { getCampaign, listCampaigns } from "./view.js";

const CampaignId = Type.Object({
  id: Type.String({ maxLength: 64, description: "The campaign id (cmp_…)" }),
});

export function campaignRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/v2/campaigns",
    {
      bodyLimit: CAMPAIGN_BODY_LIMIT_BYTES,
      schema: {
        operationId: "createCampaign",
        summary: "Send one template to up to 100,000 recipients",
        description:
          "Each recipient is checked, priced and charged as a batch item, at bulk priority; a refused recipient is listed in `errors` and does not stop the others. The campaign starts at `send_at` (or now) and is fed into the queue, paced by `messages_per_minute` if given. The body may be up to 32 MiB. An Idempotency-Key covers the whole campaign.",
        tags: ["Campaigns"],
        security: [{ apiKey: [] }],
        body: { ...CampaignBody, "x-examples": CAMPAIGN_EXAMPLES },
        response: { 202: CampaignCreateResponse, 400: ErrorResponse, 413: ErrorResponse, 422: ErrorResponse },
      },
    },
    async (request, reply) =>
      answerIdempotently(request, reply, 202, (record) =>
        createCampaign(ctx, principalOf(request), request.body, keyActor(request), record),
      ),
  );

  app.get(
    "/v2/campaigns",
    {
      schema: {
        operationId: "listCampaigns",
        summary: "Campaigns, newest first",
        tags: ["Campaigns"],
        security: [{ apiKey: [] }],
        querystring: Type.Object(
          {
            status: Type.Optional(
              Type.Union([
                Type.Literal("scheduled"),
                Type.Literal("sending"),
                Type.Literal("completed"),
                Type.Literal("cancelled"),
              ]),
            ),
            starting_after: Type.Optional(
              Type.String({
                maxLength: 64,
                description: "The last campaign id of the previous page (cmp_…)",
              }),
            ),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(CampaignResponse), has_more: Type.Boolean() }),
          400: ErrorResponse,
          404: errorResponse(["not_found"]),
        },
      },
    },
    async (request) => listCampaigns(ctx, principalOf(request), request.query),
  );

  app.get(
    "/v2/campaigns/:id",
    {
      schema: {
        operationId: "getCampaign",
        summary: "A campaign: counts by status, cost, refunds, progress",
        tags: ["Campaigns"],
        security: [{ apiKey: [] }],
        params: CampaignId,
        response: { 200: CampaignResponse, 404: errorResponse(["not_found"]) },
      },
    },
    async (request) => getCampaign(ctx, principalOf(request), request.params.id),
  );

  app.post(
    "/v2/campaigns/:id/cancel",
    {
      schema: {
        operationId: "cancelCampaign",
        summary: "Cancel a campaign, refunding what has not gone out",
        description:
          "Recipients not yet in the queue and messages no delivery has taken end cancelled (each message with `sms.cancelled`), and their cost comes back as one `campaign_refund`. Messages already handed to a carrier go on. A completed or cancelled campaign answers 409 `not_cancellable`. The body may be empty.",
        tags: ["Campaigns"],
        security: [{ apiKey: [] }],
        params: CampaignId,
        response: {
          200: CampaignResponse,
          404: errorResponse(["not_found"]),
          409: errorResponse(["not_cancellable", "idempotency_key_in_use"]),
        },
      },
    },
    async (request, reply) =>
      answerIdempotently(request, reply, 200, (record) =>
        cancelCampaign(ctx, principalOf(request), request.params.id, keyActor(request), record),
      ),
  );
}
