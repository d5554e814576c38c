import { Type } from "typebox";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { listSandboxInbox, withOtpCodes } from "../../sandbox/inbox.js";
import { cancelMessage } from "../../sms/cancel.js";
import { MessageStatusSchema } from "../../sms/schemas.js";
import { sessionOf } from "../auth.js";
import { parseIndiaDateRange } from "../date-range.js";
import { getMessageDetail, listMessages, withRefund } from "../messages.js";
import { messagesCsv, messagesCsvName } from "../messages-csv.js";
import { parseNumberFilter } from "../number-filter.js";
import { EnvironmentQuery, EnvironmentSchema, HIDDEN } from "../schemas.js";

const MessageParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ChannelSchema = Type.Union([Type.Literal("sms"), Type.Literal("whatsapp"), Type.Literal("voice")]);
/** The console's filters of the messages list, which its CSV download takes too. */
const MessageFilterQuery = {
  environment: EnvironmentSchema,
  status: Type.Optional(MessageStatusSchema),
  channel: Type.Optional(ChannelSchema),
  to: Type.Optional(Type.String({ maxLength: 32 })),
  // Days of India time, both included; `to` is the number, so the range ends at `until`.
  from: Type.Optional(Type.String({ maxLength: 32 })),
  until: Type.Optional(Type.String({ maxLength: 32 })),
};

/** The list's number and day filters, read alike for both routes; a bad one is 400 naming it. */
function parseFilters(query: {
  to?: string | undefined;
  from?: string | undefined;
  until?: string | undefined;
}) {
  return {
    created: parseIndiaDateRange(query.from, query.until, { from: "from", to: "until" }),
    to: parseNumberFilter(query.to),
  };
}

export function messageRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/messages",
    {
      schema: {
        ...HIDDEN,
        querystring: Type.Object(
          {
            ...MessageFilterQuery,
            before: Type.Optional(Type.String({ maxLength: 64 })),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { environment, status, channel, before, limit } = request.query;
      return listMessages(
        ctx,
        { accountId: sessionOf(request).accountId, environment },
        { status, channel, before, limit, ...parseFilters(request.query) },
      );
    },
  );

  // Every message the filters match (the newest MESSAGES_CSV_LIMIT), streamed as CSV.
  app.get(
    "/dashboard/api/messages/export.csv",
    { schema: { ...HIDDEN, querystring: Type.Object(MessageFilterQuery, { additionalProperties: false }) } },
    async (request, reply) => {
      const { environment, status, channel, from, until } = request.query;
      // Validated before the first byte, so a bad filter is still a JSON error.
      const filters = parseFilters(request.query);
      const csv = messagesCsv(
        ctx,
        { accountId: sessionOf(request).accountId, environment },
        { status, channel, ...filters },
      );
      return reply
        .type("text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="${messagesCsvName(environment, from, until)}"`)
        .header("Cache-Control", "no-store")
        .send(csv);
    },
  );

  app.get(
    "/dashboard/api/messages/:id",
    {
      schema: {
        ...HIDDEN,
        params: MessageParams,
        querystring: EnvironmentQuery,
      },
    },
    async (request) =>
      getMessageDetail(
        ctx,
        { accountId: sessionOf(request).accountId, environment: request.query.environment },
        request.params.id,
      ),
  );

  // The API's cancel (POST /v2/sms/{id}/cancel) for the signed-in account: 409 `not_cancellable`
  // once a delivery has taken the message or it has ended.
  app.post(
    "/dashboard/api/messages/:id/cancel",
    { schema: { ...HIDDEN, params: MessageParams, querystring: EnvironmentQuery } },
    async (request) => {
      const scope = { accountId: sessionOf(request).accountId, environment: request.query.environment };
      return withRefund(await cancelMessage(ctx, scope, request.params.id));
    },
  );

  app.get(
    "/dashboard/api/sandbox/messages",
    {
      schema: {
        ...HIDDEN,
        querystring: Type.Object(
          {
            to: Type.Optional(Type.String({ maxLength: 32 })),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const to = parseNumberFilter(request.query.to);
      const items = await listSandboxInbox(ctx, sessionOf(request).accountId, {
        ...(to === undefined ? {} : "exact" in to ? { to: to.exact } : { toSuffix: to.suffix }),
        limit: request.query.limit,
      });
      return { data: await withOtpCodes(ctx, items) };
    },
  );
}
