import fc from "fast-check";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { down, up } from "../../src/db/migrations/2026-11-29T0027-message-reports.js";
import { foldReportDeltas } from "../../src/reports/fold.js";
import { MESSAGE_GROUPS } from "../../src/reports/messages.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { CARRIER_REJECTED, INVALID_NUMBER, nextNumber, useOtpHarness } from "../helpers/otp.js";
import { naiveMessageReport, naiveOtpReport } from "./naive.js";

const REPORT_TABLES = [
  "message_report_days",
  "message_report_deltas",
  "otp_report_days",
  "otp_report_deltas",
];

describe.each(DIALECTS)("report totals on %s", (dialect) => {
  const h = useOtpHarness(dialect);

  async function expectExact(accountId: string, secret: string) {
    const scope = { accountId, environment: "sandbox" as const };
    for (const groupBy of MESSAGE_GROUPS) {
      const response = await h.app.inject({
        method: "GET",
        url: `/v2/reports/messages?from=2026-11-01&to=2027-10-31&group_by=${groupBy}`,
        headers: bearer(secret),
      });
      expect(response.json().data, groupBy).toEqual(
        await naiveMessageReport(h.ctx, scope, { from: "2026-11-01", to: "2027-10-31" }, groupBy),
      );
    }
    const otp = await h.app.inject({
      method: "GET",
      url: "/v2/reports/otp?from=2026-11-01&to=2027-10-31",
      headers: bearer(secret),
    });
    expect(otp.json().data).toEqual(
      await naiveOtpReport(h.ctx, scope, { from: "2026-11-01", to: "2027-10-31" }),
    );
  }

  async function objectsOf(kind: "table" | "trigger"): Promise<string[]> {
    const { rows } =
      dialect === "sqlite"
        ? await sql<{ name: string }>`select name from sqlite_master where type = ${kind}`.execute(h.ctx.db)
        : kind === "table"
          ? await sql<{ name: string }>`select table_name as name from information_schema.tables
              where table_schema = current_schema()`.execute(h.ctx.db)
          : await sql<{ name: string }>`select tgname as name from pg_trigger where not tgisinternal`.execute(
              h.ctx.db,
            );
    return rows.map((row) => row.name).filter((name) => name.includes("report"));
  }

  it("counts the messages and OTPs of before when it runs, and down drops every table, trigger and function", async () => {
    const { accountId, secret } = await h.account();
    const { to, code } = await h.sentOtp(secret);
    await h.verifyOk(secret, to, code);
    await h.sentOtp(secret, { to: INVALID_NUMBER });
    await drainQueue(h.ctx);

    await down(h.ctx.db);
    expect(await objectsOf("table")).toEqual([]);
    expect(await objectsOf("trigger")).toEqual([]);
    if (dialect === "postgres") {
      const { rows } = await sql`select proname from pg_proc where proname like '%report%'`.execute(h.ctx.db);
      expect(rows).toEqual([]);
    }
    // Sent while no trigger counts: the migration's backfill must.
    await h.sentOtp(secret);
    await up(h.ctx.db);
    expect((await objectsOf("table")).sort()).toEqual([...REPORT_TABLES].sort());
    expect(await h.ctx.db.selectFrom("message_report_deltas").select("id").execute()).toEqual([]);
    await expectExact(accountId, secret);
  });

  it("folds deltas written meanwhile by several folds at once, losing and doubling none", async () => {
    // PostgreSQL: three processes' pools; SQLite, one process's writer, which runs one transaction at a time.
    const folders =
      dialect === "postgres"
        ? [h.ctx, ...(await Promise.all([h.openOther(), h.openOther()])).map((other) => other.ctx)]
        : [h.ctx, h.ctx, h.ctx];
    const accountId = "acc_fold";
    const deltas = Array.from({ length: 24_000 }, (_, i) => ({
      account_id: accountId,
      environment: "sandbox" as const,
      day: `2026-12-${String((i % 28) + 1).padStart(2, "0")}`,
      channel: "sms" as const,
      template_id: `t${i % 7}`,
      sender: `S${i % 3}`,
      status: (["queued", "delivered", "failed"] as const)[i % 3] ?? "queued",
      messages: i % 5 === 0 ? -1 : 1,
      segments: (i % 4) + 1,
      cost: 2_500 * ((i % 4) + 1),
    }));
    const expected = { messages: 0, segments: 0, cost: 0 };
    for (const delta of deltas) {
      expected.messages += delta.messages;
      expected.segments += delta.segments;
      expected.cost += delta.cost;
    }
    const insertAll = async () => {
      for (let i = 0; i < deltas.length; i += 1_000) {
        await h.ctx.db
          .insertInto("message_report_deltas")
          .values(deltas.slice(i, i + 1_000))
          .execute();
      }
    };
    const folds = folders.map(async (ctx) => {
      let moved = 0;
      for (let round = 0; round < 6; round++) moved += await foldReportDeltas(ctx);
      return moved;
    });
    await insertAll();
    const moved = (await Promise.all(folds)).reduce((a, b) => a + b, 0);
    const last = await foldReportDeltas(h.ctx);
    expect(moved + last).toBe(deltas.length);
    const totals = await h.ctx.db
      .selectFrom("message_report_days")
      .select((eb) => [
        eb.fn.sum<number>("messages").as("messages"),
        eb.fn.sum<number>("segments").as("segments"),
        eb.fn.sum<number>("cost").as("cost"),
        eb.fn.countAll<number>().as("rows"),
      ])
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    expect({
      messages: Number(totals.messages),
      segments: Number(totals.segments),
      cost: Number(totals.cost),
    }).toEqual(expected);
    // One row per key: day i % 28, template i % 7, sender and status i % 3 repeat every 84.
    expect(Number(totals.rows)).toBe(84);
    expect(await h.ctx.db.selectFrom("message_report_deltas").select("id").execute()).toEqual([]);
  });

  it("stays exact over random histories of sends, failures, cancellations, OTPs, days and folds", async () => {
    type Step =
      | { kind: "sms"; to: "regular" | "invalid" | "rejected" }
      | { kind: "scheduled"; cancel: boolean }
      | { kind: "otp"; verifyAfter: number | null }
      | { kind: "clock"; hours: number }
      | { kind: "fold" };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant("sms" as const), to: fc.constantFrom("regular", "invalid", "rejected") }),
      fc.record({ kind: fc.constant("scheduled" as const), cancel: fc.boolean() }),
      fc.record({
        kind: fc.constant("otp" as const),
        verifyAfter: fc.option(fc.integer({ min: 0, max: 300 })),
      }),
      fc.record({ kind: fc.constant("clock" as const), hours: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ kind: fc.constant("fold" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const { accountId, secret } = await h.account();
        const start = h.clock.now().getTime();
        for (const s of steps) {
          if (s.kind === "sms" || s.kind === "scheduled") {
            const to =
              s.kind === "sms" && s.to === "invalid"
                ? INVALID_NUMBER
                : s.kind === "sms" && s.to === "rejected"
                  ? CARRIER_REJECTED
                  : nextNumber();
            const response = await h.app.inject({
              method: "POST",
              url: "/v2/sms/send",
              payload: JSON.stringify({
                to,
                sender: "DAKIYA",
                template_id: SMS_TEMPLATE_ID,
                variables: { ref: "P" },
                ...(s.kind === "scheduled"
                  ? { send_at: new Date(h.clock.now().getTime() + 7_200_000).toISOString() }
                  : {}),
              }),
              headers: { "content-type": "application/json", ...bearer(secret) },
            });
            expect(response.statusCode, response.body).toBe(202);
            if (s.kind === "scheduled" && s.cancel) {
              const id = response.json<{ id: string }>().id;
              await h.app.inject({ method: "POST", url: `/v2/sms/${id}/cancel`, headers: bearer(secret) });
            }
            await drainQueue(h.ctx);
          } else if (s.kind === "otp") {
            const { to, code } = await h.sentOtp(secret);
            if (s.verifyAfter !== null) {
              h.clock.advance(s.verifyAfter + 0.4);
              await h.verifyOk(secret, to, code);
            }
          } else if (s.kind === "clock") {
            h.clock.advance(s.hours * 3600);
          } else {
            await foldReportDeltas(h.ctx);
          }
        }
        await expectExact(accountId, secret);
        h.clock.advance((start - h.clock.now().getTime()) / 1000);
      }),
      { numRuns: 12 },
    );
  });
});
