import { ApiError } from "../errors.js";
import type { Clock } from "../lib/clock.js";
import { dayNumber, dayText, indiaDayNumber } from "../lib/india-days.js";

/** A report covers at most a leap year of days. */
export const MAX_REPORT_DAYS = 366;
/** The days a report covers when `from` is not given: the last 30, today included. */
export const DEFAULT_REPORT_DAYS = 30;

/** A report's days, India time, both ends included, as YYYY-MM-DD. */
export interface ReportPeriod {
  from: string;
  to: string;
}

/**
 * The period a report's `from` and `to` ask for: `to` defaults to today (India time), `from` to
 * 29 days before `to`. A date that is not a real YYYY-MM-DD day, `from` after `to` or a span of
 * over 366 days is 400 `invalid_request` naming its parameter.
 */
export function parseReportPeriod(
  query: { from?: string | undefined; to?: string | undefined },
  clock: Clock,
): ReportPeriod {
  const to = query.to === undefined ? indiaToday(clock) : dayNumber(query.to, "to");
  const from = query.from === undefined ? to - (DEFAULT_REPORT_DAYS - 1) : dayNumber(query.from, "from");
  if (from > to) {
    throw new ApiError("invalid_request", `from (${dayText(from)}) is after to (${dayText(to)}).`, "from");
  }
  if (to - from + 1 > MAX_REPORT_DAYS) {
    throw new ApiError(
      "invalid_request",
      `A report covers at most ${MAX_REPORT_DAYS} days; from ${dayText(from)} to ${dayText(to)} is ${to - from + 1}.`,
      "from",
    );
  }
  return { from: dayText(from), to: dayText(to) };
}

/** Every day of a period, oldest first. */
export function daysOf(period: ReportPeriod): string[] {
  const days: string[] = [];
  for (let day = dayNumber(period.from, "from"); day <= dayNumber(period.to, "to"); day++) {
    days.push(dayText(day));
  }
  return days;
}

/** The India-time day of an instant, as YYYY-MM-DD. */
export function indiaDayOf(at: string | Date): string {
  return dayText(indiaDayNumber(new Date(at).getTime()));
}

function indiaToday(clock: Clock): number {
  return indiaDayNumber(clock.now().getTime());
}
