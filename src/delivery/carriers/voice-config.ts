import { ConfigError } from "../../errors.js";

export interface VoiceConfig {
  /** Base of the provider's REST API, without a trailing slash (`https://api.twilio.com`). */
  apiUrl: string;
  accountSid: string;
  authToken: string;
  /** The caller id: a number on the provider's account, in E.164 with the `+`. */
  from: string;
  /**
   * Where the provider reports how each call ended (`${PUBLIC_URL}/webhooks/voice/status`), and
   * the exact URL its signatures are computed over. Unset: no reports, calls stay `submitted`.
   */
  statusCallbackUrl: string | undefined;
}

export const VOICE_STATUS_PATH = "/webhooks/voice/status";
const DEFAULT_API_URL = "https://api.twilio.com";
const E164 = /^\+[1-9][0-9]{6,14}$/;
const ACCOUNT_SID = /^[A-Za-z0-9]+$/;

/**
 * Reads the VOICE_* variables (and PUBLIC_URL, the server's public base address); `undefined`
 * when live voice is not configured. Setting only some of VOICE_ACCOUNT_SID, VOICE_AUTH_TOKEN
 * and VOICE_FROM is a mistake, reported as one.
 */
export function parseVoiceConfig(env: NodeJS.ProcessEnv): VoiceConfig | undefined {
  const accountSid = env.VOICE_ACCOUNT_SID || undefined;
  const authToken = env.VOICE_AUTH_TOKEN || undefined;
  const from = env.VOICE_FROM || undefined;
  if (accountSid === undefined && authToken === undefined && from === undefined) return undefined;
  if (accountSid === undefined || authToken === undefined || from === undefined) {
    throw new ConfigError("VOICE_ACCOUNT_SID, VOICE_AUTH_TOKEN and VOICE_FROM must be set together");
  }
  if (!ACCOUNT_SID.test(accountSid)) {
    throw new ConfigError("VOICE_ACCOUNT_SID must be letters and digits only (AC followed by 32 hex digits)");
  }
  if (!E164.test(from)) {
    throw new ConfigError(`VOICE_FROM must be a number in E.164 with a leading +, got "${from}"`);
  }
  const apiUrl = httpBase("VOICE_API_URL", env.VOICE_API_URL || DEFAULT_API_URL);
  const publicUrl = env.PUBLIC_URL ? httpBase("PUBLIC_URL", env.PUBLIC_URL) : undefined;
  return {
    apiUrl,
    accountSid,
    authToken,
    from,
    statusCallbackUrl: publicUrl === undefined ? undefined : `${publicUrl}${VOICE_STATUS_PATH}`,
  };
}

/** An http(s) base address without credentials, query or fragment, and without a trailing slash. */
function httpBase(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError(`${name} must not carry credentials, a query or a fragment`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}
