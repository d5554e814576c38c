import { connect } from "node:net";

export interface RawResponse {
  status: number;
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  responses: RawResponse[];
  /** Every byte the server sent, as latin1 text. */
  text: string;
  /** The server ended the connection (rather than the client giving up after `timeoutMs`). */
  closedByServer: boolean;
}

/**
 * Writes `bytes` as they are on a fresh TCP connection to `url` (no HTTP client in between, so
 * requests Node's parser refuses can be sent) and reads until the server closes the connection
 * or `timeoutMs` passes. `halfClose` ends the client's side after writing, as a client that
 * stopped sending would.
 */
export function rawExchange(
  url: string,
  bytes: Buffer | string,
  options: { halfClose?: boolean; timeoutMs?: number } = {},
): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let closedByServer = false;
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? 3_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => {
      closedByServer = true;
      socket.end();
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // A reset after the server's answer still counts as the server closing the connection.
      if (error.code === "ECONNRESET") closedByServer = true;
      else reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("latin1");
      try {
        resolve({ responses: parseResponses(text), text, closedByServer });
      } catch (error) {
        reject(error);
      }
    });
    socket.write(typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes);
    if (options.halfClose) socket.end();
  });
}

/** Splits what an HTTP/1.1 server wrote into responses (bodies sized by Content-Length). */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.length > 0) {
    const headEnd = rest.indexOf("\r\n\r\n");
    if (headEnd < 0) throw new Error(`incomplete response head: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine = "", ...lines] = rest.slice(0, headEnd).split("\r\n");
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
    if (status === undefined) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    const bodyStart = headEnd + 4;
    // `text` holds one latin1 character per byte, so Content-Length slices it exactly; bodies are UTF-8.
    responses.push({
      status: Number(status),
      headers,
      body: Buffer.from(rest.slice(bodyStart, bodyStart + length), "latin1").toString("utf8"),
    });
    rest = rest.slice(bodyStart + length);
  }
  return responses;
}
