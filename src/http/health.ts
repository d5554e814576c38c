import { sql } from "kysely";
import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { App } from "./types.js";

const Status = Type.Object({ status: Type.String() });
const Readiness = Type.Object({
  status: Type.String(),
  carriers: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
    description: "Each live carrier's connection, e.g. smpp: {bound, window, in_flight}",
  }),
});

export function healthRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/healthz",
    { schema: { summary: "Liveness: the process answers", tags: ["Operations"], response: { 200: Status } } },
    async () => ({ status: "ok" }),
  );

  app.get(
    "/readyz",
    {
      schema: {
        summary: "Readiness: the database answers and the server is not shutting down",
        tags: ["Operations"],
        response: { 200: Readiness },
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
      return { status: "ready", carriers: ctx.carrierBoard.statuses() };
    },
  );
}
