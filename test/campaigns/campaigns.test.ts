import { beforeAll, describe, expect, it } from "vitest";
import { getBalance, sumLedger } from "../../src/accounts/ledger.js";
import { CampaignFeeder } from "../../src/campaigns/feed.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

const TEMPLATE = "1107161234567890123";
/** One part with a Latin name, three with a Devanagari one (UCS-2). */
const LONG = "1107161234567890127";
const LONG_TEXT = `Dear {#name#}, ${"your parcel is on its way and will reach you within two working days. ".repeat(2)}`;
/** ₹0.25 a part. */
const PRICE = 2_500;
const RECIPIENT_CAP = 40;

/** The nth of a run of distinct valid Indian mobiles. */
function number(n: number): string {
  return `+9197${String(n).padStart(8, "0")}`;
}

function recipients(count: number, from = 0) {
  return Array.from({ length: count }, (_, i) => ({
    to: number(from + i),
    variables: { name: `Asha ${from + i}` },
    reference: `row-${from + i}`,
  }));
}

describe.each(DIALECTS)("campaigns on %s", (dialect) => {
  const instances = useTestInstances(dialect, {
    env: { SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: String(RECIPIENT_CAP) },
  });
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  async function account(credits = 1_000_000) {
    const created = await createAccountWithKey(ctx, "sandbox", credits);
    await registerDlt(ctx, created.accountId, {
      senders: ["DAKIYA"],
      templates: [
        { templateId: TEMPLATE, content: "Hi {#name#}, your order has shipped." },
        { templateId: LONG, content: LONG_TEXT },
      ],
    });
    return created;
  }

  function call(secret: string, method: "GET" | "POST", url: string, body?: unknown, key?: string) {
    return app.inject({
      method,
      url,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...bearer(secret),
        ...(key === undefined ? {} : { "idempotency-key": key }),
      },
    });
  }

  function create(secret: string, body: Record<string, unknown>, key?: string) {
    return call(
      secret,
      "POST",
      "/v2/campaigns",
      { name: "Shipping notes", template_id: TEMPLATE, sender: "dakiya", ...body },
      key,
    );
  }

  async function campaignMessages(campaignId: string) {
    return ctx.db
      .selectFrom("messages")
      .select(["id", "recipient", "status", "cost", "reference", "priority", "text"])
      .where("campaign_id", "=", campaignId)
      .orderBy("recipient")
      .execute();
  }

  it("checks each recipient on its own, charges the good ones once, and sends them all to completion", async () => {
    const { accountId, secret } = await account();
    const rows = [
      ...recipients(5),
      { to: "98765", variables: { name: "x" } },
      { to: number(1), variables: { name: "again" } },
      { to: number(90) },
      { to: number(91), variables: { name: "y".repeat(31) } },
      { to: number(92), variables: { name: "z", extra: "1" } },
    ];
    const response = await create(secret, { recipients: rows });
    expect(response.statusCode, response.body).toBe(202);
    const created = response.json();
    expect(created).toMatchObject({
      status: "sending",
      recipients: 10,
      accepted: 5,
      rejected: 5,
      cost: "1.2500",
      refunded: "0.0000",
      sender: "DAKIYA",
      counts: { pending: 5, queued: 0, delivered: 0 },
      progress: 0,
    });
    expect(
      created.errors.map((e: { index: number; error: { code: string; param?: string } }) => [
        e.index,
        e.error.code,
        e.error.param,
      ]),
    ).toEqual([
      [5, "invalid_request", "to"],
      [6, "invalid_request", "to"],
      [7, "missing_variable", "variables.name"],
      [8, "variable_too_long", "variables.name"],
      [9, "unknown_variable", "variables.extra"],
    ]);
    expect(created.errors[1].error.message).toContain("appears earlier in the list (recipients[1])");

    // One charge for the campaign; nothing in the queue until the feed.
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(1_000_000 - 5 * PRICE);
    expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(1_000_000 - 5 * PRICE);
    const charges = await ctx.db
      .selectFrom("ledger_entries")
      .select(["amount", "reason", "reference"])
      .where("account_id", "=", accountId)
      .where("reason", "=", "campaign_charge")
      .execute();
    expect(charges).toEqual([
      { amount: expect.anything(), reason: "campaign_charge", reference: created.id },
    ]);
    expect(await campaignMessages(created.id)).toEqual([]);

    await new CampaignFeeder(ctx).feed();
    const messages = await campaignMessages(created.id);
    expect(messages.map((m) => [m.recipient, m.status, Number(m.cost), m.reference, m.priority])).toEqual(
      recipients(5).map((r) => [r.to, "queued", PRICE, r.reference, 2]),
    );
    expect(messages[0]?.text).toBe("Hi Asha 0, your order has shipped.");

    await drainQueue(ctx);
    // The worker's next feed finds nothing left to feed nor queued.
    await new CampaignFeeder(ctx).feed();
    const done = (await call(secret, "GET", `/v2/campaigns/${created.id}`)).json();
    expect(done).toMatchObject({ status: "completed", progress: 1, counts: { pending: 0, delivered: 5 } });
    expect(done.completed_at).not.toBeNull();
    const events = await ctx.db
      .selectFrom("events")
      .select(["type", "data"])
      .where("account_id", "=", accountId)
      .where("type", "=", "campaign.completed")
      .execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]?.data as string)).toMatchObject({ id: created.id, status: "completed" });

    const message = (await call(secret, "GET", `/v2/sms/${messages[0]?.id}`)).json();
    expect(message.campaign_id).toBe(created.id);

    const list = (await call(secret, "GET", "/v2/campaigns?limit=10")).json();
    expect(list.data.map((c: { id: string }) => c.id)).toEqual([created.id]);
  });

  it("accepts 100,000 recipients in one request, charged once, and refuses one more", {
    timeout: 120_000,
  }, async () => {
    const { accountId, secret } = await account(1_000_000_000);
    const created = await create(secret, { recipients: recipients(100_000, 10_000) });
    expect(created.statusCode, created.body.slice(0, 500)).toBe(202);
    expect(created.json()).toMatchObject({
      accepted: 100_000,
      rejected: 0,
      cost: "25000.0000",
      counts: { pending: 100_000 },
    });
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(1_000_000_000 - 100_000 * PRICE);
    const tooMany = await create(secret, { recipients: recipients(100_001, 200_000) });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error).toMatchObject({ code: "invalid_request", param: "recipients" });
    await call(secret, "POST", `/v2/campaigns/${created.json().id}/cancel`);
  });

  it("refuses the whole request for what every recipient shares, writing nothing", async () => {
    const { accountId, secret } = await account();
    const unknown = await create(secret, { template_id: "1107000000000000000", recipients: recipients(2) });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: "unknown_template", param: "template_id" });
    const sender = await create(secret, { sender: "NOSUCH", recipients: recipients(2) });
    expect(sender.json().error).toMatchObject({ code: "unknown_sender", param: "sender" });
    const past = await create(secret, { send_at: "2020-01-01T00:00:00Z", recipients: recipients(2) });
    expect(past.json().error).toMatchObject({ code: "invalid_request", param: "send_at" });
    const empty = await create(secret, { recipients: [] });
    expect(empty.statusCode).toBe(400);
    const campaigns = await ctx.db
      .selectFrom("campaigns")
      .select("id")
      .where("account_id", "=", accountId)
      .execute();
    expect(campaigns).toEqual([]);
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(1_000_000);
  });

  it("refuses, in row order, the recipients the balance cannot pay for", async () => {
    const { accountId, secret } = await account(3 * PRICE + 1);
    const created = (await create(secret, { recipients: recipients(5) })).json();
    expect(created).toMatchObject({ accepted: 3, rejected: 2, cost: "0.7500" });
    expect(
      created.errors.map((e: { index: number; error: { code: string } }) => [e.index, e.error.code]),
    ).toEqual([
      [3, "insufficient_balance"],
      [4, "insufficient_balance"],
    ]);
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(1);
    await new CampaignFeeder(ctx).feed();
    expect(await campaignMessages(created.id)).toHaveLength(3);
  });

  it("feeds every paid recipient after one the balance could not pay for", async () => {
    const { secret } = await account(3 * PRICE);
    const rows = [
      { to: number(500), variables: { name: "Asha" } },
      { to: number(501), variables: { name: "आशा" } },
      { to: number(502), variables: { name: "Ravi" } },
      { to: number(503), variables: { name: "Meera" } },
    ];
    const created = (
      await create(secret, { template_id: LONG, messages_per_minute: 60, recipients: rows })
    ).json();
    expect(created).toMatchObject({ accepted: 3, rejected: 1, cost: "0.7500" });
    expect(created.errors).toEqual([
      expect.objectContaining({ index: 1, error: expect.objectContaining({ code: "insufficient_balance" }) }),
    ]);
    const feeder = new CampaignFeeder(ctx);
    for (let second = 0; second < 4; second++) {
      await feeder.feed();
      instances.clock.advance(1);
    }
    expect((await campaignMessages(created.id)).map((m) => m.recipient)).toEqual([
      number(500),
      number(502),
      number(503),
    ]);
  });

  it("waits for send_at, and paces by messages_per_minute", async () => {
    const { secret } = await account();
    const sendAt = new Date(ctx.clock.now().getTime() + 3_600_000).toISOString();
    const created = (
      await create(secret, { send_at: sendAt, messages_per_minute: 120, recipients: recipients(7) })
    ).json();
    expect(created).toMatchObject({ status: "scheduled", send_at: sendAt, messages_per_minute: 120 });
    const feeder = new CampaignFeeder(ctx);
    const fed = async () => {
      await feeder.feed();
      return (await campaignMessages(created.id)).length;
    };
    expect(await fed()).toBe(0);
    instances.clock.advance(3_600);
    // Two a second: one feed gives two, the next one waits out the second.
    expect(await fed()).toBe(2);
    expect(await fed()).toBe(2);
    instances.clock.advance(1);
    expect(await fed()).toBe(4);
    expect((await call(secret, "GET", `/v2/campaigns/${created.id}`)).json()).toMatchObject({
      status: "sending",
      counts: { pending: 3, queued: 4 },
    });
  });

  it("feeds within the hourly cap on distinct numbers, and goes on the next hour", async () => {
    const { secret } = await account();
    const created = (await create(secret, { recipients: recipients(RECIPIENT_CAP + 10, 1000) })).json();
    const feeder = new CampaignFeeder(ctx);
    for (let i = 0; i < 10; i++) await feeder.feed();
    expect(await campaignMessages(created.id)).toHaveLength(RECIPIENT_CAP);
    instances.clock.advance(3_600);
    await feeder.feed();
    expect((await call(secret, "GET", `/v2/campaigns/${created.id}`)).json().counts).toMatchObject({
      pending: 0,
      queued: RECIPIENT_CAP + 10,
    });
  });

  it("cancels what has not gone out, refunding it once, and refuses a second cancel", async () => {
    const { accountId, secret } = await account();
    const created = (
      await create(secret, { messages_per_minute: 180, recipients: recipients(9, 2000) })
    ).json();
    await new CampaignFeeder(ctx).feed();
    expect(await campaignMessages(created.id)).toHaveLength(3);
    const cancelled = await call(secret, "POST", `/v2/campaigns/${created.id}/cancel`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({
      status: "cancelled",
      counts: { pending: 0, queued: 0, cancelled: 9 },
      refunded: "2.2500",
      progress: 1,
    });
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(1_000_000);
    expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(1_000_000);
    const events = await ctx.db
      .selectFrom("events")
      .select("type")
      .where("account_id", "=", accountId)
      .where("type", "=", "sms.cancelled")
      .execute();
    expect(events).toHaveLength(3);
    const again = await call(secret, "POST", `/v2/campaigns/${created.id}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe("not_cancellable");
    await new CampaignFeeder(ctx).feed();
    expect(await campaignMessages(created.id)).toHaveLength(3);
  });

  it("answers a repeated Idempotency-Key with the same campaign, charged once", async () => {
    const { accountId, secret } = await account();
    const first = await create(secret, { recipients: recipients(4, 3000) }, "campaign-1");
    const second = await create(secret, { recipients: recipients(4, 3000) }, "campaign-1");
    expect(second.statusCode).toBe(202);
    expect(second.json().id).toBe(first.json().id);
    expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(1_000_000 - 4 * PRICE);
  });

  it("lists campaigns newest first, each with its own counts", async () => {
    const { secret } = await account();
    const sendAt = new Date(ctx.clock.now().getTime() + 3_600_000).toISOString();
    const now = (await create(secret, { recipients: recipients(3, 5000) })).json();
    instances.clock.advance(1);
    const later = (await create(secret, { send_at: sendAt, recipients: recipients(2, 5100) })).json();
    await new CampaignFeeder(ctx).feed();
    const listed = (await call(secret, "GET", "/v2/campaigns?limit=10")).json();
    expect(
      listed.data.map((c: { id: string; counts: { pending: number; queued: number } }) => [
        c.id,
        c.counts.pending,
        c.counts.queued,
      ]),
    ).toEqual([
      [later.id, 2, 0],
      [now.id, 0, 3],
    ]);
    expect(listed.data[1]).toEqual((await call(secret, "GET", `/v2/campaigns/${now.id}`)).json());
  });

  it("shows no campaign of another account or environment", async () => {
    const { secret } = await account();
    const other = await account();
    const created = (await create(secret, { recipients: recipients(1, 4000) })).json();
    expect((await call(other.secret, "GET", `/v2/campaigns/${created.id}`)).statusCode).toBe(404);
    expect((await call(other.secret, "POST", `/v2/campaigns/${created.id}/cancel`)).statusCode).toBe(404);
    expect((await call(other.secret, "GET", "/v2/campaigns")).json().data).toEqual([]);
  });
});
