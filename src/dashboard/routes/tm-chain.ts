import { Type } from "typebox";
import { getAccount, updateAccount } from "../../accounts/update.js";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import { MAX_TM_CHAIN, peTmChainHash } from "../../dlt/tm-chain.js";
import type { App } from "../../http/types.js";
import { sessionOf } from "../auth.js";
import { HIDDEN } from "../schemas.js";

/**
 * The account's PE–TM chain as the console shows it: the chain, and for each principal entity of
 * its templates the hash its messages carry with it (docs/dlt-compliance.md#pe-tm-chain-hash).
 */
async function chainView(ctx: AppContext, accountId: string) {
  const [{ tm_chain }, entities] = await Promise.all([
    getAccount(ctx.db, accountId),
    ctx.db
      .selectFrom("templates")
      .select("entity_id")
      .distinct()
      .where("account_id", "=", accountId)
      .orderBy("entity_id")
      .execute(),
  ]);
  return {
    tm_chain,
    entities: entities.map(({ entity_id }) => ({
      entity_id,
      hash: tm_chain === null ? null : peTmChainHash(entity_id, tm_chain),
    })),
  };
}

export function tmChainRoutes(app: App, ctx: AppContext): void {
  app.get("/dashboard/api/tm-chain", { schema: HIDDEN }, async (request) =>
    chainView(ctx, sessionOf(request).accountId),
  );

  app.put(
    "/dashboard/api/tm-chain",
    {
      schema: {
        ...HIDDEN,
        body: Type.Object(
          {
            tm_chain: Type.Union([
              Type.Array(Type.String({ maxLength: 30 }), { maxItems: MAX_TM_CHAIN }),
              Type.Null(),
            ]),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { accountId } = sessionOf(request);
      await updateAccount(ctx, accountId, { tmChain: request.body.tm_chain }, dashboardActor(request));
      return chainView(ctx, accountId);
    },
  );
}
