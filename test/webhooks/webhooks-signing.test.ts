import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../../src/webhooks/endpoints.js";
import { WebhookSigner } from "../../src/webhooks/signing.js";

/** Secrets are "sealed" here as themselves: what unsealing does is not under test. */
const signerOf = () => new WebhookSigner((sealed) => sealed);

const delivery = fc.record({
  eventId: fc.string({ minLength: 1, maxLength: 40 }).filter((id) => !/[\s,]/.test(id)),
  // Whole seconds within the verifier's tolerance of now.
  secondsAgo: fc.integer({ min: 0, max: 240 }),
  body: fc.string({ unit: "grapheme", maxLength: 500 }),
});

describe("webhook signatures", () => {
  it("are what the Standard Webhooks library accepts, for any id, time and body, with one secret or two", () => {
    const signer = signerOf();
    const secrets = [generateWebhookSecret(), generateWebhookSecret()];
    fc.assert(
      fc.property(delivery, fc.boolean(), ({ eventId, secondsAgo, body }, both) => {
        const timestamp = new Date((Math.floor(Date.now() / 1000) - secondsAgo) * 1000);
        const signing = both ? secrets : secrets.slice(0, 1);
        const headers = signer.headers(eventId, timestamp, body, signing);
        expect(headers["webhook-id"]).toBe(eventId);
        expect(headers["webhook-timestamp"]).toBe(String(timestamp.getTime() / 1000));
        expect(headers["webhook-signature"]?.split(" ")).toHaveLength(signing.length);
        // A receiver holding either secret accepts the delivery.
        for (const secret of signing) {
          expect(new Webhook(secret).verify(body, headers, { jsonParse: false })).toBeUndefined();
        }
      }),
      { numRuns: 300 },
    );
  });

  it("fail for another body, another id, another time or another secret", () => {
    const signer = signerOf();
    const secret = generateWebhookSecret();
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const headers = signer.headers("evt_1", now, '{"a":1}', [secret]);
    const verify = (body: string, changed: Record<string, string>, key = secret) =>
      new Webhook(key).verify(body, { ...headers, ...changed }, { jsonParse: false });
    expect(verify('{"a":1}', {})).toBeUndefined();
    expect(() => verify('{"a":2}', {})).toThrow("No matching signature");
    expect(() => verify('{"a":1}', { "webhook-id": "evt_2" })).toThrow("No matching signature");
    expect(() => verify('{"a":1}', { "webhook-timestamp": String(now.getTime() / 1000 - 1) })).toThrow(
      "No matching signature",
    );
    expect(() => verify('{"a":1}', {}, generateWebhookSecret())).toThrow("No matching signature");
  });

  it("unseal each secret once, however many deliveries it signs", () => {
    let unsealed = 0;
    const signer = new WebhookSigner((sealed) => {
      unsealed += 1;
      return sealed;
    });
    const secret = generateWebhookSecret();
    for (let i = 0; i < 5; i++) signer.headers(`evt_${i}`, new Date(), "{}", [secret]);
    expect(unsealed).toBe(1);
  });
});
