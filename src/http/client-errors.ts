import { maxHeaderSize, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "../lib/logger.js";
import { newRequestId } from "./request-id.js";

/** What Node passes to `clientError`: a parser error carries `reason` (and `rawPacket`, never logged). */
export type ClientError = Error & { code?: string; reason?: string };

interface Refusal {
  status: 400 | 408 | 431;
  message: string;
}

/** How long a refused connection may stay half-closed, waiting for the client to read and close. */
const LINGER_MS = 2_000;
/** llhttp's reasons are fixed English phrases; anything else is not repeated to the client. */
const PLAIN_REASON = /^[A-Za-z0-9 .,'()_-]{1,100}$/;

/** Sockets already answered: more bytes after a parser error raise the error again. */
const refused = new WeakSet<Socket>();

/**
 * Fastify's `clientErrorHandler`: answers a request Node's HTTP parser refused (malformed
 * framing, oversized or invalid headers, a connection that ended mid-request) with the error
 * envelope of docs/api-reference.md#errors, straight on the socket, and closes the connection, since the parser
 * can no longer tell where a next request would start. Status 400, or 431 for oversized headers
 * and 408 for a request that did not arrive in time, all with the code `invalid_request`.
 * Nothing of the request is logged: `rawPacket` holds its bytes, keys and passwords included.
 */
export function createClientErrorHandler(log: Logger): (error: ClientError, socket: Socket) => void {
  return (error, socket) => {
    // A reset connection has no one left to answer.
    if (error.code === "ECONNRESET" || socket.destroyed || refused.has(socket)) return;
    refused.add(socket);
    const inFlight = responseInFlight(socket);
    // A complete request before the bad bytes (a body that ran past its Content-Length) or one
    // already being answered gets its own response first; HTTP/1.1 answers in order. A request
    // still waiting for its body never will get it, so the refusal goes out now.
    if (inFlight && !inFlight.writableFinished && (inFlight.req.complete || inFlight.headersSent)) {
      inFlight.once("finish", () => refuse(error, socket, log));
      return;
    }
    refuse(error, socket, log);
  };
}

function refuse(error: ClientError, socket: Socket, log: Logger): void {
  const requestId = newRequestId();
  const { status, message } = refusalFor(error);
  log.info(
    { reqId: requestId, status, parser_error: error.code ?? "unknown" },
    "request refused by the HTTP parser",
  );
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: { code: "invalid_request", message, request_id: requestId } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Date: ${new Date().toUTCString()}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
  // end() sends the answer and a FIN; destroying at once could reset the connection before the
  // client has read the answer, so the socket lingers until the client closes it too.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

function refusalFor(error: ClientError): Refusal {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: `The request's headers are larger than ${maxHeaderSize / 1024} KiB.` };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "The request did not arrive in time." };
    case "HPE_INVALID_EOF_STATE":
      return { status: 400, message: "The connection ended before the request was complete." };
  }
  const reason = error.reason !== undefined && PLAIN_REASON.test(error.reason) ? ` (${error.reason})` : "";
  return { status: 400, message: `The request is not valid HTTP/1.1${reason}.` };
}

/** The response Node is writing on this socket, if any (`_httpMessage`, as Node's own handler reads it). */
function responseInFlight(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}
