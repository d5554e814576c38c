import { hash } from "node:crypto";
import type { Environment } from "../db/schema.js";
import { randomBase62 } from "../lib/ids.js";

/** 43 base62 characters ≈ 256 bits: far above the 128 bits that make a plain SHA-256 safe at rest. */
const SECRET_RANDOM_LENGTH = 43;
export const DISPLAY_PREFIX_LENGTH = 12;
/** Shown after the prefix to tell keys apart; never more of the secret. */
export const DISPLAY_SUFFIX_LENGTH = 4;
const SECRET_PATTERN = /^dk_(live|sandbox)_[0-9A-Za-z]{32,128}$/;

export function generateSecret(environment: Environment): string {
  return `dk_${environment}_${randomBase62(SECRET_RANDOM_LENGTH)}`;
}

export function hashSecret(secret: string): string {
  // One-shot: no Hash object per request.
  return hash("sha256", secret, "hex");
}

/** Whether a token has the shape of a key at all; malformed ones are refused without a lookup. */
export function isWellFormedSecret(token: string): boolean {
  return SECRET_PATTERN.test(token);
}
