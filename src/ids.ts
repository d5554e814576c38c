import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 248 = 4 × 62: bytes at or above it are dropped so every character is equally likely. */
const UNBIASED_LIMIT = 248;
/** CSPRNG bytes are drawn in blocks: one call per id cost ~5% of the server's CPU under load. */
const POOL_SIZE = 4096;

let pool = Buffer.alloc(0);
let offset = 0;

function randomByte(): number {
  if (offset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++] as number;
}

/** `length` base62 characters from the CSPRNG, uniformly distributed. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < UNBIASED_LIMIT) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix =
  | "acct"
  | "key"
  | "led"
  | "msg"
  | "otp"
  | "tpl"
  | "whk"
  | "evt"
  | "sbx"
  | "ses"
  // a webhook delivery attempt
  | "wat";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}
