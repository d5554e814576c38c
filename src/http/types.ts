import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { KeyPrincipal } from "../keys/authenticate.js";

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module "fastify" {
  interface FastifyRequest {
    /** The API key that authenticated this `/v2/` request. */
    principal: KeyPrincipal | null;
  }
}

/** The authenticated key of a `/v2/` route; the auth hook guarantees it there. */
export function principalOf(request: { principal: KeyPrincipal | null }): KeyPrincipal {
  if (!request.principal) throw new Error("route is outside /v2/: no principal");
  return request.principal;
}
