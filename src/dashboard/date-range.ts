import { ApiError } from "../errors.js";
import { DAY_MS, dayNumber, indiaDayStart } from "../lib/india-days.js";

/** A span of stored times (UTC ISO strings, which compare as text): `[after, before)`. */
export interface TimeRange {
  after?: string | undefined;
  before?: string | undefined;
}

/**
 * The dashboard's date filters: whole days of India time, both ends included. `from` starts at
 * 00:00 IST of its day, `to` ends at 00:00 IST of the day after. A date that is not a real
 * `YYYY-MM-DD` day is 400 `invalid_request` naming its parameter; so is `to` before `from`.
 */
export function parseIndiaDateRange(
  from: string | undefined,
  to: string | undefined,
  params: { from: string; to: string },
): TimeRange {
  const start = from === undefined || from === "" ? undefined : indiaMidnight(from, params.from);
  const end = to === undefined || to === "" ? undefined : indiaMidnight(to, params.to);
  if (start !== undefined && end !== undefined && start > end) {
    throw new ApiError(
      "invalid_request",
      `${params.to} (${to}) is before ${params.from} (${from}).`,
      params.to,
    );
  }
  return {
    after: start === undefined ? undefined : new Date(start).toISOString(),
    before: end === undefined ? undefined : new Date(end + DAY_MS).toISOString(),
  };
}

/** The UTC instant of 00:00 IST on `date` (YYYY-MM-DD), in milliseconds. */
function indiaMidnight(date: string, param: string): number {
  return indiaDayStart(dayNumber(date, param));
}
