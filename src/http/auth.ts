import { isIP } from "node:net";
import type { FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import type { AppContext } from "../context.js";
import type { KeyScope } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { type AuthenticatedKey, authenticateKey, noteKeyUsed } from "../keys/authenticate.js";
import { outsideScope, scopeAllows } from "../keys/scopes.js";
import { documentRateLimits, enforceRateLimit } from "./rate-limit.js";
import { addRouteOnRequestFor } from "./route-hooks.js";
import type { App } from "./types.js";

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Every route under `/v2/` needs `Authorization: Bearer <key>` from an address the key allows,
 * within the key's scope, and counts against its key's rate limit.
 */
export function registerApiKeyAuth(app: App, ctx: AppContext): void {
  app.decorateRequest("principal", null);
  documentRateLimits(app);
  addRouteOnRequestFor(
    app,
    (route) => route.url.startsWith("/v2/"),
    (route) => {
      const scopeCheck = scopeCheckFor(route);
      return (request, reply) => authenticateRequest(ctx, request, reply, scopeCheck);
    },
  );
}

/** The answer to "may a key of this scope make this request?", decided once per route, scope and method. */
type ScopeCheck = (scope: KeyScope, method: string) => ApiError | undefined;

function scopeCheckFor(route: RouteOptions): ScopeCheck {
  const shownUrl = route.url.replace(/:(\w+)/g, "{$1}");
  const decided = new Map<string, boolean>();
  return (scope, method) => {
    const decision = `${scope} ${method}`;
    let allowed = decided.get(decision);
    if (allowed === undefined) {
      allowed = scopeAllows(scope, { method, url: route.url });
      decided.set(decision, allowed);
    }
    return allowed ? undefined : outsideScope(scope, { method, url: shownUrl });
  };
}

async function authenticateRequest(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  scopeCheck: ScopeCheck,
): Promise<void> {
  const header = request.headers.authorization;
  const match = header === undefined ? null : BEARER.exec(header);
  if (!match?.[1]) {
    throw new ApiError("missing_api_key", "Send your API key as Authorization: Bearer <key>.");
  }
  const key = await authenticateKey(ctx, match[1]);
  if (!key) throw new ApiError("invalid_api_key", "The API key is not valid; it may have been deleted.");
  refuseOutsideAllowlist(key, request.ip);
  const refusal = scopeCheck(key.scope, request.method);
  if (refusal) throw refusal;
  request.principal = key;
  await noteKeyUsed(ctx, key);
  await enforceRateLimit(ctx, key, reply);
}

/**
 * The client address is the socket's, or with TRUST_PROXY what the trusted proxies report
 * (`request.ip`). A proxy may pass on a forwarded entry that is no address at all: it is refused
 * like any other, and not repeated back.
 */
function refuseOutsideAllowlist(key: AuthenticatedKey, clientAddress: string): void {
  if (key.allowedIps === null || key.allowedIps.admits(clientAddress)) return;
  const seen = isIP(clientAddress) === 0 ? "a client address that is not an IP address" : clientAddress;
  throw new ApiError(
    "ip_not_allowed",
    `This key may not be used from ${seen}: the address is not in the key's allowed_ips.`,
  );
}
