import { sealFor, unsealFor } from "../lib/sealing.js";

/** TOTP secrets have their own key (HKDF from the server secret) and are bound to their member. */
const PURPOSE = "two-factor-totp-secret";

export function sealTotpSecret(serverSecret: string, memberId: string, totpSecret: string): string {
  return sealFor(serverSecret, PURPOSE, memberId, totpSecret);
}

export function unsealTotpSecret(serverSecret: string, memberId: string, sealed: string): string {
  return unsealFor(serverSecret, PURPOSE, memberId, sealed);
}
