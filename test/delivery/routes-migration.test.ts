import { describe, expect, it } from "vitest";
import { down, up } from "../../src/db/migrations/2026-11-23T0009-message-routes.js";
import { queuedMessage } from "../../src/messages/store.js";
import { applyReceipt } from "../../src/receipts/receipts.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

/* The upgrade to carrier routes keeps the receipts of messages already out on the old single SMPP link. */

describe.each(DIALECTS)("the message-routes migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  it("moves parts awaiting a receipt to the route default, where their receipts still match", async () => {
    const ctx = await fresh.open();
    const accountId = await createTestAccount(ctx);
    await down(ctx.db);

    const now = ctx.clock.now().toISOString();
    const messages = ["awaiting", "delivered"].map(() => {
      const { route: _route, ...row } = queuedMessage(now, {
        account_id: accountId,
        environment: "live",
        channel: "sms",
        recipient: "+919876543210",
        sender: "DAKIYA",
        template_id: "1",
        entity_id: "1",
        reference: null,
        text: "Hello",
        encoding: "gsm7",
        segments: 1,
        cost: 2_500,
        sealed: null,
        priority: 1,
        category: "transactional",
        expires_at: null,
        send_at: null,
      });
      return { ...row, status: "submitted" as const, carrier: "smpp", submitted_at: now };
    });
    // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration
    const before = ctx.db as any;
    await before.insertInto("messages").values(messages).execute();
    await before
      .insertInto("carrier_messages")
      .values(
        messages.map((message, index) => ({
          carrier: "smpp",
          carrier_message_id: `smsc-${index + 1}`,
          message_id: message.id,
          part: 1,
          status: index === 0 ? "submitted" : "delivered",
          error_code: null,
          updated_at: now,
        })),
      )
      .execute();

    await up(ctx.db);
    const parts = await ctx.db
      .selectFrom("carrier_messages")
      .select(["carrier", "carrier_message_id"])
      .orderBy("carrier_message_id")
      .execute();
    expect(parts).toEqual([
      { carrier: "smpp:default", carrier_message_id: "smsc-1" },
      { carrier: "smpp", carrier_message_id: "smsc-2" },
    ]);
    const routes = await ctx.db.selectFrom("messages").select("route").execute();
    expect(routes).toEqual([{ route: null }, { route: null }]);

    expect(
      await applyReceipt(ctx, { carrier: "smpp:default", carrierMessageId: "smsc-1", state: "delivered" }),
    ).toBe(true);
    const awaiting = await ctx.db
      .selectFrom("messages")
      .select("status")
      .where("id", "=", messages[0]?.id as string)
      .executeTakeFirstOrThrow();
    expect(awaiting.status).toBe("delivered");
  });
});
