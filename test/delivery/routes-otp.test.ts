import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { sendDueFallbacks } from "../../src/otp/fallback.js";
import { sendOtp } from "../../src/otp/send.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { getOtp } from "../../src/otp/view.js";
import { TestClock } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { OTP_TEMPLATE_CONTENT, registerDlt } from "../helpers/dlt-fixtures.js";
import { recordingCarrier } from "../helpers/otp.js";
import { mobile, onWire, type RouteSpec, type RoutesRig, startRoutesRig } from "../helpers/smpp-routes.js";

/*
 * A live SMS OTP whose first route has not delivered within fallback_after_seconds goes out again,
 * free, on another route, before any channel fallback (docs/routes.md).
 */

const OTP_TEMPLATE_ID = "1107161234567890999";

describe.each(DIALECTS)("OTP SMS on a second route, on %s", (dialect) => {
  let database: TestDatabase;
  let rig: RoutesRig | undefined;
  let clock: TestClock;

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    clock = new TestClock(new Date().toISOString());
  });

  afterEach(async () => {
    await rig?.stop();
    rig = undefined;
    await database.drop();
  });

  const ROUTES: RouteSpec[] = [
    { name: "primary", fields: { priority: 1 } },
    { name: "backup", fields: { priority: 2 } },
  ];

  async function start(specs: RouteSpec[] = ROUTES) {
    const voice = recordingCarrier("voice-test");
    rig = await startRoutesRig(database.url, specs, { clock, liveCarriers: { voice: voice.carrier } });
    const current = rig;
    await registerDlt(current.ctx, current.accountId, {
      senders: [],
      templates: [{ templateId: OTP_TEMPLATE_ID, content: OTP_TEMPLATE_CONTENT, senders: ["DAKIYA"] }],
    });
    await updateOtpSettings(
      current.ctx,
      current.accountId,
      "live",
      {
        sms_template_id: OTP_TEMPLATE_ID,
        sms_sender: "DAKIYA",
      },
      CLI_ORIGIN,
    );
    await waitFor(async () => current.carrier.routes().some((route) => route.bound), 5_000);
    const { ctx, principal } = current;
    const message = (id: string) =>
      ctx.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const otpRow = (id: string) =>
      ctx.db.selectFrom("otps").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const deliveries = (otpId: string) =>
      ctx.db
        .selectFrom("otp_deliveries")
        .selectAll()
        .where("otp_id", "=", otpId)
        .orderBy("created_at")
        .execute();
    const ledger = async () =>
      (
        await ctx.db
          .selectFrom("ledger_entries")
          .select(["amount", "reason", "reference"])
          .where("account_id", "=", current.accountId)
          .where("reason", "!=", "credits_added")
          .orderBy("created_at")
          .execute()
      ).map((entry) => ({ ...entry, amount: Number(entry.amount) }));
    const cost = async (id: string) => Number((await message(id)).cost);
    const submitted = (id: string) => waitFor(async () => (await message(id)).status === "submitted", 10_000);
    return {
      rig: current,
      voice,
      message,
      otpRow,
      deliveries,
      ledger,
      submitted,
      cost,
      send: (to: string, fallback?: "voice") =>
        sendOtp(ctx, principal, { to, channel: "sms", ...(fallback ? { fallback } : {}) }),
    };
  }

  it("sends the code again on the next route, free, then the channel fallback one deadline later", async () => {
    const { rig, voice, message, otpRow, deliveries, ledger, submitted, cost, send } = await start();
    const otp = await send(mobile(1), "voice");
    const first = otp.message_id as string;
    await submitted(first);
    expect(await message(first)).toMatchObject({ route: "primary" });
    expect(await cost(first)).toBe(2_500);

    clock.advance(7);
    await waitFor(async () => (await deliveries(otp.id)).length === 2, 10_000);
    const again = (await deliveries(otp.id))[1];
    expect(again).toMatchObject({ channel: "sms", is_fallback: 0, rerouted_from: first });
    await submitted(again?.message_id as string);
    expect(await message(again?.message_id as string)).toMatchObject({ route: "backup", reference: otp.id });
    expect(await cost(again?.message_id as string)).toBe(0);
    // The same words, the same code, on the other SMSC.
    const [onPrimary] = rig.smscs.primary?.submits ?? [];
    const [onBackup] = rig.smscs.backup?.submits ?? [];
    expect(onBackup?.destination_addr).toBe(onWire(mobile(1)));
    expect(onBackup?.payload.toString("latin1")).toBe(onPrimary?.payload.toString("latin1"));
    expect(onBackup?.payload.toString("latin1")).toMatch(/^\d{6} is your Dakiya code\. Do not share it\.$/);
    // The channel fallback waits one more deadline, for the second route.
    expect((await otpRow(otp.id)).fallback_due_at).toBe(
      new Date(clock.now().getTime() + 7_000).toISOString(),
    );
    expect(voice.sent).toHaveLength(0);

    clock.advance(7);
    await waitFor(async () => voice.sent.length === 1, 10_000);
    expect(voice.sent[0]?.otp?.code).toBe(onBackup?.payload.toString("latin1").slice(0, 6));
    const voiceDelivery = (await deliveries(otp.id))[2];
    expect(voiceDelivery).toMatchObject({ channel: "voice", is_fallback: 1, rerouted_from: null });
    // Paid once for the SMS (whichever route carries it), and once for the fallback channel.
    const entries = await ledger();
    expect(entries.map((entry) => [entry.reason, entry.reference])).toEqual([
      ["sms_charge", first],
      ["voice_charge", voiceDelivery?.message_id],
    ]);
    expect(entries[0]?.amount).toBe(-2_500);
    const details = await getOtp(rig.ctx, rig.principal, otp.id);
    expect(details.deliveries.map((d) => [d.channel, d.fallback])).toEqual([
      ["sms", false],
      ["sms", false],
      ["voice", true],
    ]);
  });

  it("goes no further once the second route delivers, and charges nothing more", async () => {
    const { rig, voice, message, otpRow, deliveries, ledger, submitted, send } = await start();
    const otp = await send(mobile(2), "voice");
    await submitted(otp.message_id as string);
    clock.advance(7);
    await waitFor(async () => (await deliveries(otp.id)).length === 2, 10_000);
    const again = (await deliveries(otp.id))[1]?.message_id as string;
    await submitted(again);
    const backupId = rig.smscs.backup?.submits[0]?.messageId as string;
    await rig.smscs.backup?.sendReceipt(backupId, { stat: "DELIVRD", withTlv: true });
    await waitFor(async () => (await message(again)).status === "delivered", 5_000);

    clock.advance(7);
    await waitFor(async () => (await otpRow(otp.id)).fallback_due_at === null, 10_000);
    await rig.stopWorker();
    expect(voice.sent).toHaveLength(0);
    expect(await deliveries(otp.id)).toHaveLength(2);
    expect(await ledger()).toEqual([{ amount: -2_500, reason: "sms_charge", reference: otp.message_id }]);
    expect((await message(otp.message_id as string)).status).toBe("submitted");
  });

  it("sends an OTP without a fallback channel again on another route, once", async () => {
    const { rig, deliveries, ledger, submitted, send, otpRow } = await start();
    const otp = await send(mobile(3));
    expect((await otpRow(otp.id)).fallback_due_at).not.toBeNull();
    await submitted(otp.message_id as string);
    clock.advance(7);
    await waitFor(async () => (await deliveries(otp.id)).length === 2, 10_000);
    await submitted((await deliveries(otp.id))[1]?.message_id as string);
    expect((await otpRow(otp.id)).fallback_due_at).toBeNull();
    clock.advance(60);
    await rig.stopWorker();
    // Past every deadline, a sweep with both routes bound finds nothing more to send.
    expect(await sendDueFallbacks(rig.ctx, { smsRoutes: () => rig.carrier.routes() })).toBe(0);
    expect(await deliveries(otp.id)).toHaveLength(2);
    expect(await ledger()).toHaveLength(1);
  });

  it("falls back to the other channel at the first deadline when no other route is bound", async () => {
    const { voice, deliveries, ledger, submitted, send } = await start([
      { name: "primary", fields: { priority: 1 } },
      { name: "backup", fields: { priority: 2 }, wrongPassword: "wrong" },
    ]);
    const otp = await send(mobile(4), "voice");
    await submitted(otp.message_id as string);
    clock.advance(7);
    await waitFor(async () => voice.sent.length === 1, 10_000);
    expect((await deliveries(otp.id)).map((d) => [d.channel, d.is_fallback, d.rerouted_from])).toEqual([
      ["sms", 0, null],
      ["voice", 1, null],
    ]);
    expect((await ledger()).map((entry) => entry.reason)).toEqual(["sms_charge", "voice_charge"]);
  });
});
