import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import { down, up } from "../../src/db/migrations/2026-11-29T0026-campaigns.js";
import * as reports from "../../src/db/migrations/2026-11-29T0027-message-reports.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";

/* Messages of before belong to no campaign; down drops the campaign tables, the column and the indexes. */

describe.each(DIALECTS)("the campaigns migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  async function tablesOf(db: AppContext["db"]) {
    const tables = await db.introspection.getTables();
    return {
      names: tables.map((table) => table.name),
      messageColumns: (tables.find((t) => t.name === "messages")?.columns ?? []).map((c) => c.name),
    };
  }

  it("adds campaigns, their recipients and messages.campaign_id (null for messages of before), and down drops them", async () => {
    const ctx = await fresh.open();
    const { secret } = await createSendingAccount(ctx, 1_000_000);
    const app = await buildApp(ctx);
    try {
      const sent = await app.inject({
        method: "POST",
        url: "/v2/sms/send",
        payload: {
          to: "+919876543210",
          sender: "DAKIYA",
          template_id: SMS_TEMPLATE_ID,
          variables: { ref: "A1" },
        },
        headers: bearer(secret),
      });
      expect(sent.statusCode).toBe(202);
      await reports.down(ctx.db);
      await down(ctx.db);
      const without = await tablesOf(ctx.db);
      expect(without.names).not.toContain("campaigns");
      expect(without.names).not.toContain("campaign_recipients");
      expect(without.messageColumns).not.toContain("campaign_id");

      await up(ctx.db);
      await reports.up(ctx.db);
      const message = await ctx.db
        .selectFrom("messages")
        .select(["id", "campaign_id"])
        .executeTakeFirstOrThrow();
      expect(message.campaign_id).toBeNull();
      const campaign = await app.inject({
        method: "POST",
        url: "/v2/campaigns",
        payload: {
          name: "After",
          template_id: SMS_TEMPLATE_ID,
          sender: "DAKIYA",
          recipients: [{ to: "+919876543211", variables: { ref: "B2" } }],
        },
        headers: bearer(secret),
      });
      expect(campaign.statusCode, campaign.body).toBe(202);
    } finally {
      await app.close();
    }
  });
});
