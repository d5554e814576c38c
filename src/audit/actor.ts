/**
 * Who makes a change through the HTTP server. The console's actor is decided here and only here,
 * so that every dashboard route records the same person the same way.
 */
import type { FastifyRequest } from "fastify";
import { sessionOf } from "../dashboard/auth.js";
import { principalOf } from "../http/types.js";
import { type ChangeOrigin, memberActor } from "./types.js";

/** The signed-in console user of a `/dashboard/api/` route, and the address the request came from. */
export function dashboardActor(request: FastifyRequest): ChangeOrigin {
  return { actor: memberActor(sessionOf(request)), clientAddress: request.ip };
}

/** The API key of a `/v2/` route, and the address the request came from. */
export function keyActor(request: FastifyRequest): ChangeOrigin {
  return { actor: { type: "key", id: principalOf(request).keyId }, clientAddress: request.ip };
}
