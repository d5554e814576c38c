/** The counts of a message report's row (MessageReportRow) that the status charts read. */
export interface StatusCounts {
  messages: number;
  delivered: number;
  undelivered: number;
  failed: number;
  cancelled: number;
}

/** Paul Tol's "bright" scheme: told apart with the common colour-vision deficiencies too. */
export const CHART_COLOURS = {
  delivered: "#228833",
  pending: "#bbbbbb",
  undelivered: "#ccbb44",
  failed: "#ee6677",
  cancelled: "#66ccee",
  rate: "#4477aa",
  spend: "#aa3377",
  otp: "#4477aa",
} as const;

/** The statuses a day's messages are split into, bottom of the stack first. */
export const STATUS_PARTS = ["delivered", "pending", "undelivered", "failed", "cancelled"] as const;
export type StatusPart = (typeof STATUS_PARTS)[number];

export const STATUS_PART_LABELS: Record<StatusPart, string> = {
  delivered: "Delivered",
  pending: "Not yet final",
  undelivered: "Undelivered",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** A day's messages by status; `pending` are those with no final status yet (queued, sent, scheduled…). */
export function statusParts(row: StatusCounts): Record<StatusPart, number> {
  return {
    delivered: row.delivered,
    pending: Math.max(0, row.messages - row.delivered - row.undelivered - row.failed - row.cancelled),
    undelivered: row.undelivered,
    failed: row.failed,
    cancelled: row.cancelled,
  };
}

/** Delivered of the messages sent (cancelled ones never were), 0 to 1; null for a day without any. */
export function deliveryRate(row: { messages: number; delivered: number; cancelled: number }): number | null {
  const sent = row.messages - row.cancelled;
  return sent <= 0 ? null : row.delivered / sent;
}

/** The report's INR string as a number of rupees, for drawing only (sums use addInr). */
export function rupees(amount: string): number {
  return Number(amount);
}

/** `0.9567` → `"95.7%"`; whole numbers without a decimal. */
export function formatPercent(rate: number): string {
  const percent = Math.round(rate * 1000) / 10;
  return `${percent}%`;
}

/** What the period's rows add up to, for the legends and summaries. */
export function totals(rows: readonly StatusCounts[]): Record<StatusPart, number> & { messages: number } {
  const sum = { messages: 0, delivered: 0, pending: 0, undelivered: 0, failed: 0, cancelled: 0 };
  for (const row of rows) {
    sum.messages += row.messages;
    const parts = statusParts(row);
    for (const part of STATUS_PARTS) sum[part] += parts[part];
  }
  return sum;
}
