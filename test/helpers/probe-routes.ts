import { Type } from "typebox";
import { applyLedgerChange } from "../../src/accounts/ledger.js";
import type { AppContext } from "../../src/context.js";
import { type App, principalOf } from "../../src/http/types.js";
import { formatInr, parseInr } from "../../src/lib/money.js";

/**
 * Routes that exercise the shared HTTP machinery (validation, errors, idempotency) the way a
 * feature's routes will: a schema'd POST under /v2/ that debits the ledger, and one that fails.
 */
export function addProbeRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/v2/probe/charges",
    {
      schema: {
        body: Type.Object(
          {
            amount: Type.String({ pattern: "^\\d+\\.\\d{4}$" }),
            note: Type.Optional(Type.String({ maxLength: 20 })),
            delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 2000 })),
            meta: Type.Optional(
              Type.Object(
                { tag: Type.String(), count: Type.Optional(Type.Integer()) },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { accountId, environment } = principalOf(request);
      if (request.body.delay_ms) await new Promise((resolve) => setTimeout(resolve, request.body.delay_ms));
      const entry = await ctx.db.transaction().execute((trx) =>
        applyLedgerChange(trx, ctx.clock, {
          accountId,
          environment,
          amount: -(parseInr(request.body.amount) ?? 0),
          reason: "probe_charge",
          reference: request.body.note ?? null,
        }),
      );
      return reply.code(201).send({ id: entry.id, balance: formatInr(entry.balanceAfter) });
    },
  );

  app.post("/v2/probe/crash", async () => {
    throw new Error('insert into "secret_table" values (1) -- SQLITE_CONSTRAINT at /srv/app.ts:12');
  });
}
