import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What the receiver answers a request with: a status, or `"hang"` to never answer. */
export type Answer = number | "hang";

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** The answer to the next requests; `answer(request, index)` decides each one. */
  answer: (request: ReceivedWebhook, index: number) => Answer;
  close(): Promise<void>;
}

/** A customer's webhook receiver: a real HTTP server on a free loopback port that records every request. */
export async function startReceiver(answer: WebhookReceiver["answer"] = () => 200): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: "",
    port: 0,
    received: [],
    answer,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const received: ReceivedWebhook = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      };
      receiver.received.push(received);
      const outcome = receiver.answer(received, receiver.received.length - 1);
      if (outcome === "hang") return;
      response.writeHead(outcome, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}

/**
 * Verifies a delivery as a customer would, with the `standardwebhooks` library and the endpoint's
 * secret; returns the parsed event, or throws `WebhookVerificationError`.
 */
export function verify(secret: string, delivery: ReceivedWebhook): WebhookEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(delivery.headers)) {
    if (typeof value === "string") headers[name] = value;
  }
  return new Webhook(secret).verify(delivery.body, headers) as WebhookEvent;
}

export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  environment: string;
  data: Record<string, unknown>;
}

export function webhookIds(received: ReceivedWebhook[]): string[] {
  return received.map((delivery) => String(delivery.headers["webhook-id"]));
}

/** The `index`-th request a receiver got; fails the test if there is none. */
export function nth(received: ReceivedWebhook[], index: number): ReceivedWebhook {
  const request = received[index];
  if (!request) throw new Error(`the receiver got ${received.length} requests, not ${index + 1}`);
  return request;
}
