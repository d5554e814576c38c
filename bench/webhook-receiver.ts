// The customer's webhook receiver of `npm run bench`, a child process of its own so that the load
// generator's event loop does not delay its answers. It answers every POST with 200 at once and
// records, per request, the `webhook-id`, the event's type, environment, `created_at`, the
// status timestamp of a message (`data.<status>_at`) and when it answered. Plain HTTP on
// HTTP_PORT; HTTPS on HTTPS_PORT too when TLS_KEY_FILE and TLS_CERT_FILE are set (live endpoints
// must be https://). The bench reads the records with GET /records?from=N (on HTTP_PORT).

import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";

/** [webhook-id, type, environment, created_at ms, status timestamp ms or null, answered ms] */
export type ReceivedRecord = [string, string, string, number, number | null, number];

const host = process.env.HOST ?? "127.0.0.1";
const records: ReceivedRecord[] = [];
let unreadable = 0;

function handle(request: IncomingMessage, response: ServerResponse): void {
  if (request.method === "GET" && request.url?.startsWith("/records")) {
    const from = Number(new URL(request.url, "http://receiver").searchParams.get("from") ?? 0);
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ total: records.length, unreadable, records: records.slice(from) }));
    return;
  }
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const answeredAt = Date.now();
    response.writeHead(200, { "content-type": "text/plain" }).end("ok");
    const record = toRecord(String(request.headers["webhook-id"] ?? ""), Buffer.concat(chunks), answeredAt);
    if (record) records.push(record);
    else unreadable += 1;
  });
}

function toRecord(webhookId: string, body: Buffer, answeredAt: number): ReceivedRecord | undefined {
  try {
    const event = JSON.parse(body.toString("utf8")) as {
      type: string;
      environment: string;
      created_at: string;
      data: Record<string, unknown>;
    };
    // A message carries the time of each status it reached: the change this event reports.
    const status = event.data.status;
    const statusAt = typeof status === "string" ? event.data[`${status}_at`] : undefined;
    return [
      webhookId,
      event.type,
      event.environment,
      Date.parse(event.created_at),
      typeof statusAt === "string" ? Date.parse(statusAt) : null,
      answeredAt,
    ];
  } catch {
    return undefined;
  }
}

const servers = [createHttpServer(handle).listen(Number(process.env.HTTP_PORT ?? 0), host)];
const { HTTPS_PORT, TLS_KEY_FILE, TLS_CERT_FILE } = process.env;
if (HTTPS_PORT && TLS_KEY_FILE && TLS_CERT_FILE) {
  const tls = { key: readFileSync(TLS_KEY_FILE), cert: readFileSync(TLS_CERT_FILE) };
  servers.push(createHttpsServer(tls, handle).listen(Number(HTTPS_PORT), host));
}

const close = () => {
  for (const server of servers) server.closeAllConnections();
  process.exit(0);
};
process.once("SIGTERM", close);
process.once("SIGINT", close);
