import { ApiError } from "../errors.js";

/** India has kept UTC+05:30 all year since 1945: no daylight saving to account for. */
const INDIA_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

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
  const match = DATE_PATTERN.exec(date);
  const invalid = () =>
    new ApiError("invalid_request", `${param} must be a date as YYYY-MM-DD (India time).`, param);
  if (!match) throw invalid();
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const utcMidnight = Date.UTC(year, month - 1, day);
  const check = new Date(utcMidnight);
  // Date.UTC rolls 2026-02-30 over to March; a real day comes back as given.
  if (
    year < 1970 ||
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day
  ) {
    throw invalid();
  }
  return utcMidnight - INDIA_OFFSET_MS;
}
