import { afterEach, describe, expect, it } from "vitest";
import { getBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { getMessageDetail } from "../../src/dashboard/messages.js";
import type { Dialect } from "../../src/db/schema.js";
import { claimDueMessages } from "../../src/delivery/claims.js";
import { recordAcceptances, recordCarriedPart } from "../../src/delivery/status.js";
import { addTemplate } from "../../src/dlt/registry.js";
import { isoAfter, isoNow } from "../../src/lib/clock.js";
import { parseInr } from "../../src/lib/money.js";
import { getMessage } from "../../src/messages/store.js";
import { applyReceipt } from "../../src/receipts/receipts.js";
import { sendSms } from "../../src/sms/send.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { createLiveSender, TEST_ENTITY_ID } from "../helpers/dlt-fixtures.js";
import { mobile, onWire, type RoutesRig, realClock, startRoutesRig } from "../helpers/smpp-routes.js";
import type { ReceivedSubmit } from "../helpers/smsc.js";

/*
 * Operator rejections by name (docs/dlt-compliance.md): a DLT scrub failure an SMSC reports, in
 * its submit_sm_resp or in a receipt's err:, ends the message failed, refunded, with a named
 * error_code and the SMSC's own code kept as carrier_error. Real loopback SMSCs, both databases.
 */

const TEMPLATE_MISMATCH = 0x0000045a;
const VENDOR_UNKNOWN = 0x00000401;
const ESME_RINVDSTADR = 0x0000000b;
const LONG_TEMPLATE_ID = "1107161234567890777";
const LONG_CONTENT =
  "Dear customer, your order {#order#} has been packed and handed to our courier partner. " +
  "It reaches you by {#day#}. Track it at any time in the Dakiya app or call us. Thank you. -Dakiya";

/** The part number in a submit's concatenation header (1-based), 1 for a single SMS. */
function partOf(submit: ReceivedSubmit): number {
  return submit.udh?.[5] ?? 1;
}

async function eventTypes(ctx: AppContext, messageId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom("events")
    .select(["type", "data"])
    .where("type", "in", ["sms.submitted", "sms.delivered", "sms.undelivered", "sms.failed"])
    .orderBy("txid")
    .orderBy("seq")
    .execute();
  return rows
    .filter((row) => (JSON.parse(row.data) as { id: string }).id === messageId)
    .map((row) => row.type);
}

async function ledgerOf(ctx: AppContext, messageId: string) {
  const rows = await ctx.db
    .selectFrom("ledger_entries")
    .select(["reason", "amount"])
    .where("reference", "=", messageId)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => ({ reason: row.reason, amount: Number(row.amount) }));
}

