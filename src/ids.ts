import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 248 = 4 × 62: bytes at or above it are dropped so every character is equally likely. */
const UNBIASED_LIMIT = 248;

/** `length` base62 characters from the CSPRNG, uniformly distributed. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte < UNBIASED_LIMIT) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = "acct" | "key" | "led" | "msg" | "otp" | "tpl" | "whk" | "evt" | "sbx";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}
