import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { App } from "../http/types.js";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyScope,
  requestFingerprint,
} from "./idempotency.js";

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

declare module "fastify" {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key whose response must be stored. */
    idempotencyScope: IdempotencyScope | null;
  }
}

/**
 * `Idempotency-Key` on any POST under `/v2/` (API.md §6). The key is claimed after auth and
 * validation, so requests refused before any work are not stored; the response is stored as
 * it is sent.
 */
export function registerIdempotency(app: App, ctx: AppContext): void {
  app.decorateRequest("idempotencyScope", null);

  app.addHook("preHandler", async (request, reply) => {
    const header = request.headers["idempotency-key"];
    if (header === undefined || request.method !== "POST" || !request.principal) return;
    if (typeof header !== "string" || !KEY_PATTERN.test(header)) {
      throw new ApiError(
        "invalid_request",
        "Idempotency-Key must be 1 to 255 printable ASCII characters.",
        "Idempotency-Key",
      );
    }
    const scope: IdempotencyScope = {
      accountId: request.principal.accountId,
      environment: request.principal.environment,
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
        request.idempotencyScope = scope;
        return;
      case "replay":
        return reply
          .code(claim.status)
          .header("Idempotent-Replayed", "true")
          .type("application/json; charset=utf-8")
          .send(claim.body);
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
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const scope = request.idempotencyScope;
    if (!scope) return payload;
    request.idempotencyScope = null;
    await completeIdempotencyKey(ctx, scope, reply.statusCode, typeof payload === "string" ? payload : "");
    return payload;
  });
}
