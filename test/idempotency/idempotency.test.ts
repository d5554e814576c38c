import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { claimIdempotencyKey, requestFingerprint } from "../../src/idempotency/idempotency.js";
import { IdempotentResponse } from "../../src/idempotency/recorder.js";
import type { KeyPrincipal } from "../../src/keys/authenticate.js";
import { createKey } from "../../src/keys/keys.js";
import { purgeExpired } from "../../src/maintenance.js";
import type { MessageView } from "../../src/messages/store.js";
import { sendSms } from "../../src/sms/send.js";
import { DIALECTS } from "../helpers/database.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";
import { addProbeRoutes } from "../helpers/probe-routes.js";
import { rawExchange } from "../helpers/raw-http.js";

describe.each(DIALECTS)("Idempotency-Key on %s", (dialect) => {
  const instances = useTestInstances(dialect, {
    secondInstance: dialect === "postgres",
    setup: addProbeRoutes,
  });
  let ctx: AppContext;
  let app: App;
  /**
   * A second instance on the same database, as a second server process would be. Only on
   * PostgreSQL: better-sqlite3 blocks its thread while it waits for a lock, so two SQLite
   * connections in one process would wait on each other.
   */
  let otherApp: App;
  beforeAll(() => {
    ({ ctx, app, otherApp } = instances);
  });

  function charge(
    secret: string,
    key: string | undefined,
    body: Record<string, unknown> | string,
    target: App = app,
    url = "/v2/probe/charges",
  ) {
    return target.inject({
      method: "POST",
      url,
      payload: typeof body === "string" ? body : JSON.stringify(body),
      headers: {
        "content-type": "application/json",
        ...bearer(secret),
        ...(key === undefined ? {} : { "idempotency-key": key }),
      },
    });
  }

  const chargesOf = async (accountId: string) =>
    ctx.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("reason", "=", "probe_charge")
      .execute();

  it("replays the first response for a repeat, and charges once", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const first = await charge(secret, "order-1", { amount: "1.0000", note: "a" });
    expect(first.statusCode).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();

    const again = await charge(secret, "order-1", { note: "a", amount: "1.0000" }, otherApp);
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    expect(again.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("without the header, every request is new", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    await charge(secret, undefined, { amount: "1.0000" });
    await charge(secret, undefined, { amount: "1.0000" });
    expect(await chargesOf(accountId)).toHaveLength(2);
  });

  it("a different body or path with the same key → 422 idempotency_key_reused, nothing done", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    await charge(secret, "k", { amount: "1.0000" });
    const otherBody = await charge(secret, "k", { amount: "2.0000" });
    expect(otherBody.statusCode).toBe(422);
    expect(otherBody.json().error.code).toBe("idempotency_key_reused");
    const otherPath = await charge(secret, "k", {}, app, "/v2/probe/crash");
    expect(otherPath.statusCode).toBe(422);
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("while the first is running → 409 idempotency_key_in_use, then the replay", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const body = { amount: "1.0000", delay_ms: 400 };
    const first = charge(secret, "slow", body);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await charge(secret, "slow", body, otherApp);
    expect(during.statusCode).toBe(409);
    expect(during.json().error.code).toBe("idempotency_key_in_use");
    expect((await first).statusCode).toBe(201);
    const after = await charge(secret, "slow", body, otherApp);
    expect(after.headers["idempotent-replayed"]).toBe("true");
    expect(after.json()).toEqual((await first).json());
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("20 concurrent requests with one key give one result and one charge", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const body = { amount: "1.0000", note: "burst", delay_ms: 50 };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => charge(secret, "burst-key", body, i % 2 === 0 ? app : otherApp)),
    );
    const executed = responses.filter((r) => r.statusCode === 201 && !r.headers["idempotent-replayed"]);
    expect(executed).toHaveLength(1);
    for (const response of responses) {
      if (response.statusCode === 409) continue;
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual(executed[0]?.json());
    }
    expect(await chargesOf(accountId)).toHaveLength(1);
    const replay = await charge(secret, "burst-key", body);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.json()).toEqual(executed[0]?.json());
  });

  it("does not store a 4xx answer of the work: the same request runs again once its cause is fixed", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 10_000);
    const first = await charge(secret, "too-much", { amount: "5.0000" });
    expect(first.statusCode).toBe(402);
    expect(await chargesOf(accountId)).toHaveLength(0);
    await ctx.db
      .updateTable("balances")
      .set({ balance: 1_000_000 })
      .where("account_id", "=", accountId)
      .execute();
    const again = await charge(secret, "too-much", { amount: "5.0000" });
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBeUndefined();
    expect(await chargesOf(accountId)).toHaveLength(1);
    const replay = await charge(secret, "too-much", { amount: "5.0000" });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.body).toBe(again.body);
  });

  it("does not store requests refused by validation, nor 5xx answers", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    expect((await charge(secret, "v", { amount: "bad" })).statusCode).toBe(400);
    const valid = await charge(secret, "v", { amount: "1.0000" });
    expect(valid.statusCode).toBe(201);
    expect(valid.headers["idempotent-replayed"]).toBeUndefined();

    const crash = await charge(secret, "c", {}, app, "/v2/probe/crash");
    expect(crash.statusCode).toBe(500);
    const retry = await charge(secret, "c", {}, app, "/v2/probe/crash");
    expect(retry.statusCode).toBe(500);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("refuses a request with Idempotency-Key twice, which Node would join into one key", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const body = JSON.stringify({ amount: "1.0000" });
    for (const keys of [
      ["a", "b"],
      ["same", "same"],
      ["a", "b", "c"],
    ]) {
      const twice = await app.inject({
        method: "POST",
        url: "/v2/probe/charges",
        payload: body,
        headers: { "content-type": "application/json", ...bearer(secret), "idempotency-key": keys },
      });
      expect(twice.statusCode, twice.body).toBe(400);
      expect(twice.json().error).toMatchObject({ code: "invalid_request", param: "Idempotency-Key" });
      expect(twice.json().error.message).toMatch(/once/);
    }
    // The same over a real connection: two header lines reach Node's parser.
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const exchange = await rawExchange(
      `http://127.0.0.1:${port}`,
      "POST /v2/probe/charges HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `Authorization: Bearer ${secret}\r\nIdempotency-Key: a\r\nidempotency-key: b\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(exchange.responses[0]?.status, exchange.text).toBe(400);
    expect(JSON.parse(exchange.responses[0]?.body ?? "{}").error.param).toBe("Idempotency-Key");
    expect(await chargesOf(accountId)).toHaveLength(0);

    // One header whose value holds a comma is one key, as before.
    const one = await charge(secret, "a, b", { amount: "1.0000" });
    expect(one.statusCode, one.body).toBe(201);
    expect((await charge(secret, "a, b", { amount: "1.0000" })).headers["idempotent-replayed"]).toBe("true");
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it("is scoped to the account and the environment", async () => {
    const a = await createAccountWithKey(ctx, "sandbox", 100_000);
    const b = await createAccountWithKey(ctx, "sandbox", 100_000);
    const aLive = await createKey(ctx, { accountId: a.accountId, environment: "live" }, CLI_ORIGIN);
    await ctx.db
      .updateTable("balances")
      .set({ balance: 100_000 })
      .where("account_id", "=", a.accountId)
      .execute();

    const first = await charge(a.secret, "shared", { amount: "1.0000" });
    const otherAccount = await charge(b.secret, "shared", { amount: "1.0000" });
    const otherEnvironment = await charge(aLive.secret, "shared", { amount: "1.0000" });
    for (const response of [first, otherAccount, otherEnvironment]) {
      expect(response.statusCode).toBe(201);
      expect(response.headers["idempotent-replayed"]).toBeUndefined();
    }
    expect(await chargesOf(a.accountId)).toHaveLength(2);
    expect(await chargesOf(b.accountId)).toHaveLength(1);
  });

  it("keeps a key 24 hours, then purges it and treats the key as new", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    await charge(secret, "day", { amount: "1.0000" });
    instances.clock.advance(23 * 3600);
    expect((await charge(secret, "day", { amount: "2.0000" })).statusCode).toBe(422);
    instances.clock.advance(3600);
    const fresh = await charge(secret, "day", { amount: "2.0000" });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers["idempotent-replayed"]).toBeUndefined();

    await charge(secret, "to-purge", { amount: "1.0000" });
    instances.clock.advance(24 * 3600 + 1);
    const purged = await purgeExpired(ctx);
    expect(purged.idempotencyKeys).toBeGreaterThanOrEqual(2);
    const left = await ctx.db
      .selectFrom("idempotency_keys")
      .select("key")
      .where("account_id", "=", accountId)
      .execute();
    expect(left).toEqual([]);
  });

  it("takes over a key whose first request died holding it", async () => {
    const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const body = { amount: "1.0000" };
    const first = await charge(secret, "orphan", body);
    // What a process that crashed mid-request leaves behind: a claim with no response.
    await ctx.db
      .updateTable("idempotency_keys")
      .set({ response_status: null, response_body: null, locked_until: instances.clock.now().toISOString() })
      .where("account_id", "=", accountId)
      .execute();
    await ctx.db.deleteFrom("ledger_entries").where("id", "=", first.json().id).execute();
    instances.clock.advance(1);
    const retried = await charge(secret, "orphan", body);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers["idempotent-replayed"]).toBeUndefined();
    expect(await chargesOf(accountId)).toHaveLength(1);
  });

  it.each([
    ["too long", "k".repeat(256)],
    ["not printable ASCII", "clé-1"],
  ])("refuses an Idempotency-Key that is %s with 400", async (_name, key) => {
    const { secret } = await createAccountWithKey(ctx, "sandbox", 100_000);
    const response = await charge(secret, key, { amount: "1.0000" });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: "invalid_request", param: "Idempotency-Key" });
  });
});

