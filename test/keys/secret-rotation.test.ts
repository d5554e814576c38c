import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { systemClock } from "../../src/lib/clock.js";
import { startWorker } from "../../src/worker.js";
import { openTestContext, testCarriers, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { createSendingAccount } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { startReceiver, verify, type WebhookReceiver } from "../helpers/webhook-receiver.js";

/*
 * What changing DAKIYA_SECRET does (docs/operations.md, "Secrets"), with the server restarted
 * on the same database under a new secret: API keys go on working; a pending OTP's code no
 * longer verifies; webhook signing secrets sealed under the old one cannot sign until the
 * endpoint's secret is rotated, and a rotation makes deliveries go through at once.
 */

const OLD_SECRET = "old-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const NEW_SECRET = "new-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const TO = "+919812345678";
const CODE = "482913";

describe.each(DIALECTS)("a new DAKIYA_SECRET on %s", (dialect) => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let ctx: AppContext | undefined;
  let app: App | undefined;
  // Receivers check a signature's timestamp against their own clock.
  const clock = systemClock;
  const env = { ...UNLIMITED_REQUESTS, WEBHOOK_ALLOW_PRIVATE: "true" };
  let secret: string;
  let endpointId: string;

  const call = (method: "GET" | "POST", url: string, body?: unknown) =>
    (app as App).inject({
      method,
      url,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      headers: { ...bearer(secret), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    receiver = await startReceiver(() => 200);
    // Under the old secret: a webhook endpoint and an OTP left pending.
    ctx = await openTestContext(database.url, { clock, env: { ...env, DAKIYA_SECRET: OLD_SECRET } });
    app = await buildApp(ctx);
    secret = (await createSendingAccount(ctx, 1_000_000, { otpSettings: { resend_cooldown_seconds: 0 } }))
      .secret;
    const created = await call("POST", "/v2/webhooks", { url: receiver.url, events: ["webhook.test"] });
    expect(created.statusCode, created.body).toBe(201);
    endpointId = created.json<{ id: string }>().id;
    expect((await call("POST", "/v2/otp/send", { to: TO, code: CODE })).statusCode).toBe(200);
    await app.close();
    await ctx.close();

    // The same database, restarted under a new secret.
    ctx = await openTestContext(database.url, { clock, env: { ...env, DAKIYA_SECRET: NEW_SECRET } });
    app = await buildApp(ctx);
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await receiver?.close();
    await database?.drop();
  });

  it("keeps API keys working, and a pending OTP's right code no longer verifies", async () => {
    expect((await call("GET", "/v2/balance")).statusCode).toBe(200);
    const verified = await call("POST", "/v2/otp/verify", { to: TO, code: CODE });
    expect(verified.json()).toMatchObject({ verified: false, reason: "incorrect_code" });
  });

  it("cannot sign webhooks with a secret sealed under the old one until the endpoint's is rotated", async () => {
    const current = ctx as AppContext;
    const worker = startWorker(current, testCarriers(current), { pollIntervalMs: 10 });
    try {
      expect((await call("POST", `/v2/webhooks/${endpointId}/test`, {})).statusCode).toBe(202);
      await waitFor(async () => {
        const attempts = await current.db.selectFrom("webhook_attempts").select("error").execute();
        return attempts.length === 1;
      }, 10_000);
      const [failed] = await current.db
        .selectFrom("webhook_attempts")
        .select(["error", "status_code"])
        .execute();
      expect(failed?.status_code).toBeNull();
      expect(failed?.error).toMatch(/DAKIYA_SECRET changed; rotate the endpoint's secret/);
      expect(receiver.received).toHaveLength(0);

      const rotated = await call("POST", `/v2/webhooks/${endpointId}/rotate-secret`, {});
      expect(rotated.statusCode, rotated.body).toBe(200);
      const signingSecret = rotated.json<{ secret: string }>().secret;
      expect((await call("POST", `/v2/webhooks/${endpointId}/test`, {})).statusCode).toBe(202);
      await waitFor(async () => receiver.received.length === 1, 10_000);
      const [delivery] = receiver.received;
      expect(verify(signingSecret, delivery as (typeof receiver.received)[number]).type).toBe("webhook.test");
      // Only the new secret signs: the replaced one cannot be unsealed any more.
      expect(String(delivery?.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it("fails and refunds an OTP message queued under the old secret, which can never be read", async () => {
    const current = ctx as AppContext;
    const worker = startWorker(current, testCarriers(current), { pollIntervalMs: 10 });
    try {
      await waitFor(async () => {
        const queued = await current.db
          .selectFrom("messages")
          .select("id")
          .where("status", "=", "queued")
          .execute();
        return queued.length === 0;
      }, 10_000);
    } finally {
      await worker.stop();
    }
    const [message] = await current.db.selectFrom("messages").select(["status", "error_code"]).execute();
    expect(message).toEqual({ status: "failed", error_code: "otp_unreadable" });
    const balance = await call("GET", "/v2/balance");
    expect(balance.json()).toMatchObject({ balance: "100.0000" });
  });

  it("replaces a pending OTP whose code it cannot read with a new one when it is sent again", async () => {
    const current = ctx as AppContext;
    const [old] = await current.db.selectFrom("otps").select(["id", "status"]).execute();
    const resent = await call("POST", "/v2/otp/send", { to: TO });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json<{ id: string }>().id).not.toBe(old?.id);
    const statuses = await current.db
      .selectFrom("otps")
      .select(["id", "status"])
      .orderBy("created_at")
      .execute();
    expect(statuses).toEqual([
      { id: old?.id, status: "cancelled" },
      { id: resent.json<{ id: string }>().id, status: "pending" },
    ]);
  });
});
