/**
 * The console's ledger (GET /dashboard/api/ledger and its CSV) and the messages list's columns
 * and date range: days of India time, paging within a filter, and no account or environment ever
 * seeing another's entries.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { changeBalance } from "../../src/accounts/ledger.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { useTestInstances } from "../helpers/instances.js";

const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";
/** Quotes, a comma, and a start a spreadsheet would run as a formula. */
const AWKWARD_REFERENCE = '=inv "7", part 2';

interface Entry {
  id: string;
  amount: string;
  balance_after: string;
  reason: string;
  reference: string | null;
  message_id: string | null;
  created_at: string;
}

describe.each(DIALECTS)("dashboard ledger and message filters on %s", (dialect) => {
  // 2026-11-22 15:30 IST.
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let owner: SignedIn;
  let other: SignedIn;
  /** Messages sent on 22 November (India time), then on the 23rd, oldest first. */
  const sent = { day22: [] as string[], day23: [] as string[] };
  let failed: string;
  let awkwardEntry: string;

  async function get(session: SignedIn, url: string) {
    return dashboardRequest(app, session, "GET", url);
  }

  async function ledger(session: SignedIn, query: string): Promise<{ data: Entry[]; has_more: boolean }> {
    const response = await get(session, `/dashboard/api/ledger?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  /** Every page of a listing, `limit` at a time, following `before`. */
  async function allPages<T extends { id: string }>(
    session: SignedIn,
    path: string,
    query: string,
    limit: number,
  ): Promise<T[]> {
    const items: T[] = [];
    for (let page = 0; page < 50; page++) {
      const before = items.at(-1)?.id;
      const response = await get(
        session,
        `${path}?${query}&limit=${limit}${before ? `&before=${before}` : ""}`,
      );
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json<{ data: T[]; has_more: boolean }>();
      items.push(...body.data);
      if (!body.has_more) return items;
      expect(body.data).toHaveLength(limit);
    }
    throw new Error("paging did not end");
  }

  beforeAll(async () => {
    ({ ctx, app } = instances);
    owner = await signedInAccount(ctx, app);
    other = await signedInAccount(ctx, app);
    for (const session of [owner, other]) {
      await dashboardRequest(app, session, "POST", "/dashboard/api/sandbox/credits", { amount: "100.00" });
      await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender: "DAKIYA" });
      const template = await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
        template_id: TEMPLATE_ID,
        entity_id: ENTITY_ID,
        name: session === owner ? "login code" : "other's name",
        category: "transactional",
        senders: ["DAKIYA"],
        content: "Your code is {#var#}.",
      });
      expect(template.statusCode, template.body).toBe(201);
    }
    const key = (
      await dashboardRequest(app, owner, "POST", "/dashboard/api/keys", { environment: "sandbox" })
    ).json<{ secret: string }>();
    const send = async (to: string, reference: string) => {
      const response = await app.inject({
        method: "POST",
        url: "/v2/sms/send",
        headers: { authorization: `Bearer ${key.secret}` },
        payload: { to, sender: "DAKIYA", template_id: TEMPLATE_ID, variables: { var1: "4821" }, reference },
      });
      expect(response.statusCode, response.body).toBe(202);
      await drainQueue(ctx);
      instances.clock.advance(1);
      return response.json<{ id: string }>().id;
    };
    // 22 November, India time: three sends, one of them failing (and refunded), and a credit
    // whose reference needs quoting in CSV.
    sent.day22.push(await send("+919876543210", "order-1"));
    failed = await send("+919999999933", "order-2");
    sent.day22.push(failed);
    sent.day22.push(await send("+919876543211", "order-3"));
    awkwardEntry = (
      await changeBalance(ctx, {
        accountId: owner.accountId,
        environment: "sandbox",
        amount: 10_000,
        reason: "credits_added",
        reference: AWKWARD_REFERENCE,
      })
    ).id;
    // To 00:30 IST on the 23rd (19:00 UTC on the 22nd): two more.
    instances.clock.advance(9 * 3600 - 4);
    sent.day23.push(await send("+919876543212", "order-4"));
    sent.day23.push(await send("+919876543213", "order-5"));
    // The owner's live ledger, and the other account's sandbox one, must stay apart.
    await changeBalance(ctx, {
      accountId: owner.accountId,
      environment: "live",
      amount: 50_000,
      reason: "credits_added",
      reference: "live-invoice",
    });
  });

  describe("the messages list", () => {
    it("shows each message's sender, template name, reference and error", async () => {
      const response = await get(owner, "/dashboard/api/messages?environment=sandbox");
      const messages = response.json<{ data: Array<Record<string, unknown>> }>().data;
      expect(messages.map((message) => message.id)).toEqual([...sent.day22, ...sent.day23].reverse());
      for (const message of messages) {
        expect(message).toMatchObject({
          sender: "DAKIYA",
          template_id: TEMPLATE_ID,
          template_name: "login code",
        });
      }
      const failure = messages.find((message) => message.id === failed);
      expect(failure).toMatchObject({
        reference: "order-2",
        status: "failed",
        error_code: "carrier_rejected",
      });
      expect(messages.filter((message) => message.error_code !== null)).toHaveLength(1);
    });

    it("filters by days of India time, both ends included, and pages within the filter", async () => {
      const list = (query: string) =>
        allPages<{ id: string }>(owner, "/dashboard/api/messages", `environment=sandbox&${query}`, 1);
      const ids = async (query: string) => (await list(query)).map((message) => message.id);
      expect(await ids("from=2026-11-23")).toEqual([...sent.day23].reverse());
      expect(await ids("until=2026-11-22")).toEqual([...sent.day22].reverse());
      expect(await ids("from=2026-11-22&until=2026-11-22")).toEqual([...sent.day22].reverse());
      expect(await ids("from=2026-11-22&until=2026-11-23")).toEqual([...sent.day22, ...sent.day23].reverse());
      expect(await ids("from=2026-11-24")).toEqual([]);
      expect(await ids("until=2026-11-21")).toEqual([]);
      expect(await ids("from=2026-11-22&until=2026-11-22&status=failed")).toEqual([failed]);
      // Two at a time through the 22nd: 2 then 1.
      expect(
        (await allPages(owner, "/dashboard/api/messages", "environment=sandbox&until=2026-11-22", 2)).map(
          (m) => m.id,
        ),
      ).toEqual([...sent.day22].reverse());
    });

    it("refuses a bad date or a range that ends before it starts, naming the parameter", async () => {
      for (const [query, param] of [
        ["from=2026-02-30", "from"],
        ["from=22-11-2026", "from"],
        ["until=2026-11-22T00:00:00Z", "until"],
        ["until=yesterday", "until"],
        ["from=2026-11-23&until=2026-11-22", "until"],
      ] as const) {
        const response = await get(owner, `/dashboard/api/messages?environment=sandbox&${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(response.json().error, query).toMatchObject({ code: "invalid_request", param });
      }
    });

    it("never shows another account's messages, nor names their templates", async () => {
      const response = await get(other, "/dashboard/api/messages?environment=sandbox&from=2026-11-01");
      expect(response.json().data).toEqual([]);
    });
  });

  describe("the ledger", () => {
    it("lists the environment's entries newest first, charges and refunds linked to their message", async () => {
      const { data, has_more } = await ledger(owner, "environment=sandbox");
      expect(has_more).toBe(false);
      // A top-up, five charges, a refund and a credit.
      expect(data.map((entry) => entry.reason).sort()).toEqual(
        [
          "credits_added",
          "sandbox_top_up",
          "sms_charge",
          "sms_charge",
          "sms_charge",
          "sms_charge",
          "sms_charge",
          "sms_refund",
        ].sort(),
      );
      const times = data.map((entry) => `${entry.created_at} ${entry.id}`);
      expect(times).toEqual([...times].sort().reverse());
      for (const entry of data) {
        const forMessage = entry.reason === "sms_charge" || entry.reason === "sms_refund";
        expect(entry.message_id).toBe(forMessage ? entry.reference : null);
      }
      expect(data.find((entry) => entry.reason === "sms_refund")?.message_id).toBe(failed);
      expect(data[0]?.balance_after).toMatch(/^\d+\.\d{4}$/);
      expect(data.find((entry) => entry.id === awkwardEntry)).toMatchObject({
        amount: "1.0000",
        reference: AWKWARD_REFERENCE,
      });
    });

    it("keeps environments and accounts apart", async () => {
      const live = await ledger(owner, "environment=live");
      expect(live.data.map((entry) => entry.reference)).toEqual(["live-invoice"]);
      const others = await ledger(other, "environment=sandbox");
      expect(others.data.map((entry) => entry.reason)).toEqual(["sandbox_top_up"]);
      const ownIds = new Set((await ledger(owner, "environment=sandbox")).data.map((entry) => entry.id));
      expect(others.data.some((entry) => ownIds.has(entry.id))).toBe(false);
      // Paging from someone else's entry, or from another environment's, is refused.
      for (const [session, query] of [
        [other, `environment=sandbox&before=${awkwardEntry}`],
        [owner, `environment=live&before=${awkwardEntry}`],
      ] as const) {
        const response = await get(session, `/dashboard/api/ledger?${query}`);
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toMatchObject({ code: "invalid_request", param: "before" });
      }
    });

    it("pages with before and has_more, within a date range", async () => {
      const whole = (await ledger(owner, "environment=sandbox")).data.map((entry) => entry.id);
      for (const limit of [1, 3]) {
        const paged = await allPages<Entry>(owner, "/dashboard/api/ledger", "environment=sandbox", limit);
        expect(paged.map((entry) => entry.id)).toEqual(whole);
      }
      const day23 = await allPages<Entry>(
        owner,
        "/dashboard/api/ledger",
        "environment=sandbox&from=2026-11-23",
        1,
      );
      expect(day23.map((entry) => entry.message_id)).toEqual([...sent.day23].reverse());
      const day22 = await allPages<Entry>(
        owner,
        "/dashboard/api/ledger",
        "environment=sandbox&from=2026-11-22&to=2026-11-22",
        2,
      );
      expect(day22.map((entry) => entry.id)).toEqual(whole.slice(2));
    });

    it("refuses a bad date or a range that ends before it starts", async () => {
      for (const path of ["/dashboard/api/ledger", "/dashboard/api/ledger.csv"]) {
        for (const [query, param] of [
          ["from=2026-13-01", "from"],
          ["to=2026-11-31", "to"],
          ["from=2026-11-23&to=2026-11-22", "to"],
        ] as const) {
          const response = await get(owner, `${path}?environment=sandbox&${query}`);
          expect(response.statusCode, `${path} ${query}`).toBe(400);
          expect(response.headers["content-type"]).toMatch(/json/);
          expect(response.json().error).toMatchObject({ code: "invalid_request", param });
        }
      }
    });

    it("downloads the entries as CSV, quoting what needs it", async () => {
      const { data } = await ledger(owner, "environment=sandbox");
      const response = await get(owner, "/dashboard/api/ledger.csv?environment=sandbox");
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8");
      expect(response.headers["content-disposition"]).toBe(
        'attachment; filename="dakiya-sandbox-ledger.csv"',
      );
      const lines = response.body.split("\r\n");
      expect(lines.at(-1)).toBe("");
      expect(lines.slice(0, -1)).toEqual([
        "created_at,id,reason,amount_inr,balance_after_inr,reference",
        ...data.map((entry) =>
          entry.id === awkwardEntry
            ? `${entry.created_at},${entry.id},credits_added,1.0000,${entry.balance_after},"'=inv ""7"", part 2"`
            : `${entry.created_at},${entry.id},${entry.reason},${entry.amount},${entry.balance_after},${entry.reference ?? ""}`,
        ),
      ]);
      expect(data.find((entry) => entry.reason === "sms_charge")?.amount).toMatch(/^-\d+\.\d{4}$/);
    });

    it("downloads only the range asked for, and only the account's own entries", async () => {
      const response = await get(
        owner,
        "/dashboard/api/ledger.csv?environment=sandbox&from=2026-11-23&to=2026-11-23",
      );
      expect(response.headers["content-disposition"]).toBe(
        'attachment; filename="dakiya-sandbox-ledger-from-2026-11-23-to-2026-11-23.csv"',
      );
      const rows = response.body.trim().split("\r\n").slice(1);
      expect(rows.map((row) => row.split(",").at(-1))).toEqual([...sent.day23].reverse());

      const others = await get(other, "/dashboard/api/ledger.csv?environment=sandbox");
      const otherRows = others.body.trim().split("\r\n");
      expect(otherRows).toHaveLength(2);
      expect(otherRows[1]).toMatch(/,sandbox_top_up,100\.0000,100\.0000,$/);
      const live = await get(owner, "/dashboard/api/ledger.csv?environment=live");
      expect(
        live.body
          .trim()
          .split("\r\n")
          .slice(1)
          .map((row) => row.split(",").at(-1)),
      ).toEqual(["live-invoice"]);
    });

    it("streams a ledger longer than one read batch whole, in order", async () => {
      const session = await signedInAccount(ctx, app);
      for (let i = 0; i < 1_203; i++) {
        await changeBalance(ctx, {
          accountId: session.accountId,
          environment: "live",
          amount: 1,
          reason: "credits_added",
          reference: `r${i}`,
        });
        instances.clock.advance(0.001);
      }
      const response = await get(session, "/dashboard/api/ledger.csv?environment=live");
      const rows = response.body.trim().split("\r\n").slice(1);
      expect(rows.map((row) => row.split(",").at(-1))).toEqual(
        Array.from({ length: 1_203 }, (_, i) => `r${1_202 - i}`),
      );
    }, 60_000);

    it("needs a session", async () => {
      for (const url of [
        "/dashboard/api/ledger?environment=sandbox",
        "/dashboard/api/ledger.csv?environment=sandbox",
      ]) {
        const response = await app.inject({ method: "GET", url });
        expect(response.statusCode).toBe(401);
      }
    });
  });
});
