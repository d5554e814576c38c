import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { sumLedger } from "../../src/accounts/ledger.js";
import type { AppContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import type { App } from "../../src/http/types.js";
import { UNLIMITED_REQUESTS } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

const OTP = "1107161234567890123";
const INACTIVE = "1107161234567890124";
/** Renders to 161+ GSM characters: two segments, ₹0.5000. */
const TWO_PARTS = "1107161234567890125";
const OTP_TEXT = (name: string, otp: string) =>
  `Hi ${name}, ${otp} is your Dakiya login code. Do not share it.`;

const PRICE = 2_500;
/** The hourly cap on distinct recipients in these tests. */
const RECIPIENT_CAP = 50;

type Item = Record<string, unknown>;

function otpItem(to: string, otp = "4821", extra: Item = {}): Item {
  return { to, sender: "DAKIYA", template_id: OTP, variables: { name: "Asha", otp }, ...extra };
}

/** The nth of a run of distinct valid Indian mobiles. */
function number(n: number): string {
  return `+9197${String(n).padStart(8, "0")}`;
}

describe.each(DIALECTS)("POST /v2/sms/batch on %s", (dialect) => {
  const env = { SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: String(RECIPIENT_CAP) };
  const instances = useTestInstances(dialect, { env });
  let ctx: AppContext;
  let app: App;
  /** A second server process on the same database. */
  let otherApp: App;
  beforeAll(async () => {
    ({ ctx, app } = instances);
    ({ app: otherApp } = await instances.openInstance({ env: { ...env, ...UNLIMITED_REQUESTS } }));
  });

  async function account(environment: Environment = "sandbox", credits = 1_000_000) {
    const created = await createAccountWithKey(ctx, environment, credits);
    await registerDlt(ctx, created.accountId, {
      senders: ["DAKIYA", "OTHERS"],
      templates: [
        { templateId: OTP, content: "Hi {#name#}, {#otp#} is your Dakiya login code. Do not share it." },
        { templateId: INACTIVE, content: "Your order {#order#} has shipped.", status: "inactive" },
        { templateId: TWO_PARTS, content: `Statement {#ref#} ${"x".repeat(160)}` },
      ],
    });
    return created;
  }

  function batch(
    secret: string,
    body: unknown,
    options: { target?: App; idempotencyKey?: string; raw?: string } = {},
  ) {
    return (options.target ?? app).inject({
      method: "POST",
      url: "/v2/sms/batch",
      payload: options.raw ?? JSON.stringify(body),
      headers: {
        "content-type": "application/json",
        ...bearer(secret),
        ...(options.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey }),
      },
    });
  }

  async function balanceOf(accountId: string, environment: Environment = "sandbox"): Promise<number> {
    const row = await ctx.db
      .selectFrom("balances")
      .select("balance")
      .where("account_id", "=", accountId)
      .where("environment", "=", environment)
      .executeTakeFirstOrThrow();
    return Number(row.balance);
  }

  async function messagesOf(accountId: string) {
    return ctx.db
      .selectFrom("messages")
      .select(["id", "recipient", "status", "cost"])
      .where("account_id", "=", accountId)
      .execute();
  }

  async function recipientsCounted(accountId: string): Promise<{ rows: string[]; count: number }> {
    const rows = await ctx.db
      .selectFrom("sms_recipient_hours")
      .select("recipient")
      .where("account_id", "=", accountId)
      .orderBy("recipient")
      .execute();
    const counter = await ctx.db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("key", "=", `sms-recipients:${accountId}:sandbox`)
      .executeTakeFirst();
    return { rows: rows.map((row) => row.recipient), count: Number(counter?.count ?? 0) };
  }

  it("checks, charges and queues each item on its own, answering in request order", async () => {
    const { accountId, secret } = await account("sandbox", 1_000_000);
    const response = await batch(secret, {
      messages: [
        otpItem(number(1), "1111", { reference: "first" }),
        otpItem("98765"),
        otpItem(number(2), "2222", { sender: "NOSUCH" }),
        otpItem(number(3), "3333", { template_id: "1107000000000000000" }),
        otpItem(number(4), "4444", { template_id: INACTIVE, variables: { order: "A1" } }),
        otpItem(number(5), "5555", { sender: "OTHERS" }),
        { to: number(6), sender: "DAKIYA", template_id: OTP, variables: { name: "Asha" } },
        otpItem(number(7), "12345678901234567890123456789012"),
        otpItem("+14155550100"),
        otpItem(number(8), "8888"),
      ],
    });
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body.accepted).toBe(2);
    expect(body.rejected).toBe(8);
    expect(body.data.map((item: { error?: { code: string; param?: string } }) => item.error ?? null)).toEqual(
      [
        null,
        expect.objectContaining({ code: "invalid_request", param: "to" }),
        expect.objectContaining({ code: "unknown_sender", param: "sender" }),
        expect.objectContaining({ code: "unknown_template", param: "template_id" }),
        expect.objectContaining({ code: "template_inactive", param: "template_id" }),
        expect.objectContaining({ code: "template_sender_mismatch", param: "sender" }),
        expect.objectContaining({ code: "missing_variable", param: "variables.otp" }),
        expect.objectContaining({ code: "variable_too_long", param: "variables.otp" }),
        expect.objectContaining({ code: "unsupported_destination", param: "to" }),
        null,
      ],
    );
    const [first, last] = [body.data[0], body.data[9]];
    expect(first).toMatchObject({
      status: "queued",
      environment: "sandbox",
      to: number(1),
      sender: "DAKIYA",
      template_id: OTP,
      reference: "first",
      text: OTP_TEXT("Asha", "1111"),
      encoding: "gsm7",
      segments: 1,
      cost: "0.2500",
      currency: "INR",
    });
    expect(first.id).toMatch(/^msg_/);
    expect(last).toMatchObject({ to: number(8), text: OTP_TEXT("Asha", "8888"), reference: null });
    // No request id in an item's error: the response has one, in its header.
    expect(body.data[1].error.request_id).toBeUndefined();

    // Exactly the accepted ones were charged, stored and counted.
    expect(await balanceOf(accountId)).toBe(1_000_000 - 2 * PRICE);
    expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(1_000_000 - 2 * PRICE);
    expect((await messagesOf(accountId)).map((m) => m.id).sort()).toEqual([first.id, last.id].sort());
    expect(await recipientsCounted(accountId)).toEqual({ rows: [number(1), number(8)], count: 2 });

    // Each can be fetched like any message, and the worker delivers them to the sandbox inbox.
    await drainQueue(ctx);
    for (const sent of [first, last]) {
      const fetched = await app.inject({ method: "GET", url: `/v2/sms/${sent.id}`, headers: bearer(secret) });
      expect(fetched.json()).toMatchObject({ id: sent.id, status: "delivered" });
      const inbox = await app.inject({
        method: "GET",
        url: `/v2/sandbox/messages?to=${encodeURIComponent(sent.to)}`,
        headers: bearer(secret),
      });
      expect(inbox.json().data).toEqual([expect.objectContaining({ message_id: sent.id, text: sent.text })]);
    }
  });

  it("writes each item's charge to the ledger in request order, with the balance after it", async () => {
    const credits = 1_000_000;
    const { accountId, secret } = await account("sandbox", credits);
    const response = await batch(secret, {
      messages: [
        otpItem(number(51)),
        { to: number(52), sender: "DAKIYA", template_id: TWO_PARTS, variables: { ref: "S1" } },
        otpItem("98765"),
        otpItem(number(51), "5151"),
        otpItem(number(53)),
      ],
    });
    expect(response.statusCode).toBe(202);
    const body = response.json<{ data: Array<{ id?: string; cost?: string }>; accepted: number }>();
    expect(body.accepted).toBe(4);
    const sent = body.data.filter((item) => item.id !== undefined);
    const entries = await ctx.db
      .selectFrom("ledger_entries")
      .select(["amount", "balance_after", "reason", "reference"])
      .where("account_id", "=", accountId)
      .where("reason", "=", "sms_charge")
      .execute();
    const byReference = new Map(entries.map((entry) => [entry.reference, entry]));
    let balance = credits;
    for (const item of sent) {
      const cost = Math.round(Number(item.cost) * 10_000);
      balance -= cost;
      expect(byReference.get(item.id as string)).toMatchObject({ amount: -cost, balance_after: balance });
    }
    expect(entries).toHaveLength(4);
    expect(balance).toBe(credits - 5 * PRICE);
    expect(await balanceOf(accountId)).toBe(balance);
    expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(balance);
    // A number twice in one batch counts once.
    expect(await recipientsCounted(accountId)).toEqual({
      rows: [number(51), number(52), number(53)],
      count: 3,
    });
  });

  it("charges items until the balance runs out, and still takes a later one it can pay", async () => {
    // ₹0.8500: three one-part messages, with ₹0.1000 left.
    const credits = 3 * PRICE + 1_000;
    const { accountId, secret } = await account("sandbox", credits);
    const response = await batch(secret, {
      messages: [
        otpItem(number(101)),
        otpItem(number(102)),
        // Two parts, ₹0.5000: more than the ₹0.3500 left.
        { to: number(103), sender: "DAKIYA", template_id: TWO_PARTS, variables: { ref: "S1" } },
        otpItem(number(104)),
        otpItem(number(105)),
        otpItem(number(106)),
      ],
    });
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body).toMatchObject({ accepted: 3, rejected: 3 });
    expect(
      body.data.map((item: { error?: { code: string }; status?: string }) => item.error?.code ?? item.status),
    ).toEqual([
      "queued",
      "queued",
      "insufficient_balance",
      "queued",
      "insufficient_balance",
      "insufficient_balance",
    ]);
    expect(await balanceOf(accountId)).toBe(credits - 3 * PRICE);
    expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(await balanceOf(accountId));
    expect(await messagesOf(accountId)).toHaveLength(3);
    // The refused items' numbers are not counted against the hourly cap.
    expect(await recipientsCounted(accountId)).toEqual({
      rows: [number(101), number(102), number(104)],
      count: 3,
    });
  });

  it("applies the hourly recipient cap to each item, counting a number once", async () => {
    const { accountId, secret } = await account();
    const first = await batch(secret, {
      messages: Array.from({ length: RECIPIENT_CAP - 2 }, (_, i) => otpItem(number(200 + i))),
    });
    expect(first.json()).toMatchObject({ accepted: RECIPIENT_CAP - 2, rejected: 0 });

    const response = await batch(secret, {
      messages: [
        otpItem(number(300)),
        otpItem(number(300)),
        otpItem(number(301)),
        otpItem(number(302)),
        // Already sent to this hour: not a new recipient.
        otpItem(number(200)),
        otpItem(number(301)),
      ],
    });
    const body = response.json();
    expect(
      body.data.map((item: { error?: { code: string }; status?: string }) => item.error?.code ?? item.status),
    ).toEqual(["queued", "queued", "queued", "rate_limited", "queued", "queued"]);
    expect(body.data[3].error.retry_after).toBeGreaterThan(0);
    const counted = await recipientsCounted(accountId);
    expect(counted.count).toBe(RECIPIENT_CAP);
    expect(counted.rows).toHaveLength(RECIPIENT_CAP);
    expect(counted.rows).not.toContain(number(302));
  });

  it("counts as one request against the key's rate limit", async () => {
    const { secret } = await account();
    const before = await app.inject({ method: "GET", url: "/v2/balance", headers: bearer(secret) });
    const remaining = Number(before.headers["ratelimit-remaining"]);
    const response = await batch(secret, {
      messages: Array.from({ length: 20 }, (_, i) => otpItem(number(400 + i))),
    });
    expect(response.statusCode).toBe(202);
    expect(Number(response.headers["ratelimit-remaining"])).toBe(remaining - 1);
  });

  it("replays the whole batch for its Idempotency-Key and charges it once", async () => {
    const { accountId, secret } = await account("sandbox", 1_000_000);
    const body = { messages: [otpItem(number(501)), otpItem("bad"), otpItem(number(502))] };
    const first = await batch(secret, body, { idempotencyKey: "batch-1" });
    expect(first.statusCode).toBe(202);
    const again = await batch(secret, body, { idempotencyKey: "batch-1", target: otherApp });
    expect(again.statusCode).toBe(202);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body).toBe(first.body);
    expect(await messagesOf(accountId)).toHaveLength(2);
    expect(await balanceOf(accountId)).toBe(1_000_000 - 2 * PRICE);

    const changed = await batch(secret, { messages: [otpItem(number(503))] }, { idempotencyKey: "batch-1" });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().error.code).toBe("idempotency_key_reused");
    expect(await messagesOf(accountId)).toHaveLength(2);
  });

  it("writes nothing of a batch that fails midway, and releases its Idempotency-Key", async () => {
    const { accountId, secret } = await account("sandbox", 1_000_000);
    await failInsertsOfReference(ctx, "boom");
    const body = {
      messages: [
        otpItem(number(601)),
        otpItem(number(602)),
        otpItem(number(603), "1234", { reference: "boom" }),
      ],
    };
    const failed = await batch(secret, body, { idempotencyKey: "batch-crash" });
    expect(failed.statusCode).toBe(500);
    expect(await messagesOf(accountId)).toEqual([]);
    expect(await balanceOf(accountId)).toBe(1_000_000);
    expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(1_000_000);
    expect(await recipientsCounted(accountId)).toEqual({ rows: [], count: 0 });

    await dropFailingInserts(ctx);
    const retried = await batch(secret, body, { idempotencyKey: "batch-crash" });
    expect(retried.statusCode).toBe(202);
    expect(retried.json()).toMatchObject({ accepted: 3, rejected: 0 });
    expect(await balanceOf(accountId)).toBe(1_000_000 - 3 * PRICE);
  });

  it("refuses a body of the wrong shape as a whole, with the item's path", async () => {
    const { accountId, secret } = await account();
    const cases: Array<[unknown, string | undefined]> = [
      [
        {
          messages: [
            otpItem(number(701)),
            otpItem(number(702)),
            otpItem(number(703)),
            { ...otpItem(number(704)), to: 5 },
          ],
        },
        "messages.3.to",
      ],
      [{ messages: [{ ...otpItem(number(701)), colour: "red" }] }, "messages.0.colour"],
      [{ messages: [{ to: number(701), sender: "DAKIYA" }] }, "messages.0.template_id"],
      [{ messages: otpItem(number(701)) }, "messages"],
      [{ messages: [] }, "messages"],
      [{ messages: Array.from({ length: 1_001 }, (_, i) => otpItem(number(i))) }, "messages"],
      [{}, "messages"],
      [[otpItem(number(701))], undefined],
    ];
    for (const [body, param] of cases) {
      const response = await batch(secret, body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.json().error).toMatchObject({ code: "invalid_request", ...(param ? { param } : {}) });
    }
    expect(await messagesOf(accountId)).toEqual([]);
  });

  it("takes 1,000 items in a body up to 1 MiB, and refuses a larger body with 413", async () => {
    const { accountId, secret } = await account("sandbox", 3_000_000);
    const thousand = {
      messages: Array.from({ length: 1_000 }, (_, i) =>
        otpItem(number(10_000 + (i % 10)), "1234", { reference: "r".repeat(64) }),
      ),
    };
    expect(JSON.stringify(thousand).length).toBeGreaterThan(16 * 1024);
    const accepted = await batch(secret, thousand);
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json()).toMatchObject({ accepted: 1_000, rejected: 0 });
    expect(accepted.json().data.map((m: { to: string }) => m.to)).toEqual(thousand.messages.map((m) => m.to));
    expect(await balanceOf(accountId)).toBe(3_000_000 - 1_000 * PRICE);

    const oversized = JSON.stringify({
      messages: [otpItem(number(1), "1234", { reference: "x".repeat(64) })],
    }).replace('"messages"', `"padding_field_${" ".repeat(1024 * 1024)}":1,"messages"`);
    const refused = await batch(secret, undefined, { raw: oversized });
    expect(refused.statusCode).toBe(413);
    expect(refused.json().error).toMatchObject({ code: "payload_too_large" });
    expect(refused.json().error.message).toContain("1 MiB");

    // The single send keeps its 16 KiB.
    const single = await app.inject({
      method: "POST",
      url: "/v2/sms/send",
      payload: JSON.stringify({ ...otpItem(number(2)), reference: "x".repeat(17 * 1024) }),
      headers: { "content-type": "application/json", ...bearer(secret) },
    });
    expect(single.statusCode).toBe(413);
    expect(single.json().error.message).toContain("16 KiB");
  });

  it("is documented in the OpenAPI document", async () => {
    const spec = (await app.inject({ method: "GET", url: "/openapi.json" })).json();
    const operation = spec.paths["/v2/sms/batch"].post;
    const body = operation.requestBody.content["application/json"].schema;
    expect(body.properties.messages).toMatchObject({ type: "array", minItems: 1, maxItems: 1_000 });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["202", "400", "413", "429"]));
  });

  it("refuses every live item when no SMSC is configured", async () => {
    const { accountId, secret } = await account("live", 1_000_000);
    const response = await batch(secret, { messages: [otpItem(number(801)), otpItem(number(802))] });
    expect(response.json()).toMatchObject({ accepted: 0, rejected: 2 });
    expect(response.json().data[0].error.code).toBe("channel_not_configured");
    expect(await balanceOf(accountId, "live")).toBe(1_000_000);
  });

  // Two servers in one test process can only share a PostgreSQL database: on SQLite one would
  // block the process's event loop waiting for the other's write lock. There, both go to one server.
  it("never overspends with two batches at once on two servers, sharing numbers", async () => {
    const credits = 30 * PRICE;
    const { accountId, secret } = await account("sandbox", credits);
    const shared = (offset: number) =>
      Array.from({ length: 25 }, (_, i) => otpItem(number(900 + ((i + offset) % 30))));
    const [a, b] = await Promise.all([
      batch(secret, { messages: shared(0) }),
      batch(secret, { messages: shared(10) }, { target: dialect === "postgres" ? otherApp : app }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
    const accepted = a.json().accepted + b.json().accepted;
    expect(accepted).toBe(30);
    expect(a.json().rejected + b.json().rejected).toBe(20);
    expect(await balanceOf(accountId)).toBe(0);
    expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(0);
    const messages = await messagesOf(accountId);
    expect(messages).toHaveLength(30);
    // Each number sent to is counted once, whichever batch sent to it first.
    const sentTo = [...new Set(messages.map((m) => m.recipient))].sort();
    expect(await recipientsCounted(accountId)).toEqual({ rows: sentTo, count: sentTo.length });
  });
});

/** Makes the database refuse to store a message with this reference: a failure midway through a batch. */
async function failInsertsOfReference(ctx: AppContext, reference: string): Promise<void> {
  if (ctx.dialect === "sqlite") {
    await sql
      .raw(
        `create trigger fail_batch_insert before insert on messages when new.reference = '${reference}' begin select raise(abort, 'refused by the test'); end`,
      )
      .execute(ctx.db);
    return;
  }
  await sql
    .raw(
      `create function fail_batch_insert() returns trigger language plpgsql as $$ begin if new.reference = '${reference}' then raise exception 'refused by the test'; end if; return new; end $$`,
    )
    .execute(ctx.db);
  await sql
    .raw(
      "create trigger fail_batch_insert before insert on messages for each row execute function fail_batch_insert()",
    )
    .execute(ctx.db);
}

async function dropFailingInserts(ctx: AppContext): Promise<void> {
  if (ctx.dialect === "sqlite") {
    await sql.raw("drop trigger fail_batch_insert").execute(ctx.db);
    return;
  }
  await sql.raw("drop trigger fail_batch_insert on messages").execute(ctx.db);
  await sql.raw("drop function fail_batch_insert()").execute(ctx.db);
}
