import { ApiError } from "../errors.js";

/*
 * Calendar days of India time, as the dashboard's date filters and the reports count them. India
 * has kept UTC+05:30 all year since 1945: there is no daylight saving to account for.
 */

export const INDIA_OFFSET_MS = 330 * 60_000;
export const DAY_MS = 86_400_000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a real YYYY-MM-DD date; anything else is 400 `invalid_request` naming `param`. */
export function dayNumber(date: string, param: string): number {
  const match = DATE_PATTERN.exec(date);
  const invalid = () =>
    new ApiError(
      "invalid_request",
      `${param} must be a date as YYYY-MM-DD (India time), not "${date}".`,
      param,
    );
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
  return utcMidnight / DAY_MS;
}

/** A day number (`dayNumber`) as YYYY-MM-DD. */
export function dayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The day number of the India-time day an instant falls on. */
export function indiaDayNumber(at: number): number {
  return Math.floor((at + INDIA_OFFSET_MS) / DAY_MS);
}

/** The UTC instant, in milliseconds, at which an India-time day (a day number) begins. */
export function indiaDayStart(day: number): number {
  return day * DAY_MS - INDIA_OFFSET_MS;
}
