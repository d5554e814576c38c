import type { FastifyRequest } from "fastify";
import type { App } from "./types.js";

declare module "fastify" {
  interface FastifyInstance {
    /** What a stopping server waits for before it closes the database (`server.ts`). */
    requestsInFlight: RequestsInFlight;
  }
  interface FastifyRequest {
    /** Counted among the requests in flight, and not yet answered. */
    inFlight: boolean;
  }
}

/**
 * The answer to a request whose client hung up before its body was read. No one receives it; it
 * ends the request's work (nginx logs such requests as 499).
 */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * The requests being worked on: each from its arrival until its answer is handed to the socket,
 * whether or not its client is still there to read it. `app.close()` waits for connections only,
 * and a client that hangs up mid-request ends its connection while the request's hooks and
 * handler still run; they must find the database open.
 */
export class RequestsInFlight {
  private open = 0;
  private waiters: Array<() => void> = [];

  /**
   * Registered before any hook that does work, so a request is counted from its start. A request
   * whose client hung up while it was in its `onRequest` hooks (the key's lookup) goes no further:
   * its body can no longer be read, so it would never reach its handler nor answer.
   */
  countArrivals(app: App): void {
    app.decorateRequest("inFlight", false);
    app.addHook("onRequest", (request, _reply, done) => {
      request.inFlight = true;
      this.open += 1;
      done();
    });
    app.addHook("preParsing", (request, reply, payload, done) => {
      if (request.raw.destroyed) return reply.code(CLIENT_CLOSED_REQUEST).send();
      done(null, payload);
    });
  }

  /**
   * Registered after every other `onSend` hook (hooks run in the order they were added), since
   * some write to the database (idempotency stores the answer there). An answer sent twice (an
   * error in a later hook) passes here twice, and counts once.
   */
  countAnswers(app: App): void {
    app.addHook("onSend", (request, _reply, payload, done) => {
      this.finish(request);
      done(null, payload);
    });
  }

  /** Resolves once no request is in flight, or after `timeoutMs`, whichever is first. */
  drained(timeoutMs: number): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private finish(request: FastifyRequest): void {
    if (!request.inFlight) return;
    request.inFlight = false;
    this.open -= 1;
    if (this.open > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}
