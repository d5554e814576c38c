import { Type } from "typebox";
import type { AppContext } from "../context.js";
import { ErrorResponse } from "../http/schemas.js";
import { type App, principalOf } from "../http/types.js";
import { formatInr } from "../lib/money.js";
import { getBalance } from "./ledger.js";

const BalanceResponse = Type.Object(
  {
    environment: Type.Union([Type.Literal("live"), Type.Literal("sandbox")]),
    balance: Type.String({ description: "INR with exactly 4 decimals", examples: ["99.7500"] }),
    currency: Type.Literal("INR"),
  },
  { description: "The balance of the API key's environment" },
);

export function balanceRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/v2/balance",
    {
      schema: {
        operationId: "getBalance",
        summary: "Balance of the key's environment",
        tags: ["Balance"],
        security: [{ apiKey: [] }],
        response: { 200: BalanceResponse, 401: ErrorResponse },
      },
    },
    async (request) => {
      const { accountId, environment } = principalOf(request);
      const balance = await getBalance(ctx.db, accountId, environment);
      return { environment, balance: formatInr(balance), currency: "INR" as const };
    },
  );
}