/** Item 2 of the hardening issue, and the answer stored with the effect, on the real send routes. */
describe.each(DIALECTS)("Idempotency-Key on the send routes, %s", (dialect) => {
  const SMS = {
    to: "+919876543210",
    sender: "DAKIYA",
    template_id: SMS_TEMPLATE_ID,
    variables: { ref: "A1" },
  };

  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  function post(secret: string, key: string, url: string, body: Record<string, unknown>) {
    return app.inject({
      method: "POST",
      url,
      payload: JSON.stringify(body),
      headers: { "content-type": "application/json", ...bearer(secret), "idempotency-key": key },
    });
  }

  const messagesOf = (accountId: string) =>
    ctx.db.selectFrom("messages").select(["id", "cost"]).where("account_id", "=", accountId).execute();

  async function balanceOf(accountId: string): Promise<number> {
    const row = await ctx.db
      .selectFrom("balances")
      .select("balance")
      .where("account_id", "=", accountId)
      .where("environment", "=", "sandbox")
      .executeTakeFirstOrThrow();
    return Number(row.balance);
  }

  it("a 400 from the phone check is not stored: the corrected request with the key is sent", async () => {
    const { accountId, secret } = await createSendingAccount(ctx, 1_000_000);
    const refused = await post(secret, "fix-to", "/v2/sms/send", { ...SMS, to: "+91123" });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({ code: "invalid_request", param: "to" });

    const corrected = await post(secret, "fix-to", "/v2/sms/send", SMS);
    expect(corrected.statusCode, corrected.body).toBe(202);
    expect(corrected.headers["idempotent-replayed"]).toBeUndefined();
    expect(await messagesOf(accountId)).toHaveLength(1);
  });

  it("a 402 is not stored: after a top-up the same request with the key is sent and charged once", async () => {
    const { accountId, secret } = await createSendingAccount(ctx, 0);
    const refused = await post(secret, "top-up", "/v2/sms/send", SMS);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error.code).toBe("insufficient_balance");
    await changeBalance(ctx, {
      accountId,
      environment: "sandbox",
      amount: 10_000,
      reason: "credits_added",
      reference: null,
    });

    const sent = await post(secret, "top-up", "/v2/sms/send", SMS);
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.headers["idempotent-replayed"]).toBeUndefined();
    const replay = await post(secret, "top-up", "/v2/sms/send", SMS);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(await messagesOf(accountId)).toHaveLength(1);
    expect(await balanceOf(accountId)).toBe(10_000 - 2_500);
  });

  it("a 422 semantic error is not stored: the corrected request with the key is sent", async () => {
    const { accountId, secret } = await createSendingAccount(ctx, 1_000_000);
    const refused = await post(secret, "fix-template", "/v2/sms/send", { ...SMS, template_id: "999" });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.code).toBe("unknown_template");

    const corrected = await post(secret, "fix-template", "/v2/sms/send", SMS);
    expect(corrected.statusCode, corrected.body).toBe(202);
    expect(corrected.headers["idempotent-replayed"]).toBeUndefined();
    expect(await messagesOf(accountId)).toHaveLength(1);
  });

  it("an OTP send refused in its cooldown is not stored: after the cooldown the key sends it again", async () => {
    const { accountId, secret } = await createSendingAccount(ctx, 1_000_000);
    const first = await post(secret, "otp-1", "/v2/otp/send", { to: SMS.to });
    expect(first.statusCode, first.body).toBe(200);
    const early = await post(secret, "otp-2", "/v2/otp/send", { to: SMS.to });
    expect(early.statusCode).toBe(429);
    expect(early.json().error.code).toBe("resend_cooldown");

    instances.clock.advance(31);
    const resent = await post(secret, "otp-2", "/v2/otp/send", { to: SMS.to });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.headers["idempotent-replayed"]).toBeUndefined();
    expect(resent.json()).toMatchObject({ id: first.json().id, sends: 2 });
    expect(await messagesOf(accountId)).toHaveLength(2);
  });

  it("replays exactly the text it answered, stored with the send", async () => {
    const { accountId, secret } = await createSendingAccount(ctx, 1_000_000);
    const sms = await post(secret, "exact-sms", "/v2/sms/send", SMS);
    const otp = await post(secret, "exact-otp", "/v2/otp/send", { to: "+919876543211" });
    expect(sms.statusCode).toBe(202);
    expect(otp.statusCode).toBe(200);
    const stored = await ctx.db
      .selectFrom("idempotency_keys")
      .select(["key", "response_status", "response_body", "locked_until"])
      .where("account_id", "=", accountId)
      .orderBy("key")
      .execute();
    expect(stored).toEqual([
      { key: "exact-otp", response_status: 200, response_body: otp.body, locked_until: null },
      { key: "exact-sms", response_status: 202, response_body: sms.body, locked_until: null },
    ]);
    const replay = await post(secret, "exact-sms", "/v2/sms/send", SMS);
    expect(replay.statusCode).toBe(202);
    expect(replay.body).toBe(sms.body);
  });

  it("a keyed verify counts its attempt once, and a repeat replays its answer", async () => {
    const { secret } = await createSendingAccount(ctx, 1_000_000);
    const to = "+919876543212";
    expect((await post(secret, "send", "/v2/otp/send", { to, code: "123456" })).statusCode).toBe(200);
    const wrong = await post(secret, "verify-1", "/v2/otp/verify", { to, code: "654321" });
    expect(wrong.json()).toEqual({ verified: false, reason: "incorrect_code", attempts_remaining: 4 });
    const again = await post(secret, "verify-1", "/v2/otp/verify", { to, code: "654321" });
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body).toBe(wrong.body);
    const right = await post(secret, "verify-2", "/v2/otp/verify", { to, code: "123456" });
    expect(right.json()).toEqual({ verified: true, reason: "approved", attempts_remaining: 3 });
  });

  it("of two holders of one key after a takeover, only the current one can commit its send", async () => {
    const { accountId, keyId, secret } = await createSendingAccount(ctx, 1_000_000);
    const principal: KeyPrincipal = { keyId, accountId, environment: "sandbox" };
    const scope = { accountId, environment: "sandbox" as const, key: "two-holders" };
    const fingerprint = requestFingerprint(ctx.secret, "POST", "/v2/sms/send", SMS);
    const first = await claimIdempotencyKey(ctx, scope, fingerprint);
    instances.clock.advance(ctx.idempotencyLockSeconds);
    const second = await claimIdempotencyKey(ctx, scope, fingerprint);
    if (first.outcome !== "claimed" || second.outcome !== "claimed")
      throw new Error("both should have claimed");
    const asJson = (_status: number, answer: unknown) => JSON.stringify(answer);
    const lapsed = new IdempotentResponse(scope, first.holder, asJson);
    const current = new IdempotentResponse(scope, second.holder, asJson);
    const send = (held: IdempotentResponse) =>
      sendSms(ctx, principal, SMS, held.recorderFor<MessageView>(202));

    // The one whose hold lapsed is still running: it cannot commit, before or after the other.
    await expect(send(lapsed)).rejects.toMatchObject({ code: "idempotency_key_in_use" });
    const sent = await send(current);
    await expect(send(lapsed)).rejects.toMatchObject({ code: "idempotency_key_in_use" });
    await expect(send(current)).rejects.toMatchObject({ code: "idempotency_key_in_use" });

    const messages = await messagesOf(accountId);
    expect(messages.map((m) => m.id)).toEqual([sent.id]);
    expect(await balanceOf(accountId)).toBe(1_000_000 - 2_500);
    const replay = await post(secret, "two-holders", "/v2/sms/send", SMS);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.json().id).toBe(sent.id);
  });
});
