import { createCipheriv, createDecipheriv, createHash, hkdfSync } from "node:crypto";
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

/**
 * AES-256-GCM under a key derived by HKDF-SHA256 from the server secret for one `purpose` alone,
 * with `boundTo` (the owner's id) authenticated beside it: a value sealed for one purpose or one
 * owner does not open for another. For secrets kept long, such as a member's TOTP secret.
 */
export function sealFor(secret: string, purpose: string, boundTo: string, plaintext: string): string {
  const iv = pooledRandomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", purposeKey(secret, purpose), iv);
  cipher.setAAD(Buffer.from(boundTo, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
}

/** Opens what `sealFor` sealed with the same secret, purpose and owner; throws otherwise. */
export function unsealFor(secret: string, purpose: string, boundTo: string, sealed: string): string {
  const raw = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", purposeKey(secret, purpose), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(boundTo, "utf8"));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}

const purposeKeys = new Map<string, Buffer>();

function purposeKey(secret: string, purpose: string): Buffer {
  const id = `${purpose}\u0000${secret}`;
  let key = purposeKeys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "dakiya-sealing", `dakiya:${purpose}`, 32));
    if (purposeKeys.size > 16) purposeKeys.clear();
    purposeKeys.set(id, key);
  }
  return key;
}
