import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { authenticateKey } from "../keys/authenticate.js";
import { documentRateLimits, enforceRateLimit } from "./rate-limit.js";
import { addRouteOnRequest } from "./route-hooks.js";
import type { App } from "./types.js";

const BEARER = /^Bearer +(\S+) *$/i;

/** Every route under `/v2/` needs `Authorization: Bearer <key>`, and counts against its key's rate limit. */
export function registerApiKeyAuth(app: App, ctx: AppContext): void {
  app.decorateRequest("principal", null);
  documentRateLimits(app);
  addRouteOnRequest(
    app,
    (route) => route.url.startsWith("/v2/"),
    (request, reply) => authenticateRequest(ctx, request, reply),
  );
}

async function authenticateRequest(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const header = request.headers.authorization;
  const match = header === undefined ? null : BEARER.exec(header);
  if (!match?.[1]) {
    throw new ApiError("missing_api_key", "Send your API key as Authorization: Bearer <key>.");
  }
  const principal = await authenticateKey(ctx, match[1]);
  if (!principal)
    throw new ApiError("invalid_api_key", "The API key is not valid; it may have been deleted.");
  request.principal = principal;
  await enforceRateLimit(ctx, principal, reply);
}
