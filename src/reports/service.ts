import type { AppContext } from "../context.js";
import type { Environment } from "../db/schema.js";
import { type MessageGroup, messageReport } from "./messages.js";
import { otpReport } from "./otp.js";
import { parseReportPeriod } from "./period.js";

type Scope = { accountId: string; environment: Environment };
type PeriodQuery = { from?: string | undefined; to?: string | undefined };

/** GET /v2/reports/messages and the dashboard's: the period checked, then the report. */
export async function messageReportFor(
  ctx: AppContext,
  scope: Scope,
  query: PeriodQuery & { group_by?: MessageGroup | undefined },
) {
  const period = parseReportPeriod(query, ctx.clock);
  const groupBy = query.group_by ?? "day";
  return { ...period, group_by: groupBy, data: await messageReport(ctx.db, scope, period, groupBy) };
}

/** GET /v2/reports/otp and the dashboard's. */
export async function otpReportFor(ctx: AppContext, scope: Scope, query: PeriodQuery) {
  const period = parseReportPeriod(query, ctx.clock);
  return { ...period, data: await otpReport(ctx.db, scope, period) };
}