describe.each(DIALECTS)("operator rejections over SMPP on %s", (dialect: Dialect) => {
  let database: TestDatabase | undefined;
  let rig: RoutesRig | undefined;
  let ctx: AppContext | undefined;

  afterEach(async () => {
    await rig?.stop();
    await ctx?.close();
    await database?.drop();
    [rig, ctx, database] = [undefined, undefined, undefined];
  });

  /** One route to a loopback SMSC that answers `answer`, with an error_map. */
  async function setUp(answer: (submit: ReceivedSubmit) => number = () => 0) {
    database = await createTestDatabase(dialect);
    rig = await startRoutesRig(database.url, [
      {
        name: "primary",
        smsc: { answer },
        fields: { error_map: { "0x0000045A": "dlt_template_mismatch", "701": "dlt_cta_not_whitelisted" } },
      },
    ]);
    return rig;
  }

  async function settled(rig: RoutesRig, id: string, status: string) {
    await waitFor(async () => (await getMessage(rig.ctx, rig.principal, id)).status === status, 10_000);
    return getMessage(rig.ctx, rig.principal, id);
  }

  it("names a submit_sm_resp status the route's error_map has: failed, refunded, the status kept", async () => {
    const rig = await setUp((submit) =>
      submit.destination_addr === onWire(mobile(1)) ? TEMPLATE_MISMATCH : 0,
    );
    const before = await getBalance(rig.ctx.db, rig.accountId, "live");
    const sent = await rig.send(mobile(1));
    const message = await settled(rig, sent.id, "failed");
    expect(message).toMatchObject({
      error_code: "dlt_template_mismatch",
      error_message: expect.stringMatching(
        /does not match the registered DLT template\. The SMSC refused the message: 0x0000045A\.$/,
      ),
      carrier_error: "submit_sm_resp 0x0000045A",
    });
    expect(await getBalance(rig.ctx.db, rig.accountId, "live")).toBe(before);
    expect(await ledgerOf(rig.ctx, sent.id)).toEqual([
      { reason: "sms_charge", amount: -parseCost(message.cost) },
      { reason: "sms_refund", amount: parseCost(message.cost) },
    ]);
    expect(await eventTypes(rig.ctx, sent.id)).toEqual(["sms.failed"]);
    // It was refused for good: no other try, no other route.
    expect(rig.smscs.primary?.submits).toHaveLength(1);
  });

  it("answers carrier_rejected for a vendor status no table has, and keeps SMPP's own names", async () => {
    const rig = await setUp((submit) => {
      if (submit.destination_addr === onWire(mobile(2))) return VENDOR_UNKNOWN;
      if (submit.destination_addr === onWire(mobile(3))) return ESME_RINVDSTADR;
      return 0;
    });
    const before = await getBalance(rig.ctx.db, rig.accountId, "live");
    const [vendor, standard] = [await rig.send(mobile(2)), await rig.send(mobile(3))];
    expect(await settled(rig, vendor.id, "failed")).toMatchObject({
      error_code: "carrier_rejected",
      error_message: "The SMSC refused the message: 0x00000401.",
      carrier_error: "submit_sm_resp 0x00000401",
    });
    expect(await settled(rig, standard.id, "failed")).toMatchObject({
      error_code: "esme_rinvdstadr",
      carrier_error: "submit_sm_resp 0x0000000B ESME_RINVDSTADR",
    });
    expect(await getBalance(rig.ctx.db, rig.accountId, "live")).toBe(before);
  });

  it("fails and refunds a message whose receipt says err:623: dlt_header_not_registered, sms.failed", async () => {
    const rig = await setUp();
    const before = await getBalance(rig.ctx.db, rig.accountId, "live");
    const sent = await rig.send(mobile(4));
    const submitted = await settled(rig, sent.id, "submitted");
    expect(await getBalance(rig.ctx.db, rig.accountId, "live")).toBe(before - parseCost(submitted.cost));
    const smsc = rig.smscs.primary;
    const id = smsc?.submits[0]?.messageId ?? "";
    const ack = await smsc?.sendReceipt(id, { stat: "REJECTD", err: "623", withTlv: true });
    expect(ack?.commandStatus).toBe(0);

    const message = await getMessage(rig.ctx, rig.principal, sent.id);
    expect(message).toMatchObject({
      status: "failed",
      error_code: "dlt_header_not_registered",
      carrier_error: "receipt err:623 stat:REJECTD",
      carrier_message_ids: [id],
      cost: submitted.cost,
    });
    expect(message.failed_at).not.toBeNull();
    expect(await getBalance(rig.ctx.db, rig.accountId, "live")).toBe(before);
    expect(await eventTypes(rig.ctx, sent.id)).toEqual(["sms.submitted", "sms.failed"]);
    // The dashboard shows the refund of a failed message.
    const detail = await getMessageDetail(rig.ctx, rig.principal, sent.id);
    expect(detail.refund).toEqual({ amount: submitted.cost, refunded_at: message.failed_at });

    // The same receipt again (an SMSC repeats one it thinks was lost) refunds nothing more.
    await smsc?.sendReceipt(id, { stat: "REJECTD", err: "623" });
    expect(await getBalance(rig.ctx.db, rig.accountId, "live")).toBe(before);
    expect((await ledgerOf(rig.ctx, sent.id)).map((entry) => entry.reason)).toEqual([
      "sms_charge",
      "sms_refund",
    ]);
  });

  it("reads receipts with the route's error_map, and keeps unknown codes undelivered, not refunded", async () => {
    const rig = await setUp();
    const before = await getBalance(rig.ctx.db, rig.accountId, "live");
    const [cta, handset] = [await rig.send(mobile(5)), await rig.send(mobile(6))];
    await settled(rig, cta.id, "submitted");
    const charged = parseCost((await settled(rig, handset.id, "submitted")).cost);
    const smsc = rig.smscs.primary;
    const idOf = (to: string) =>
      smsc?.submits.find((s) => s.destination_addr === onWire(to))?.messageId ?? "";
    await smsc?.sendReceipt(idOf(mobile(5)), { stat: "UNDELIV", err: "701" });
    await smsc?.sendReceipt(idOf(mobile(6)), { stat: "UNDELIV", err: "006" });

    expect(await getMessage(rig.ctx, rig.principal, cta.id)).toMatchObject({
      status: "failed",
      error_code: "dlt_cta_not_whitelisted",
      carrier_error: "receipt err:701 stat:UNDELIV",
    });
    expect(await getMessage(rig.ctx, rig.principal, handset.id)).toMatchObject({
      status: "undelivered",
      error_code: "smsc_006",
      carrier_error: "receipt err:006 stat:UNDELIV",
    });
    expect(await eventTypes(rig.ctx, handset.id)).toEqual(["sms.submitted", "sms.undelivered"]);
    expect(await getBalance(rig.ctx.db, rig.accountId, "live")).toBe(before - charged);
  });

  describe("a long message", () => {
    async function sendLong(rig: RoutesRig, to: string) {
      await addTemplate(
        rig.ctx,
        {
          accountId: rig.accountId,
          templateId: LONG_TEMPLATE_ID,
          entityId: TEST_ENTITY_ID,
          name: "Long",
          category: "transactional",
          senders: ["DAKIYA"],
          content: LONG_CONTENT,
        },
        CLI_ORIGIN,
      );
      const message = await sendSms(rig.ctx, rig.principal, {
        to,
        sender: "DAKIYA",
        template_id: LONG_TEMPLATE_ID,
        variables: { order: "ORD-2026-000123456789", day: "Tuesday, 24 November 2026" },
      });
      expect(message.segments).toBe(2);
      return message;
    }

    it("refused with a DLT status at part 2 ends undelivered, charged for part 1 only, as docs/money.md says", async () => {
      const rig = await setUp((submit) => (partOf(submit) === 2 ? TEMPLATE_MISMATCH : 0));
      const before = await getBalance(rig.ctx.db, rig.accountId, "live");
      const sent = await sendLong(rig, mobile(7));
      const message = await settled(rig, sent.id, "undelivered");
      const whole = parseCost(sent.cost);
      expect(message).toMatchObject({
        error_code: "dlt_template_mismatch",
        carrier_error: "submit_sm_resp 0x0000045A",
        cost: formatCost(whole / 2),
      });
      expect(message.error_message).toMatch(
        /The SMSC refused part 2 of 2: 0x0000045A\. Part 1 of 2 went out/,
      );
      expect(await ledgerOf(rig.ctx, sent.id)).toEqual([
        { reason: "sms_charge", amount: -whole },
        { reason: "sms_refund", amount: whole / 2 },
      ]);
      expect(await getBalance(rig.ctx.db, rig.accountId, "live")).toBe(before - whole / 2);
      expect(await eventTypes(rig.ctx, sent.id)).toEqual(["sms.undelivered"]);
    });

    it("rejected by a receipt for one part fails whole and is refunded once, whatever the other part's receipt says", async () => {
      const rig = await setUp();
      const before = await getBalance(rig.ctx.db, rig.accountId, "live");
      const sent = await sendLong(rig, mobile(8));
      await settled(rig, sent.id, "submitted");
      const smsc = rig.smscs.primary;
      const [first, second] = (smsc?.submits ?? []).map((submit) => submit.messageId ?? "");
      await smsc?.sendReceipt(second ?? "", { stat: "REJECTD", err: "633" });
      await smsc?.sendReceipt(first ?? "", { stat: "DELIVRD" });
      await smsc?.sendReceipt(first ?? "", { stat: "REJECTD", err: "633" });

      expect(await getMessage(rig.ctx, rig.principal, sent.id)).toMatchObject({
        status: "failed",
        error_code: "dlt_template_mismatch",
        carrier_error: "receipt err:633 stat:REJECTD",
        carrier_message_ids: [first, second],
      });
      expect(await getBalance(rig.ctx.db, rig.accountId, "live")).toBe(before);
      expect(await ledgerOf(rig.ctx, sent.id)).toEqual([
        { reason: "sms_charge", amount: -parseCost(sent.cost) },
        { reason: "sms_refund", amount: parseCost(sent.cost) },
      ]);
      expect(await eventTypes(rig.ctx, sent.id)).toEqual(["sms.submitted", "sms.failed"]);
    });
  });

  it("fails a long message once its rest is accepted, when its first part was rejected while it waited", async () => {
    database = await createTestDatabase(dialect);
    // Live SMS is configured, but no worker sends: the test plays the worker and the receipts.
    const current = await openTestContext(database.url, {
      clock: realClock,
      env: { SMPP_URL: "smpp://dakiya:secret@127.0.0.1:2775" },
    });
    ctx = current;
    const { accountId, principal } = await createLiveSender(current, [
      { templateId: LONG_TEMPLATE_ID, content: LONG_CONTENT },
    ]);
    const before = await getBalance(current.db, accountId, "live");
    const sent = await sendSms(current, principal, {
      to: mobile(9),
      sender: "DAKIYA",
      template_id: LONG_TEMPLATE_ID,
      variables: { order: "ORD-2026-000123456789", day: "Tuesday, 24 November 2026" },
    });
    const owner = "wkr_rejected";
    const route = { name: "default", receiptCarrier: "smpp:default" };
    const [message] = await claimDueMessages(current.db, current.dialect, {
      owner,
      now: isoNow(current.clock),
      leaseUntil: isoAfter(current.clock, 300),
      limit: 1,
    });
    if (!message) throw new Error("nothing claimed");
    const lease = { messageId: message.id, owner };
    const part = { part: 1, carrierMessageId: "p1", receiptCarrier: route.receiptCarrier };
    expect(await recordCarriedPart(current, lease, "smpp", part, route)).toBe(true);
    expect(
      await applyReceipt(current, {
        carrier: route.receiptCarrier,
        carrierMessageId: "p1",
        state: "rejected",
        errorCode: "dlt_pe_tm_hash_invalid",
        carrierError: "receipt err:5601 stat:REJECTD",
      }),
    ).toBe(true);
    // Still queued for its part 2: nothing ends yet.
    expect((await getMessage(current, principal, sent.id)).status).toBe("queued");
    expect(
      await recordAcceptances(current, [
        { message, owner, carrier: "smpp", carrierMessageIds: ["p1", "p2"], recordedParts: 1, route },
      ]),
    ).toEqual([true]);
    expect(await getMessage(current, principal, sent.id)).toMatchObject({
      status: "failed",
      error_code: "dlt_pe_tm_hash_invalid",
      carrier_message_ids: ["p1", "p2"],
    });
    expect(await getBalance(current.db, accountId, "live")).toBe(before);
    expect(await eventTypes(current, sent.id)).toEqual(["sms.submitted", "sms.failed"]);
  });
});

function parseCost(cost: string): number {
  const value = parseInr(cost);
  if (value === undefined) throw new Error(`not an amount: ${cost}`);
  return value;
}

function formatCost(units: number): string {
  return (units / 10_000).toFixed(4);
}
