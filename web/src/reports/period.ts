/** The periods the Overview's charts offer, in days ending today (India time), and its default. */
export const REPORT_PERIODS = [7, 30, 90] as const;
export type ReportDays = (typeof REPORT_PERIODS)[number];
export const DEFAULT_REPORT_DAYS: ReportDays = 30;

const INDIA_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The `period` parameter of the address, if it is one the charts offer. */
export function reportDaysOf(value: string | null): ReportDays {
  return REPORT_PERIODS.find((days) => String(days) === value) ?? DEFAULT_REPORT_DAYS;
}

/**
 * The last `days` days of India time, today included, as the reports take them: `from` and `to`,
 * YYYY-MM-DD. The server's days are India's whatever the browser's zone.
 */
export function reportPeriod(days: ReportDays, now = Date.now()): { from: string; to: string } {
  const today = now + INDIA_OFFSET_MS;
  return {
    from: new Date(today - (days - 1) * DAY_MS).toISOString().slice(0, 10),
    to: new Date(today).toISOString().slice(0, 10),
  };
}

/** A report day (YYYY-MM-DD) as the charts' x value: seconds at 00:00 UTC of that date. */
export function dayToSeconds(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}

const shortDay = new Intl.DateTimeFormat("en-IN", { day: "numeric", month: "short", timeZone: "UTC" });

/** `"2026-11-29"` → `"29 Nov"`. */
export function formatReportDay(day: string | number): string {
  return shortDay.format(typeof day === "number" ? day * 1000 : Date.parse(`${day}T00:00:00Z`));
}
