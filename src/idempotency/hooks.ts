import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { type App, principalOf } from "../http/types.js";
import {
  claimIdempotencyKey,
  type IdempotencyScope,
  releaseIdempotencyKey,
  requestFingerprint,
  storeIdempotentResponse,
} from "./idempotency.js";
import { IdempotentResponse, type RecordAnswer } from "./recorder.js";

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

declare module "fastify" {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key whose response must be stored. */
    idempotency: IdempotentResponse | null;
  }
}

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * `Idempotency-Key` on any POST under `/v2/` (docs/idempotency.md, docs/idempotency.md). The key is claimed
 * after auth and validation, so requests refused before any work are not stored. A route whose
 * service records its answer in the transaction of its effect (`answerIdempotently`) has it
 * stored there; any other success is stored as it is sent; an error answer releases the key.
 */
export function registerIdempotency(app: App, ctx: AppContext): void {
  app.decorateRequest("idempotency", null);

  // Requests without a key pass these hooks synchronously: no promise, no microtask.
  app.addHook("preHandler", (request, reply, done) => {
    const header = request.headers["idempotency-key"];
    if (header === undefined || request.method !== "POST" || !request.principal) return done();
    return claimForRequest(ctx, request, reply, header);
  });

  app.addHook("onSend", (request, reply, payload, done) => {
    const held = request.idempotency;
    if (!held) return done(null, payload);
    request.idempotency = null;
    settleClaim(ctx, held, reply, payload).then(() => done(null, payload), done);
  });
}

async function claimForRequest(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  header: string | string[],
): Promise<unknown> {
  const lines = headerLines(request, header);
  if (lines > 1) {
    throw new ApiError(
      "invalid_request",
      `Send Idempotency-Key once; this request has it ${lines} times.`,
      "Idempotency-Key",
    );
  }
  if (typeof header !== "string" || !KEY_PATTERN.test(header)) {
    throw new ApiError(
      "invalid_request",
      "Idempotency-Key must be 1 to 255 printable ASCII characters.",
      "Idempotency-Key",
    );
  }
  const principal = principalOf(request);
  const scope: IdempotencyScope = {
    accountId: principal.accountId,
    environment: principal.environment,
    key: header,
  };
  const path = request.url.split("?")[0] ?? request.url;
  const claim = await claimIdempotencyKey(
    ctx,
    scope,
    requestFingerprint(ctx.secret, request.method, path, request.body),
  );
  switch (claim.outcome) {
    case "claimed":
      request.idempotency = new IdempotentResponse(scope, claim.holder, (status, answer) =>
        serializeFor(reply, status, answer),
      );
      return;
    case "replay":
      return reply.code(claim.status).header("Idempotent-Replayed", "true").type(JSON_TYPE).send(claim.body);
    case "in_use":
      throw new ApiError(
        "idempotency_key_in_use",
        "A request with this Idempotency-Key is still being processed.",
      );
    case "reused":
      throw new ApiError(
        "idempotency_key_reused",
        "This Idempotency-Key was used with a different method, path or body.",
        "Idempotency-Key",
      );
  }
}

/**
 * How many `Idempotency-Key` lines the request carried. Node joins repeated lines into one value
 * ("a, b"), which would pass for one key: a value without a comma came from one line.
 */
function headerLines(request: FastifyRequest, header: string | string[]): number {
  if (typeof header === "string" && !header.includes(",")) return 1;
  const { rawHeaders } = request.raw;
  let lines = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === "idempotency-key") lines++;
  }
  return lines;
}

/** An error answer releases the request's key; a success not recorded in its transaction is stored now. */
async function settleClaim(
  ctx: AppContext,
  held: IdempotentResponse,
  reply: FastifyReply,
  payload: unknown,
): Promise<void> {
  if (reply.statusCode >= 400) {
    await releaseIdempotencyKey(ctx.db, held.scope, held.holder);
  } else if (!held.recorded) {
    // A route that does not record in its transaction: stored now, after its effect committed.
    await storeIdempotentResponse(
      ctx.db,
      held.scope,
      held.holder,
      reply.statusCode,
      typeof payload === "string" ? payload : "",
    );
  }
}

/**
 * Runs a route's service with a recorder for its `status` answer when the request holds an
 * Idempotency-Key, and sends the answer: the very text stored under the key, when it was.
 */
export async function answerIdempotently<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  run: (record: RecordAnswer<T> | undefined) => Promise<T>,
): Promise<FastifyReply> {
  const held = request.idempotency;
  const answer = await run(held?.recorderFor<T>(status));
  const recorded = held?.recorded;
  if (recorded) return reply.code(recorded.status).type(JSON_TYPE).send(recorded.body);
  return reply.code(status).send(answer);
}

/** The body text the route's response schema makes of `answer` for `status`, as Fastify would send it. */
function serializeFor(reply: FastifyReply, status: number, answer: unknown): string {
  const serialize = reply.getSerializationFunction(String(status));
  return serialize ? serialize(answer as Record<string, unknown>) : JSON.stringify(answer);
}
