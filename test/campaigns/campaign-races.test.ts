import { beforeAll, describe, expect, it } from "vitest";
import { getBalance, sumLedger } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { cancelCampaign } from "../../src/campaigns/cancel.js";
import { createCampaign } from "../../src/campaigns/create.js";
import { CampaignFeeder } from "../../src/campaigns/feed.js";
import type { AppContext } from "../../src/context.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";
import { NO_RECEIPT } from "../helpers/otp.js";

/*
 * Feeds on two server processes at once, a cancel racing them, a campaign whose last message
 * waits for a receipt, and a promotional campaign started at night: nothing fed twice or lost,
 * every rupee accounted for, and `completed` only once every message is final.
 */

const TEMPLATE = "1107161234567890123";
const PROMO = "1107161234567890128";
const PRICE = 2_500;
const CREDITS = 1_000_000_000;

function recipients(count: number, from: number) {
  return Array.from({ length: count }, (_, i) => ({
    to: `+9195${String(from + i).padStart(8, "0")}`,
    variables: { name: `N${i}` },
  }));
}

describe.each(DIALECTS)("campaigns racing on %s", (dialect) => {
  const instances = useTestInstances(dialect, {
    env: { SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "10000000" },
  });
  let ctx: AppContext;
  let other: AppContext;
  beforeAll(async () => {
    ctx = instances.ctx;
    // A second process's connection on PostgreSQL. SQLite's driver is synchronous: a second
    // connection in this process would wait on the first's lock with the event loop stopped,
    // so there the two feeders share one connection, whose writes take turns as two processes' would.
    other = dialect === "postgres" ? (await instances.openInstance()).ctx : ctx;
  });

  async function account() {
    const { accountId } = await createAccountWithKey(ctx, "sandbox", CREDITS);
    await registerDlt(ctx, accountId, {
      senders: ["DAKIYA", "123456"],
      templates: [
        { templateId: TEMPLATE, content: "Hi {#name#}, your order has shipped." },
        {
          templateId: PROMO,
          content: "Hi {#name#}, 20% off today.",
          category: "promotional",
          senders: ["123456"],
        },
      ],
    });
    return { accountId, environment: "sandbox" as const };
  }

  function campaign(
    scope: { accountId: string; environment: "sandbox" },
    rows: ReturnType<typeof recipients>,
    extra = {},
  ) {
    return createCampaign(
      ctx,
      scope,
      { name: "Race", template_id: TEMPLATE, sender: "DAKIYA", recipients: rows, ...extra },
      CLI_ORIGIN,
    );
  }

  async function messagesOf(campaignId: string) {
    return ctx.db
      .selectFrom("messages")
      .select(["recipient", "status"])
      .where("campaign_id", "=", campaignId)
      .execute();
  }

  it("feeds each recipient once with two processes feeding at once", async () => {
    const scope = await account();
    const created = await campaign(scope, recipients(3_000, 0));
    const feeders = [new CampaignFeeder(ctx), new CampaignFeeder(other)];
    for (let round = 0; round < 3; round++) {
      await Promise.all(feeders.map((feeder) => feeder.feed()));
      await drainQueue(ctx);
    }
    const messages = await messagesOf(created.id);
    expect(messages).toHaveLength(3_000);
    expect(new Set(messages.map((m) => m.recipient)).size).toBe(3_000);
    await Promise.all(feeders.map((feeder) => feeder.feed()));
    const done = await ctx.db
      .selectFrom("campaigns")
      .select("status")
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    expect(done.status).toBe("completed");
    const events = await ctx.db
      .selectFrom("events")
      .select("id")
      .where("type", "=", "campaign.completed")
      .where("account_id", "=", scope.accountId)
      .execute();
    expect(events).toHaveLength(1);
  });

  it("a cancel racing two feeds leaves every recipient cancelled or fed, and refunds exactly what did not go out", async () => {
    for (let run = 0; run < 3; run++) {
      const scope = await account();
      const created = await campaign(scope, recipients(2_500, 10_000 * (run + 1)));
      const feeders = [new CampaignFeeder(ctx), new CampaignFeeder(other)];
      const [cancelled] = await Promise.all([
        cancelCampaign(other, scope, created.id, CLI_ORIGIN),
        feeders[0]?.feed(),
        feeders[1]?.feed(),
      ]);
      await Promise.all(feeders.map((feeder) => feeder.feed()));
      expect(cancelled.status).toBe("cancelled");
      const messages = await messagesOf(created.id);
      // No worker ran: every message fed was still queued, so the cancel ended it.
      expect(messages.filter((m) => m.status !== "cancelled")).toEqual([]);
      const left = await ctx.db
        .selectFrom("campaign_recipients")
        .select("seq")
        .where("campaign_id", "=", created.id)
        .execute();
      expect(left).toEqual([]);
      expect(await getBalance(ctx.db, scope.accountId, "sandbox")).toBe(CREDITS);
      expect(await sumLedger(ctx.db, scope.accountId, "sandbox")).toBe(CREDITS);
      const view = await ctx.db
        .selectFrom("campaigns")
        .select(["status", "refunded"])
        .where("id", "=", created.id)
        .executeTakeFirstOrThrow();
      expect(Number(view.refunded)).toBe(2_500 * PRICE);
    }
  });

  it("completes only once its last message is final, or submitted past its validity", async () => {
    const scope = await account();
    const created = await campaign(scope, [
      ...recipients(2, 50_000),
      { to: NO_RECEIPT, variables: { name: "Silent" } },
    ]);
    const feeder = new CampaignFeeder(ctx);
    await feeder.feed();
    await drainQueue(ctx);
    await feeder.feed();
    const statusOf = async () =>
      (
        await ctx.db
          .selectFrom("campaigns")
          .select("status")
          .where("id", "=", created.id)
          .executeTakeFirstOrThrow()
      ).status;
    expect(await statusOf()).toBe("sending");
    expect((await messagesOf(created.id)).map((m) => m.status).sort()).toEqual([
      "delivered",
      "delivered",
      "submitted",
    ]);
    instances.clock.advance(24 * 3_600 + 1);
    await feeder.feed();
    expect(await statusOf()).toBe("completed");
  });

  it("feeds a promotional campaign started at night only once the window opens", async () => {
    const scope = await account();
    // To 22:00 India time (16:30 UTC) of the clock's day or the next.
    const now = instances.clock.now().getTime();
    const day = Math.floor(now / 86_400_000) * 86_400_000;
    const night = day + 16.5 * 3_600_000 + (now >= day + 16.5 * 3_600_000 ? 86_400_000 : 0);
    instances.clock.advance((night - now) / 1000);
    const created = await createCampaign(
      ctx,
      scope,
      { name: "Offers", template_id: PROMO, sender: "123456", recipients: recipients(3, 60_000) },
      CLI_ORIGIN,
    );
    const feeder = new CampaignFeeder(ctx);
    await feeder.feed();
    expect(await messagesOf(created.id)).toEqual([]);
    // 09:00 India time is 03:30 UTC: eleven hours on.
    instances.clock.advance(11 * 3_600);
    await feeder.feed();
    expect((await messagesOf(created.id)).map((m) => m.status)).toEqual(["queued", "queued", "queued"]);
  });
});
