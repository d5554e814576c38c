import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { type RunningWorker, startWorker } from "../../src/worker.js";
import { openTestContext, testCarriers, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { countQueued } from "../helpers/delivery.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { mobile, onWire } from "../helpers/smpp-routes.js";
import { startTestSmsc, type TestSmsc } from "../helpers/smsc.js";

/*
 * An OTP sent while a bulk campaign drains through a rate-limited SMPP route reaches the SMSC
 * within a second of its acceptance: it is claimed ahead of the queued bulk (src/delivery/claims.ts)
 * and takes the route's next free place in the send window ahead of the bulk messages the worker
 * already holds (docs/sms.md#mixed-traffic).
 */

const TPS = 50;
const CAMPAIGN = 20_000;
const BATCH = 1_000;
const OTPS = 5;
const OTP_SPACING_MS = 1_500;
/** A second from acceptance to the SMSC, and the route's spacing of one send (1/50 s). */
const LATENCY_LIMIT_MS = 1_000 + 1_000 / TPS;
const realClock = { now: () => new Date() };

describe.each(DIALECTS)("an OTP during a bulk campaign, on %s", (dialect) => {
  let database: TestDatabase;
  let smsc: TestSmsc;
  let ctx: AppContext | undefined;
  let app: App | undefined;
  let worker: RunningWorker | undefined;

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    smsc = await startTestSmsc();
  });

  afterEach(async () => {
    await worker?.stop();
    await app?.close();
    await ctx?.close();
    await smsc.stop();
    await database.drop();
    [worker, app, ctx] = [undefined, undefined, undefined];
  });

  it("reaches the SMSC within a second and a send's spacing of its acceptance, ahead of 20,000 queued bulk messages", async () => {
    ctx = await openTestContext(database.url, {
      clock: realClock,
      env: {
        SMPP_URL: smsc.url,
        SMPP_TPS: String(TPS),
        SMPP_WINDOW: "10",
        ...UNLIMITED_REQUESTS,
        SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: String(CAMPAIGN),
      },
    });
    const current = ctx;
    app = await buildApp(current);
    const api = app;
    // ₹0.25 a message: the campaign and the OTPs with room to spare.
    const { secret } = await createSendingAccount(current, (CAMPAIGN + OTPS) * 2_500 * 2, {
      environment: "live",
    });
    const post = (url: string, body: unknown) =>
      api.inject({ method: "POST", url, headers: bearer(secret), payload: body as object });

    // The campaign: batch items are bulk.
    for (let first = 0; first < CAMPAIGN; first += BATCH) {
      const messages = Array.from({ length: BATCH }, (_, i) => ({
        to: mobile(first + i),
        sender: "DAKIYA",
        template_id: SMS_TEMPLATE_ID,
        variables: { ref: `C-${first + i}` },
      }));
      const response = await post("/v2/sms/batch", { messages });
      expect(response.statusCode, response.body).toBe(202);
      expect(response.json().accepted).toBe(BATCH);
    }

    worker = startWorker(current, testCarriers(current), { pollIntervalMs: 5 });
    // Bulk flowing steadily: the worker's claims are full of it, its window waiters too.
    await smsc.waitFor(() => smsc.submits.length >= TPS, 10_000);

    const otpNumbers = Array.from({ length: OTPS }, (_, i) => `+9196${String(i).padStart(8, "0")}`);
    const acceptedAt = new Map<string, number>();
    for (const [index, to] of otpNumbers.entries()) {
      if (index > 0) await new Promise((resolve) => setTimeout(resolve, OTP_SPACING_MS));
      const response = await post("/v2/otp/send", { to, channel: "sms" });
      expect(response.statusCode, response.body).toBe(200);
      acceptedAt.set(onWire(to), Date.now());
    }
    const arrivalOf = (to: string) =>
      smsc.submits.find((submit) => submit.destination_addr === onWire(to))?.receivedAt;
    await smsc.waitFor(() => otpNumbers.every((to) => arrivalOf(to) !== undefined), 5_000);
    await worker.stop();
    worker = undefined;

    // Still a campaign when the last OTP went out: most of it waits behind.
    expect(await countQueued(current)).toBeGreaterThan(CAMPAIGN / 2);
    const latencies = otpNumbers.map((to) =>
      Math.max(0, (arrivalOf(to) ?? Number.POSITIVE_INFINITY) - (acceptedAt.get(onWire(to)) ?? 0)),
    );
    expect(Math.max(...latencies), `OTP latencies ${latencies.join(", ")} ms`).toBeLessThanOrEqual(
      LATENCY_LIMIT_MS,
    );
    // Bulk kept going between the OTPs.
    const firstOtp = Math.min(...otpNumbers.map((to) => arrivalOf(to) ?? 0));
    const bulkAfter = smsc.submits.filter(
      (submit) => submit.receivedAt > firstOtp && !submit.destination_addr.startsWith("9196"),
    );
    expect(bulkAfter.length).toBeGreaterThan(TPS * 2);
    expect(smsc.errors).toEqual([]);
  }, 60_000);
});
