import type { FastifyReply } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { AuthenticatedKey } from "../keys/authenticate.js";
import { keyRate, takeRequest } from "../keys/rate-limit.js";
import { errorResponse } from "./schemas.js";
import type { App } from "./types.js";

/**
 * Counts a request against its key's token bucket (docs/rate-limits.md) and puts the `RateLimit-*`
 * headers on the reply, so that they come with whatever the request gets, errors included.
 * Over the limit it throws 429 `rate_limited` with `Retry-After`: when the bucket is full again.
 */
export async function enforceRateLimit(
  ctx: AppContext,
  key: AuthenticatedKey,
  reply: FastifyReply,
): Promise<void> {
  const rate = keyRate(ctx.rateLimits, key.rateLimit);
  const decision = await takeRequest(ctx, key.keyId, rate);
  reply.header("RateLimit-Limit", String(decision.limit));
  reply.header("RateLimit-Remaining", String(decision.remaining));
  reply.header("RateLimit-Reset", String(decision.resetSeconds));
  if (!decision.allowed) {
    throw new ApiError(
      "rate_limited",
      `This API key may make ${rate.perMinute} requests a minute, at most ${rate.burst} at once.`,
    ).withRetryAfter(decision.resetSeconds);
  }
}

const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": { type: "integer", description: "Requests this API key may make at once (its burst)" },
  "RateLimit-Remaining": { type: "integer", description: "Requests it may make right now" },
  "RateLimit-Reset": {
    type: "integer",
    description: "Seconds until RateLimit-Remaining is back to RateLimit-Limit",
  },
};

const RATE_LIMITED = {
  ...errorResponse(["rate_limited"]),
  description: "rate_limited: over the API key's request limit or an account's cap (see docs/rate-limits.md)",
  headers: {
    ...RATE_LIMIT_HEADERS,
    "Retry-After": { type: "integer", description: "Seconds to wait before trying again" },
  },
};

/** Adds the `RateLimit-*` headers and the 429 answer to the OpenAPI document of every `/v2/` route. */
export function documentRateLimits(app: App): void {
  app.addHook("onRoute", (route) => {
    if (!route.url.startsWith("/v2/") || !route.schema) return;
    const responses: Record<string, unknown> = { ...(route.schema.response as Record<string, object>) };
    for (const [status, schema] of Object.entries(responses)) {
      responses[status] = { ...(schema as object), headers: RATE_LIMIT_HEADERS };
    }
    // A route that documents its own 429 (an OTP cooldown) keeps it, with the headers added.
    responses[429] = {
      ...((responses[429] as object | undefined) ?? RATE_LIMITED),
      headers: RATE_LIMITED.headers,
    };
    route.schema = { ...route.schema, response: responses };
  });
}
