import { createCipheriv, createDecipheriv, createHash } from "node:crypto";
import { pooledRandomBytes } from "./ids.js";

/**
 * AES-256-GCM under a key derived from the server secret: for what must be delivered later but
 * not kept in clear (a code that may be resent, an OTP message's text while it is queued).
 */
export function seal(secret: string, plaintext: string): string {
  const iv = pooledRandomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(secret), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
}

export function unseal(secret: string, sealed: string): string {
  const raw = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", sealKey(secret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}

/** `unseal`, or `undefined` when `sealed` was sealed under another secret (DAKIYA_SECRET changed). */
export function tryUnseal(secret: string, sealed: string): string | undefined {
  try {
    return unseal(secret, sealed);
  } catch {
    return undefined;
  }
}

/** The last secret's sealing key: a process has one secret, and sends seal and unseal constantly. */
let lastSealKey: { secret: string; key: Buffer } | undefined;

function sealKey(secret: string): Buffer {
  if (lastSealKey?.secret !== secret) {
    lastSealKey = { secret, key: createHash("sha256").update(`dakiya-seal:${secret}`).digest() };
  }
  return lastSealKey.key;
}
