import { createHmac, randomInt, timingSafeEqual } from "node:crypto";

/** A code of `length` digits, uniform over all 10^length strings (leading zeros included). */
export function generateCode(length: number): string {
  return String(randomInt(0, 10 ** length)).padStart(length, "0");
}

/** The only form of a code that is stored: an HMAC under the server secret, bound to its OTP. */
export function hashCode(secret: string, otpId: string, code: string): string {
  return createHmac("sha256", secret).update(`otp:${otpId}:${code}`).digest("hex");
}

export function codeMatches(secret: string, otpId: string, code: string, expectedHash: string): boolean {
  const actual = Buffer.from(hashCode(secret, otpId, code), "hex");
  const expected = Buffer.from(expectedHash, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
