import type { AppContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import { formatInr } from "../../src/lib/money.js";
import type { MessageGroup, MessageReportRow } from "../../src/reports/messages.js";
import type { OtpReportRow } from "../../src/reports/otp.js";
import { daysOf, indiaDayOf, type ReportPeriod } from "../../src/reports/period.js";

type Scope = { accountId: string; environment: Environment };

/**
 * The message report worked out the slow way, from the messages themselves and the ledger: a
 * message's cost is what its charges and refunds add up to.
 */
export async function naiveMessageReport(
  ctx: AppContext,
  scope: Scope,
  period: ReportPeriod,
  groupBy: MessageGroup,
): Promise<MessageReportRow[]> {
  const messages = await ctx.db
    .selectFrom("messages")
    .select(["id", "created_at", "template_id", "sender", "status", "channel", "segments"])
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .execute();
  const entries = await ctx.db
    .selectFrom("ledger_entries")
    .select(["reference", "amount", "reason"])
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .execute();
  const paid = new Map<string, number>();
  for (const entry of entries) {
    if (entry.reference === null || !/_(charge|refund)$/.test(entry.reason)) continue;
    paid.set(entry.reference, (paid.get(entry.reference) ?? 0) - Number(entry.amount));
  }
  const totals = new Map<string | null, Omit<MessageReportRow, "cost"> & { cost: number }>();
  for (const message of messages) {
    const day = indiaDayOf(message.created_at);
    if (day < period.from || day > period.to) continue;
    const key = {
      day,
      template: message.template_id,
      sender: message.sender,
      status: message.status,
      channel: message.channel,
    }[groupBy];
    const row = totals.get(key) ?? {
      key,
      messages: 0,
      segments: 0,
      delivered: 0,
      undelivered: 0,
      failed: 0,
      cancelled: 0,
      cost: 0,
    };
    row.messages += 1;
    row.segments += Number(message.segments);
    if (message.status === "delivered") row.delivered += 1;
    if (message.status === "undelivered") row.undelivered += 1;
    if (message.status === "failed") row.failed += 1;
    if (message.status === "cancelled") row.cancelled += 1;
    row.cost += paid.get(message.id) ?? 0;
    totals.set(key, row);
  }
  const rows = [...totals.values()].map((row) => ({ ...row, cost: formatInr(row.cost) }));
  if (groupBy === "day") {
    return daysOf(period).map(
      (day) =>
        rows.find((row) => row.key === day) ?? {
          key: day,
          messages: 0,
          segments: 0,
          delivered: 0,
          undelivered: 0,
          failed: 0,
          cancelled: 0,
          cost: "0.0000",
        },
    );
  }
  return rows.sort((a, b) => b.messages - a.messages || ((a.key ?? "") < (b.key ?? "") ? -1 : 1));
}

/** The OTP report from the otps table: test numbers' OTPs left out, seconds from creation to approval. */
export async function naiveOtpReport(
  ctx: AppContext,
  scope: Scope,
  period: ReportPeriod,
): Promise<OtpReportRow[]> {
  const otps = await ctx.db
    .selectFrom("otps")
    .select(["created_at", "approved_at", "status", "channel", "is_test"])
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .execute();
  return (["sms", "whatsapp", "voice"] as const).map((channel) => {
    const counted = otps.filter((otp) => {
      const day = indiaDayOf(otp.created_at);
      return otp.channel === channel && Number(otp.is_test) === 0 && day >= period.from && day <= period.to;
    });
    const seconds = counted
      .filter((otp) => otp.status === "approved" && otp.approved_at !== null)
      .map((otp) => Math.floor((Date.parse(otp.approved_at ?? "") - Date.parse(otp.created_at)) / 1000))
      .sort((a, b) => a - b);
    const middle = Math.floor(seconds.length / 2);
    return {
      channel,
      sent: counted.length,
      verified: seconds.length,
      conversion_rate: counted.length === 0 ? null : seconds.length / counted.length,
      median_seconds_to_verify:
        seconds.length === 0
          ? null
          : seconds.length % 2 === 1
            ? (seconds[middle] ?? null)
            : ((seconds[middle - 1] ?? 0) + (seconds[middle] ?? 0)) / 2,
    };
  });
}
