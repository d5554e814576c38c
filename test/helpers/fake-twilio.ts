import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A real HTTP server on 127.0.0.1 standing in for api.twilio.com. */
export interface FakeTwilio {
  url: string;
  requests: Recorded[];
  respond: (request: Recorded, response: ServerResponse) => void;
  close(): Promise<void>;
}

/** Answers each call with a new call SID, `CA` and 32 digits counting from 1. */
export async function startFakeTwilio(): Promise<FakeTwilio> {
  let calls = 0;
  const fake: FakeTwilio = {
    url: "",
    requests: [],
    respond: (_request, response) => {
      calls += 1;
      json(response, 201, { sid: `CA${String(calls).padStart(32, "0")}` });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const recorded: Recorded = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      fake.requests.push(recorded);
      fake.respond(recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/** The form fields of one recorded call request (`To`, `From`, `Twiml`, …). */
export function callForm(request: Recorded): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(request.body));
}
