import { sql } from "kysely";
import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { errorResponse } from "./schemas.js";
import type { App } from "./types.js";

const Status = Type.Object({ status: Type.Literal("ok") });
const Readiness = Type.Object({
  status: Type.Literal("ready"),
  carriers: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
    description: "Each live carrier's connection, e.g. smpp: {bound, window, in_flight}",
  }),
  routes: Type.Array(
    Type.Object({
      name: Type.String(),
      bound: Type.Boolean(),
      window: Type.Integer({ description: "Outstanding submits allowed at once" }),
      in_flight: Type.Integer(),
      circuit: Type.Union([Type.Literal("closed"), Type.Literal("open"), Type.Literal("half_open")]),
    }),
    { description: "Each SMSC route of this process's worker (docs/routes.md); empty without one" },
  ),
  unrouted: Type.Union(
    [
      Type.Object({
        categories: Type.Array(Type.String(), {
          description: "Traffic categories no route carries: their messages fail with no_route",
        }),
        accounts_listed_only: Type.Boolean({
          description: "Every route lists accounts: an account in none of the lists has no route",
        }),
        senders_listed_only: Type.Boolean({
          description: "Every route lists senders: a header in none of the lists has no route",
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        "SMS traffic the worker's routes leave without a route (docs/routes.md); null without routes",
    },
  ),
});

export function healthRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/healthz",
    {
      schema: {
        operationId: "getHealth",
        summary: "Liveness: the process answers",
        tags: ["Operations"],
        security: [],
        response: { 200: Status },
      },
    },
    async () => ({ status: "ok" as const }),
  );

  app.get(
    "/readyz",
    {
      schema: {
        operationId: "getReadiness",
        summary:
          "Readiness: the database answers, the server is not shutting down, and an SMSC route is bound if this process sends live SMS",
        tags: ["Operations"],
        security: [],
        response: { 200: Readiness, 503: errorResponse(["unavailable"]) },
      },
    },
    async () => {
      if (ctx.shuttingDown) throw new ApiError("unavailable", "The server is shutting down.");
      try {
        await sql`select 1`.execute(ctx.db);
      } catch (error) {
        ctx.log.warn({ err: error }, "readiness check: database unreachable");
        throw new ApiError("unavailable", "The database is unreachable.");
      }
      const routes = ctx.carrierBoard
        .routes()
        .map(({ inFlight, ...route }) => ({ ...route, in_flight: inFlight }));
      // Live SMS is configured here and no route can send: take this process out of rotation.
      if (routes.length > 0 && !routes.some((route) => route.bound)) {
        const states = routes.map((route) => `${route.name} unbound, circuit ${route.circuit}`).join("; ");
        throw new ApiError("unavailable", `No SMSC route is bound (${states}).`);
      }
      const unrouted = ctx.carrierBoard.unrouted();
      return {
        status: "ready" as const,
        carriers: ctx.carrierBoard.statuses(),
        routes,
        unrouted: unrouted && {
          categories: unrouted.categories,
          accounts_listed_only: unrouted.accountsListedOnly,
          senders_listed_only: unrouted.sendersListedOnly,
        },
      };
    },
  );
}
