import { ConfigError } from "../../errors.js";

export const DEFAULT_WHATSAPP_API_URL = "https://graph.facebook.com/v21.0";

export interface WhatsAppConfig {
  /** The Graph API base, version included, without a trailing slash. */
  apiUrl: string;
  /** System-user access token, sent as `Authorization: Bearer`. Never logged. */
  token: string;
  /** The business phone number's id (digits): messages go to `${apiUrl}/${phoneNumberId}/messages`. */
  phoneNumberId: string;
  /** Meta app secret: status webhooks are signed with it (`X-Hub-Signature-256`); unset → no POST webhook. */
  appSecret: string | undefined;
  /** The token of the webhook subscription handshake; unset → no GET handshake. */
  verifyToken: string | undefined;
}

/**
 * Reads the WHATSAPP_* variables; `undefined` when neither WHATSAPP_TOKEN nor
 * WHATSAPP_PHONE_NUMBER_ID is set (live WhatsApp not configured). Only one of the two is a
 * mistake worth stopping for, not a silently disabled channel.
 */
export function parseWhatsAppConfig(env: NodeJS.ProcessEnv): WhatsAppConfig | undefined {
  const token = env.WHATSAPP_TOKEN || undefined;
  const phoneNumberId = env.WHATSAPP_PHONE_NUMBER_ID || undefined;
  if (token === undefined && phoneNumberId === undefined) return undefined;
  if (token === undefined || phoneNumberId === undefined) {
    throw new ConfigError("WHATSAPP_TOKEN and WHATSAPP_PHONE_NUMBER_ID must be set together");
  }
  if (!/^\d{1,32}$/.test(phoneNumberId)) {
    throw new ConfigError(
      `WHATSAPP_PHONE_NUMBER_ID must be the numeric phone number id, got "${phoneNumberId}"`,
    );
  }
  return {
    apiUrl: parseApiUrl(env.WHATSAPP_API_URL || DEFAULT_WHATSAPP_API_URL),
    token,
    phoneNumberId,
    appSecret: env.WHATSAPP_APP_SECRET || undefined,
    verifyToken: env.WHATSAPP_VERIFY_TOKEN || undefined,
  };
}

function parseApiUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`WHATSAPP_API_URL must be an http(s) URL like ${DEFAULT_WHATSAPP_API_URL}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError("WHATSAPP_API_URL must start with https:// or http://");
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError("WHATSAPP_API_URL must not carry a query, fragment or credentials");
  }
  return url.toString().replace(/\/+$/, "");
}
