import { createHmac, createSecretKey, type KeyObject } from "node:crypto";

/**
 * The body of a delivery: the event as `GET /v2/events` shows it. `data` is stored as the JSON
 * text it is sent as, so it is spliced in rather than parsed and written again; the body is the
 * same on every attempt.
 */
export function eventBody(event: {
  id: string;
  type: string;
  created_at: string;
  environment: string;
  data: string;
}): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"created_at":${JSON.stringify(
    event.created_at,
  )},"environment":${JSON.stringify(event.environment)},"data":${event.data}}`;
}

const KEY_CACHE_LIMIT = 1_000;
/** How a Standard Webhooks secret starts; the rest is the key, in base64. */
export const SECRET_PREFIX = "whsec_";

/**
 * Standard Webhooks headers for one attempt, signed with every secret given (space-separated
 * `v1,` signatures): each signature is the base64 HMAC-SHA256, under the secret's key, of
 * `{webhook-id}.{webhook-timestamp}.{body}`. Node's own HMAC: the `standardwebhooks` package
 * signs in JavaScript, which cost a twentieth of a busy dispatcher's CPU. Secrets arrive
 * sealed; each is unsealed once and its key kept.
 */
export class WebhookSigner {
  readonly #keys = new Map<string, KeyObject>();

  constructor(private readonly unsealSecret: (sealed: string) => string) {}

  headers(eventId: string, timestamp: Date, body: string, sealedSecrets: string[]): Record<string, string> {
    const seconds = String(Math.floor(timestamp.getTime() / 1000));
    const signed = `${eventId}.${seconds}.${body}`;
    const signatures = sealedSecrets.map(
      (sealed) => `v1,${createHmac("sha256", this.#key(sealed)).update(signed).digest("base64")}`,
    );
    return {
      "webhook-id": eventId,
      "webhook-timestamp": seconds,
      "webhook-signature": signatures.join(" "),
    };
  }

  #key(sealed: string): KeyObject {
    let key = this.#keys.get(sealed);
    if (!key) {
      if (this.#keys.size >= KEY_CACHE_LIMIT) this.#keys.clear();
      const secret = this.unsealSecret(sealed);
      const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
      key = createSecretKey(Buffer.from(encoded, "base64"));
      this.#keys.set(sealed, key);
    }
    return key;
  }
}
