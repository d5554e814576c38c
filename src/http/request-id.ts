import type { IncomingMessage } from "node:http";
import { randomBase62 } from "../lib/ids.js";
import type { App } from "./types.js";

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's `X-Request-Id` when it is a safe token, so ids can be followed across services. */
export function generateRequestId(request: IncomingMessage): string {
  const incoming = request.headers["x-request-id"];
  if (typeof incoming === "string" && SAFE_REQUEST_ID.test(incoming)) return incoming;
  return newRequestId();
}

/** A fresh request id, for answers given before there is a request to read one from. */
export function newRequestId(): string {
  return `req_${randomBase62(20)}`;
}

export function registerRequestIdHeader(app: App): void {
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("X-Request-Id", request.id);
    done(null, payload);
  });
}
