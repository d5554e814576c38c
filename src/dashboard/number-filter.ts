import { ApiError } from "../errors.js";
import { isE164 } from "../lib/phone.js";

/** What the dashboard's number search box may hold, read as one number or the end of numbers. */
export type NumberFilter = { exact: string } | { suffix: string };

/** The fewest digits that search by the end of a number: fewer would match half the list. */
export const MIN_SUFFIX_DIGITS = 4;
const MAX_DIGITS = 15;
/** Spaces, dashes, dots and brackets people type or paste inside numbers. */
const SEPARATORS = /[\s().-]/g;
/** An Indian mobile's 10 digits, after an optional trunk `0` or country code `91`. */
const NATIONAL_MOBILE = /^(?:0|91)?([6-9]\d{9})$/;

/**
 * Reads the number filter of the dashboard's lists: a full E.164 number (`+919876543210`); an
 * Indian mobile written the national way, with `+91` assumed (`9876543210`, `09876543210`,
 * `919876543210`, spaces and dashes allowed); or the last 4 or more digits of a number (`3210`).
 * (An unencoded `+` of a query string arrives as a space: `919876543210` then still finds it.)
 */
export function parseNumberFilter(value: string | undefined, param = "to"): NumberFilter | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const digits = text.replace(/^\+/, "").replace(SEPARATORS, "");
  if (!/^\d+$/.test(digits)) throw refused(param);
  if (text.startsWith("+")) {
    if (!isE164(`+${digits}`)) throw refused(param);
    return { exact: `+${digits}` };
  }
  const national = NATIONAL_MOBILE.exec(digits)?.[1];
  if (national !== undefined) return { exact: `+91${national}` };
  if (digits.length < MIN_SUFFIX_DIGITS || digits.length > MAX_DIGITS) throw refused(param);
  return { suffix: digits };
}

function refused(param: string): ApiError {
  return new ApiError(
    "invalid_request",
    `${param} must be a number like +919876543210 or 9876543210 (+91 assumed), or its last ${MIN_SUFFIX_DIGITS} digits or more.`,
    param,
  );
}
