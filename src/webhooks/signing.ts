import { Webhook } from "standardwebhooks";

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

const SIGNER_CACHE_LIMIT = 1_000;

/**
 * Standard Webhooks headers for one attempt, signed with every secret given (space-separated
 * `v1,` signatures). Secrets arrive sealed; each is unsealed once and its signer kept.
 */
export class WebhookSigner {
  readonly #signers = new Map<string, Webhook>();

  constructor(private readonly unsealSecret: (sealed: string) => string) {}

  headers(eventId: string, timestamp: Date, body: string, sealedSecrets: string[]): Record<string, string> {
    const signatures = sealedSecrets.map((sealed) => this.#signer(sealed).sign(eventId, timestamp, body));
    return {
      "webhook-id": eventId,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": signatures.join(" "),
    };
  }

  #signer(sealed: string): Webhook {
    let signer = this.#signers.get(sealed);
    if (!signer) {
      if (this.#signers.size >= SIGNER_CACHE_LIMIT) this.#signers.clear();
      signer = new Webhook(this.unsealSecret(sealed));
      this.#signers.set(sealed, signer);
    }
    return signer;
  }
}
