import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, sumLedger } from "../../src/accounts/ledger.js";
import { purgeAbandonedCampaigns } from "../../src/campaigns/create.js";
import type { AppContext } from "../../src/context.js";
import { systemClock } from "../../src/lib/clock.js";
import { openTestContext, TEST_SECRET } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

/**
 * A campaign's acceptance killed with SIGKILL: while its recipients are being written, and at
 * random moments. Whatever the kill interrupted, the campaign afterwards is either whole —
 * every recipient accepted, charged once, fed or waiting — or absent, charged nothing; and the
 * client's retry with the same Idempotency-Key makes exactly one.
 */

const RECIPIENTS = 20_000;
/** One GSM-7 segment at the default price, ₹0.25. */
const PRICE = 2_500;
const CREDITS = 1_000_000_000;
const LOCK_SECONDS = 2;

function campaignBody(name: string) {
  return {
    name,
    template_id: SMS_TEMPLATE_ID,
    sender: "DAKIYA",
    recipients: Array.from({ length: RECIPIENTS }, (_, i) => ({
      to: `+9196${String(i).padStart(8, "0")}`,
      variables: { ref: `R${i}` },
    })),
  };
}

describe.each(DIALECTS)("a campaign's acceptance across SIGKILL on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let server: ServerProcess | undefined;
  let accountId: string;
  let secret: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: systemClock });
    ({ accountId, secret } = await createSendingAccount(ctx, CREDITS));
    env = {
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      IDEMPOTENCY_LOCK_SECONDS: String(LOCK_SECONDS),
      SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "10000000",
    };
  }, 30_000);

  afterAll(async () => {
    await server?.kill();
    await ctx?.close();
    await database?.drop();
  });

  function post(url: string, body: unknown, key: string): Promise<Response> {
    return fetch(`${url}/v2/campaigns`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        "idempotency-key": key,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
  }

  /** Posts with the key until an answer that is not "the killed holder still has the key" comes. */
  async function postUntilAnswered(url: string, body: unknown, key: string): Promise<Response> {
    for (;;) {
      const response = await post(url, body, key);
      if (response.status !== 409) return response;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function accountState() {
    const campaigns = await ctx.db
      .selectFrom("campaigns")
      .select(["id", "status", "accepted", "cost"])
      .where("account_id", "=", accountId)
      .execute();
    const waiting = await ctx.db
      .selectFrom("campaign_recipients")
      .select(["campaign_id", (eb) => eb.fn.countAll<number | string>().as("n")])
      .groupBy("campaign_id")
      .execute();
    const messages = await ctx.db
      .selectFrom("messages")
      .select(["campaign_id", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("account_id", "=", accountId)
      .groupBy("campaign_id")
      .execute();
    return {
      campaigns,
      waitingOf: (id: string) => Number(waiting.find((row) => row.campaign_id === id)?.n ?? 0),
      messagesOf: (id: string) => Number(messages.find((row) => row.campaign_id === id)?.n ?? 0),
      balance: await getBalance(ctx.db, accountId, "sandbox"),
      ledger: await sumLedger(ctx.db, accountId, "sandbox"),
    };
  }

  /** Every campaign shown is whole; every other one is still accepting, charged nothing. */
  async function expectWholeOrAbsent(): Promise<number> {
    const state = await accountState();
    let charged = 0;
    for (const campaign of state.campaigns) {
      if (campaign.status === "accepting") continue;
      expect(campaign.accepted).toBe(RECIPIENTS);
      expect(Number(campaign.cost)).toBe(RECIPIENTS * PRICE);
      expect(state.waitingOf(campaign.id) + state.messagesOf(campaign.id)).toBe(RECIPIENTS);
      charged += Number(campaign.cost);
    }
    expect(state.balance).toBe(CREDITS - charged);
    expect(state.ledger).toBe(state.balance);
    return charged / (RECIPIENTS * PRICE);
  }

  it("leaves a campaign killed while its recipients are written unseen and uncharged; the retry makes it once", {
    timeout: 240_000,
  }, async () => {
    server = await startServerProcess(env);
    const body = campaignBody("killed while written");
    const request = post(server.url, body, "campaign-killed").catch(() => undefined);
    // Kill once recipients are being written but before the campaign is accepted.
    await waitFor(
      async () => {
        const state = await accountState();
        return state.campaigns.some((c) => c.status === "accepting" && state.waitingOf(c.id) > 0);
      },
      60_000,
      5,
    );
    await server.kill();
    await request;

    expect(await expectWholeOrAbsent()).toBe(0);
    const orphan = (await accountState()).campaigns.filter((c) => c.status === "accepting");
    expect(orphan).toHaveLength(1);

    server = await startServerProcess(env);
    const listed = await fetch(`${server.url}/v2/campaigns`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);

    const retried = await postUntilAnswered(server.url, body, "campaign-killed");
    expect(retried.status).toBe(202);
    const campaign = (await retried.json()) as { id: string; accepted: number };
    expect(campaign.accepted).toBe(RECIPIENTS);
    const replayed = await postUntilAnswered(server.url, body, "campaign-killed");
    expect(((await replayed.json()) as { id: string }).id).toBe(campaign.id);
    expect(await expectWholeOrAbsent()).toBe(1);

    // An hour on, the maintenance sweep removes what the kill left, and only that.
    expect(await purgeAbandonedCampaigns(ctx, new Date(Date.now() + 2 * 3_600_000))).toBe(1);
    const after = await accountState();
    expect(after.campaigns.map((c) => c.id)).toEqual([campaign.id]);
    expect(after.waitingOf(orphan[0]?.id as string)).toBe(0);
    await server.kill();
  });

  it("at any moment, leaves each campaign whole or absent", { timeout: 240_000 }, async () => {
    for (const [run, killAfterMs] of [150, 700, 1_500, 3_000].entries()) {
      server = await startServerProcess(env);
      const request = post(server.url, campaignBody(`run ${run}`), `campaign-run-${run}`).catch(
        () => undefined,
      );
      await new Promise((resolve) => setTimeout(resolve, killAfterMs));
      await server.kill();
      await request;
      await expectWholeOrAbsent();
    }
  });
});
