/**
 * Recovery codes: ten one-time codes for when the authenticator app is lost. 16 characters of
 * Crockford's Base32 (80 random bits), so a plain SHA-256 at rest is safe; shown once, as
 * `xxxx-xxxx-xxxx-xxxx`, and accepted in any case, with or without the dashes.
 */
import { randomInt } from "node:crypto";
import { hashSecret } from "../keys/secrets.js";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const LENGTH = 16;

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
}

function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < LENGTH; i += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  return code.match(/.{4}/g)?.join("-") ?? code;
}

/** The stored hash of a code as typed: case, spaces and dashes do not matter, nor O for 0 or I/L for 1. */
export function hashRecoveryCode(input: string): string {
  const code = input.toLowerCase().replace(/[\s-]/g, "").replace(/o/g, "0").replace(/[il]/g, "1");
  return hashSecret(code);
}
