import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { failMessage } from "../../src/delivery/failures.js";
import { createKey } from "../../src/keys/keys.js";
import { isoNow } from "../../src/lib/clock.js";
import type { MessageView } from "../../src/messages/store.js";
import { foldReportDeltas } from "../../src/reports/fold.js";
import { MESSAGE_GROUPS } from "../../src/reports/messages.js";
import { dashboardRequest, signedInMember } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { CARRIER_REJECTED, INVALID_NUMBER, nextNumber, useOtpHarness } from "../helpers/otp.js";
import { naiveMessageReport, naiveOtpReport } from "./naive.js";

const LONG_TEMPLATE_ID = "1107161234567890777";
const LONG_CONTENT =
  "Dear customer, your order {#order#} has been packed and handed to our courier partner. " +
  "It reaches you by {#day#}. Track it at any time in the Dakiya app or call us. Thank you. -Dakiya";

describe.each(DIALECTS)("reports on %s", (dialect) => {
  const h = useOtpHarness(dialect);
  let account: { accountId: string; secret: string };
  const scope = () => ({ accountId: account.accountId, environment: "sandbox" as const });
  /** The India day the test clock starts on, and the period of every report below. */
  let today: string;
  const period = () => ({ from: "2026-01-01", to: today });

  function report(path: string, secret = account.secret) {
    return h.app.inject({ method: "GET", url: path, headers: bearer(secret) });
  }

  async function reportOk<T>(path: string, secret = account.secret): Promise<T> {
    const response = await report(path, secret);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<T>();
  }

  async function sendSms(body: Record<string, unknown>): Promise<MessageView> {
    const response = await h.app.inject({
      method: "POST",
      url: "/v2/sms/send",
      payload: JSON.stringify({
        sender: "DAKIYA",
        template_id: SMS_TEMPLATE_ID,
        variables: { ref: "A-1" },
        ...body,
      }),
      headers: { "content-type": "application/json", ...bearer(account.secret) },
    });
    expect(response.statusCode, response.body).toBe(202);
    return response.json<MessageView>();
  }

  /** Every report the API gives for the period equals the slow recomputation. */
  async function expectReportsExact() {
    const { from, to } = period();
    for (const groupBy of MESSAGE_GROUPS) {
      const answer = await reportOk<{ data: unknown }>(
        `/v2/reports/messages?from=${from}&to=${to}&group_by=${groupBy}`,
      );
      expect(answer.data, groupBy).toEqual(await naiveMessageReport(h.ctx, scope(), period(), groupBy));
    }
    const otp = await reportOk<{ data: unknown }>(`/v2/reports/otp?from=${from}&to=${to}`);
    expect(otp.data).toEqual(await naiveOtpReport(h.ctx, scope(), period()));
  }

  beforeAll(async () => {
    account = await h.account();
    await registerDlt(h.ctx, account.accountId, {
      senders: ["DAKYIA"],
      templates: [{ templateId: LONG_TEMPLATE_ID, content: LONG_CONTENT, senders: ["DAKIYA", "DAKYIA"] }],
    });
    today = isoNow(h.ctx.clock).slice(0, 10);
  });

  it("counts sends, deliveries, failures with refunds, partial refunds, cancellations and OTPs exactly, before and after a fold", async () => {
    // Delivered, undelivered (charged), failed (refunded).
    for (let i = 0; i < 3; i++) await sendSms({ to: nextNumber() });
    await sendSms({ to: INVALID_NUMBER });
    await sendSms({ to: CARRIER_REJECTED });
    // A scheduled message, cancelled and refunded.
    const scheduled = await sendSms({
      to: nextNumber(),
      send_at: new Date(h.clock.now().getTime() + 3_600_000).toISOString(),
    });
    const cancel = await h.app.inject({
      method: "POST",
      url: `/v2/sms/${scheduled.id}/cancel`,
      headers: bearer(account.secret),
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    await drainQueue(h.ctx);
    // A two-part message of which only part 1 went out: charged for it, part 2 refunded.
    const long = await sendSms({
      to: nextNumber(),
      sender: "DAKYIA",
      template_id: LONG_TEMPLATE_ID,
      variables: { order: "ORD-2026-000123456789", day: "Tuesday, 24 November 2026" },
    });
    expect(long.segments).toBe(2);
    await h.ctx.db
      .insertInto("carrier_messages")
      .values({
        carrier: "sandbox",
        carrier_message_id: `part-1-of-${long.id}`,
        message_id: long.id,
        part: 1,
        status: "submitted",
        error_code: null,
        updated_at: isoNow(h.clock),
      })
      .execute();
    expect(await failMessage(h.ctx, long.id, { code: "invalid_number", message: "Refused." })).toBe(true);
    // OTPs: one verified 37 s after it was sent, one not verified.
    const { to, code } = await h.sentOtp(account.secret);
    h.clock.advance(37);
    expect((await h.verifyOk(account.secret, to, code)).verified).toBe(true);
    await h.sentOtp(account.secret);

    const byStatus = await naiveMessageReport(h.ctx, scope(), period(), "status");
    expect(Object.fromEntries(byStatus.map((row) => [row.key, row.messages]))).toEqual({
      delivered: 5, // 3 SMS and the 2 OTPs'
      undelivered: 2,
      failed: 1,
      cancelled: 1,
    });
    const partly = (await naiveMessageReport(h.ctx, scope(), period(), "template")).find(
      (row) => row.key === LONG_TEMPLATE_ID,
    );
    expect(partly).toMatchObject({ messages: 1, segments: 2, undelivered: 1 });
    expect(partly?.cost).not.toBe("0.0000");

    await expectReportsExact();
    expect(await foldReportDeltas(h.ctx)).toBeGreaterThan(0);
    expect(await h.ctx.db.selectFrom("message_report_deltas").select("id").execute()).toEqual([]);
    await expectReportsExact();
    const otp = await reportOk<{ data: { channel: string }[] }>("/v2/reports/otp");
    expect(otp.data.find((row) => row.channel === "sms")).toEqual({
      channel: "sms",
      sent: 2,
      verified: 1,
      conversion_rate: 0.5,
      median_seconds_to_verify: 37,
    });
  });

  it("counts a message under the India-time day it was created on", async () => {
    const other = await h.account();
    const dayOf = async () => {
      const answer = await reportOk<{ data: { key: string; messages: number }[] }>(
        "/v2/reports/messages?from=2026-12-30&to=2027-01-02",
        other.secret,
      );
      return answer.data.filter((row) => row.messages > 0).map((row) => `${row.key}:${row.messages}`);
    };
    const send = (to: string) =>
      h.app.inject({
        method: "POST",
        url: "/v2/sms/send",
        payload: JSON.stringify({
          to,
          sender: "DAKIYA",
          template_id: SMS_TEMPLATE_ID,
          variables: { ref: "B" },
        }),
        headers: { "content-type": "application/json", ...bearer(other.secret) },
      });
    const start = h.clock.now().getTime();
    // 23:59:59.999 IST on 31 December is 18:29:59.999 UTC; a millisecond later it is 1 January.
    h.clock.advance((Date.parse("2026-12-31T18:29:59.999Z") - start) / 1000);
    expect((await send(nextNumber())).statusCode).toBe(202);
    h.clock.advance(0.001);
    expect((await send(nextNumber())).statusCode).toBe(202);
    expect((await send(nextNumber())).statusCode).toBe(202);
    expect(await dayOf()).toEqual(["2026-12-31:1", "2027-01-01:2"]);
    await foldReportDeltas(h.ctx);
    expect(await dayOf()).toEqual(["2026-12-31:1", "2027-01-01:2"]);
    // Today is 1 January in India now: the default period ends on it and spans 30 days.
    const defaults = await reportOk<{ from: string; to: string; data: unknown[] }>(
      "/v2/reports/messages",
      other.secret,
    );
    expect([defaults.from, defaults.to, defaults.data.length]).toEqual(["2026-12-03", "2027-01-01", 30]);
    h.clock.advance((start - h.clock.now().getTime()) / 1000);
  });

  it("shows an account only its own environment's messages", async () => {
    const stranger = await h.account();
    const live = await createKey(
      h.ctx,
      { accountId: account.accountId, environment: "live", label: "live" },
      CLI_ORIGIN,
    );
    const empty = { messages: 0 };
    for (const secret of [stranger.secret, live.secret]) {
      const answer = await reportOk<{ data: { messages: number }[] }>(
        `/v2/reports/messages?from=2026-01-01&to=${today}&group_by=day`,
        secret,
      );
      expect(answer.data.every((row) => row.messages === empty.messages)).toBe(true);
      const byChannel = await reportOk<{ data: unknown[] }>(
        `/v2/reports/messages?from=2026-01-01&to=${today}&group_by=channel`,
        secret,
      );
      expect(byChannel.data).toEqual([]);
      const otp = await reportOk<{ data: { sent: number }[] }>(
        `/v2/reports/otp?from=2026-01-01&to=${today}`,
        secret,
      );
      expect(otp.data.map((row) => row.sent)).toEqual([0, 0, 0]);
    }
  });

  it("answers keys that may read, not keys that only send", async () => {
    const read = await createKey(
      h.ctx,
      { accountId: account.accountId, environment: "sandbox", label: "reader", scope: "read" },
      CLI_ORIGIN,
    );
    const send = await createKey(
      h.ctx,
      { accountId: account.accountId, environment: "sandbox", label: "sender", scope: "send" },
      CLI_ORIGIN,
    );
    for (const path of ["/v2/reports/messages", "/v2/reports/otp"]) {
      expect((await report(path, read.secret)).statusCode).toBe(200);
      expect((await report(path, send.secret)).json()).toMatchObject({ error: { code: "forbidden" } });
      expect((await h.app.inject({ method: "GET", url: path })).statusCode).toBe(401);
    }
  });

  it.each([
    ["from=2026-02-30", "from"],
    ["to=2026-1-05", "to"],
    ["from=yesterday", "from"],
    ["from=2026-03-02&to=2026-03-01", "from"],
    ["from=2025-01-01&to=2026-01-02", "from"],
    ["group_by=week", "group_by"],
    ["colour=red", "colour"],
  ])("refuses %s with 400 invalid_request naming %s", async (query, param) => {
    for (const path of ["/v2/reports/messages", "/v2/reports/otp"]) {
      if (param === "group_by" && path.endsWith("otp")) continue;
      const response = await report(`${path}?${query}`);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: "invalid_request", param } });
    }
  });

  it("accepts a whole leap year of 366 days", async () => {
    const answer = await reportOk<{ data: unknown[] }>("/v2/reports/messages?from=2028-01-01&to=2028-12-31");
    expect(answer.data).toHaveLength(366);
  });

  it("answers the dashboard's members, every role, as the API answers the environment's keys", async () => {
    const member = await signedInMember(h.ctx, h.app, account.accountId, "finance");
    const range = `from=2026-01-01&to=${today}`;
    for (const groupBy of MESSAGE_GROUPS) {
      const console = await dashboardRequest(
        h.app,
        member,
        "GET",
        `/dashboard/api/reports/messages?environment=sandbox&${range}&group_by=${groupBy}`,
      );
      expect(console.statusCode, console.body).toBe(200);
      expect(console.json()).toEqual(await reportOk(`/v2/reports/messages?${range}&group_by=${groupBy}`));
    }
    const otp = await dashboardRequest(
      h.app,
      member,
      "GET",
      `/dashboard/api/reports/otp?environment=sandbox&${range}`,
    );
    expect(otp.json()).toEqual(await reportOk(`/v2/reports/otp?${range}`));
    const live = await dashboardRequest(
      h.app,
      member,
      "GET",
      `/dashboard/api/reports/otp?environment=live&${range}`,
    );
    expect(live.json<{ data: { sent: number }[] }>().data.map((row) => row.sent)).toEqual([0, 0, 0]);
    const bad = await dashboardRequest(
      h.app,
      member,
      "GET",
      "/dashboard/api/reports/messages?environment=sandbox&to=2026-13-01",
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: "invalid_request", param: "to" } });
  });
});
