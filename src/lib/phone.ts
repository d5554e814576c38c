import { isValidPhoneNumber } from "libphonenumber-js";
import { ApiError } from "../errors.js";

const E164 = /^\+[1-9]\d{6,14}$/;

export function isE164(number: string): boolean {
  return E164.test(number);
}
const INDIA_MOBILE = /^\+91[6-9]\d{9}$/;

/**
 * Checks a destination (docs/api-reference.md#conventions): E.164, and an Indian mobile for `+91`. A valid number of
 * another country is a well-formed request that Dakiya does not serve yet.
 */
export function requireIndianMobile(to: string, param = "to"): void {
  if (!E164.test(to)) {
    throw new ApiError(
      "invalid_request",
      `${param} must be an E.164 number with a leading +, like +919876543210.`,
      param,
    );
  }
  if (to.startsWith("+91")) {
    if (!INDIA_MOBILE.test(to)) {
      throw new ApiError(
        "invalid_request",
        `${param} is not a valid Indian mobile number (+91 and 10 digits from 6–9).`,
        param,
      );
    }
    return;
  }
  if (!isValidPhoneNumber(to))
    throw new ApiError("invalid_request", `${param} is not a valid phone number.`, param);
  throw new ApiError("unsupported_destination", "Only Indian mobile numbers (+91) can be reached.", param);
}
