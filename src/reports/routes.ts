import type { AppContext } from "../context.js";
import { ErrorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { MessageReportQuery, MessageReportResponse, OtpReportQuery, OtpReportResponse } from "./schemas.js";
import { messageReportFor, otpReportFor } from "./service.js";

const PERIOD =
  "Days are India time (UTC+05:30), `from` and `to` both included; by default the last 30 days, today included. At most 366 days.";

export function reportRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/v2/reports/messages",
    {
      schema: {
        operationId: "reportMessages",
        summary: "Messages counted by day, template, sender, status or channel",
        description: `This environment's messages created in the period, grouped by \`group_by\` (default \`day\`: every day, oldest first, zeros included; other groupings most messages first). Statuses are as they stand now; \`cost\` is what was charged net of refunds. ${PERIOD}`,
        tags: ["Reports"],
        security: [{ apiKey: [] }],
        querystring: MessageReportQuery,
        response: { 200: MessageReportResponse, 400: ErrorResponse },
      },
    },
    async (request) => messageReportFor(ctx, principalOf(request), request.query),
  );

  app.get(
    "/v2/reports/otp",
    {
      schema: {
        operationId: "reportOtp",
        summary: "OTP conversion by channel",
        description: `This environment's OTPs created in the period, by the channel each was first sent on (a fallback counts under the first): sent, verified, their ratio and the median seconds to verify. ${PERIOD}`,
        tags: ["Reports"],
        security: [{ apiKey: [] }],
        querystring: OtpReportQuery,
        response: { 200: OtpReportResponse, 400: ErrorResponse },
      },
    },
    async (request) => otpReportFor(ctx, principalOf(request), request.query),
  );
}
