import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the proxy does with a request:
 * - `forward`: pass it to the server and its answer back;
 * - `lose-answer`: pass it to the server, then cut the connection instead of answering (the
 *   server acted, the client never hears of it);
 * - `{ status, … }`: answer this itself without passing it on (a gateway's 503, …);
 * - `{ afterForward: status }`: pass it on, then answer `status` instead of the server's answer;
 * - `hang`: never answer (the connection stays open until the proxy closes).
 */
export type ProxyAction =
  | "forward"
  | "lose-answer"
  | "hang"
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { afterForward: number };

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as it came, as UTF-8 text. */
  body: string;
  /** The server's answer, when the request got to it. */
  upstream?: { status: number; headers: Headers };
}

export interface FlakyProxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

/** A real HTTP server on a free loopback port in front of `upstream`, misbehaving as `plan` says. */
export async function startFlakyProxy(
  upstream: string,
  plan: (index: number, request: ProxiedRequest) => ProxyAction,
): Promise<FlakyProxy> {
  const requests: ProxiedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const seen: ProxiedRequest = {
        method: request.method ?? "GET",
        path: request.url ?? "/",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(seen);
      const action = plan(requests.length - 1, seen);
      if (action === "hang") return;
      if (typeof action === "object" && "status" in action) {
        response
          .writeHead(action.status, { "content-type": "application/json", ...action.headers })
          .end(action.body === undefined ? "" : JSON.stringify(action.body));
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string" && !HOP_BY_HOP.has(name)) headers.set(name, value);
      }
      const answer = await fetch(`${upstream}${seen.path}`, {
        method: seen.method,
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      seen.upstream = { status: answer.status, headers: answer.headers };
      if (action === "lose-answer") {
        request.socket.destroy();
        return;
      }
      if (typeof action === "object") {
        response.writeHead(action.afterForward, { "content-type": "text/plain" }).end("Bad Gateway");
        return;
      }
      const answerHeaders: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name)) answerHeaders[name] = value;
      });
      response.writeHead(answer.status, answerHeaders).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
