import { sql } from "kysely";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { formatInr } from "../lib/money.js";
import { daysOf, type ReportPeriod } from "./period.js";

export const MESSAGE_GROUPS = ["day", "template", "sender", "status", "channel"] as const;
export type MessageGroup = (typeof MESSAGE_GROUPS)[number];

/** The column of the daily totals each grouping reads. */
const GROUP_COLUMNS: Record<MessageGroup, string> = {
  day: "day",
  template: "template_id",
  sender: "sender",
  status: "status",
  channel: "channel",
};

export interface MessageReportRow {
  /** The day (YYYY-MM-DD), template id, sender, status or channel; null: messages without a template or sender. */
  key: string | null;
  messages: number;
  segments: number;
  delivered: number;
  undelivered: number;
  failed: number;
  cancelled: number;
  /** INR charged for these messages net of refunds, as `"12.5000"`. */
  cost: string;
}

interface Totals {
  key: string;
  messages: number | string;
  segments: number | string;
  delivered: number | string;
  undelivered: number | string;
  failed: number | string;
  cancelled: number | string;
  cost: number | string;
}

/**
 * The messages of an environment created on the period's days (India time), grouped: the daily
 * totals plus the deltas not yet folded into them, read in one statement so a fold running
 * meanwhile is seen whole or not at all. By day every day comes, oldest first, zeros included;
 * any other grouping lists the keys with messages, most messages first.
 */
export async function messageReport(
  db: DbOrTrx,
  scope: { accountId: string; environment: Environment },
  period: ReportPeriod,
  groupBy: MessageGroup,
): Promise<MessageReportRow[]> {
  const key = sql.ref(GROUP_COLUMNS[groupBy]);
  const counted = (table: "message_report_days" | "message_report_deltas") => sql`
    select ${key} as key, status, messages, segments, cost from ${sql.table(table)}
    where account_id = ${scope.accountId} and environment = ${scope.environment}
      and day >= ${period.from} and day <= ${period.to}`;
  const { rows } = await sql<Totals>`
    select key, sum(messages) as messages, sum(segments) as segments,
      sum(case when status = 'delivered' then messages else 0 end) as delivered,
      sum(case when status = 'undelivered' then messages else 0 end) as undelivered,
      sum(case when status = 'failed' then messages else 0 end) as failed,
      sum(case when status = 'cancelled' then messages else 0 end) as cancelled,
      sum(cost) as cost
    from (${counted("message_report_days")} union all ${counted("message_report_deltas")}) as counted
    group by key
    having sum(messages) <> 0 or sum(segments) <> 0 or sum(cost) <> 0`.execute(db);
  const byKey = new Map(rows.map((row) => [row.key, toRow(row)]));
  if (groupBy === "day") return daysOf(period).map((day) => byKey.get(day) ?? emptyRow(day));
  return [...byKey.values()].sort(
    (a, b) => b.messages - a.messages || ((a.key ?? "") < (b.key ?? "") ? -1 : 1),
  );
}

function toRow(totals: Totals): MessageReportRow {
  return {
    key: totals.key === "" ? null : totals.key,
    messages: Number(totals.messages),
    segments: Number(totals.segments),
    delivered: Number(totals.delivered),
    undelivered: Number(totals.undelivered),
    failed: Number(totals.failed),
    cancelled: Number(totals.cancelled),
    cost: formatInr(Number(totals.cost)),
  };
}

function emptyRow(key: string): MessageReportRow {
  return {
    key,
    messages: 0,
    segments: 0,
    delivered: 0,
    undelivered: 0,
    failed: 0,
    cancelled: 0,
    cost: formatInr(0),
  };
}
