/**
 * The console's messages download (GET /dashboard/api/messages/export.csv): read back with a CSV
 * parser, it holds exactly the messages the list shows for the same filters, every page of them,
 * quoted where needed, Hindi intact, formula-like cells defused; a bad filter is a JSON 400; no
 * account or environment sees another's messages.
 */
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { messagesCsv } from "../../src/dashboard/messages-csv.js";
import type { App } from "../../src/http/types.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { useTestInstances } from "../helpers/instances.js";

const TEMPLATE_ID = "1107161234567890123";
const HINDI_TEMPLATE_ID = "1107161234567890124";
const ENTITY_ID = "1101456789012345678";
const FAILING_TO = "+919999999933";
const HEADER =
  "created_at,id,to,channel,status,sender,template_id,template_name,reference,text,encoding,segments," +
  "cost_inr,refund_inr,error_code,error_message,carrier_error,priority,send_at,submitted_at," +
  "delivered_at,undelivered_at,failed_at,cancelled_at,campaign_id";

/** References a spreadsheet would misread: separators, quotes, line breaks, formulas. */
const AWKWARD_REFERENCES = [
  'inv "7", part 2',
  "line one\r\nline two",
  '=HYPERLINK("https://evil.example","click")',
  "+1+1",
  "-2+3",
  "@SUM(A1:A2)",
];

interface ListedMessage {
  id: string;
  created_at: string;
  to: string;
  channel: string;
  status: string;
  sender: string | null;
  template_id: string | null;
  template_name: string | null;
  reference: string | null;
  text: string;
  encoding: string;
  segments: number;
  cost: string;
  refund: { amount: string } | null;
  error_code: string | null;
  error_message: string | null;
  carrier_error: string | null;
  priority: string;
  send_at: string | null;
  submitted_at: string | null;
  delivered_at: string | null;
  undelivered_at: string | null;
  failed_at: string | null;
  cancelled_at: string | null;
  campaign_id: string | null;
}

/** What a cell should read: the value, with an apostrophe before what a spreadsheet would run. */
function cell(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? "" : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** The row the download should hold for a message of the list, in the header's order. */
function expectedRow(message: ListedMessage): string[] {
  return [
    message.created_at,
    message.id,
    message.to,
    message.channel,
    message.status,
    message.sender,
    message.template_id,
    message.template_name,
    message.reference,
    message.text,
    message.encoding,
    message.segments,
    message.cost,
    message.refund?.amount,
    message.error_code,
    message.error_message,
    message.carrier_error,
    message.priority,
    message.send_at,
    message.submitted_at,
    message.delivered_at,
    message.undelivered_at,
    message.failed_at,
    message.cancelled_at,
    message.campaign_id,
  ].map(cell);
}

describe.each(DIALECTS)("the console's messages CSV on %s", (dialect) => {
  // 2026-11-22 15:30 IST.
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let owner: SignedIn;
  let other: SignedIn;
  let ownerKey: string;

  async function get(session: SignedIn, url: string) {
    return dashboardRequest(app, session, "GET", url);
  }

  /** Every message the list shows for the query, following `before` page by page. */
  async function listed(session: SignedIn, query: string): Promise<ListedMessage[]> {
    const items: ListedMessage[] = [];
    for (;;) {
      const before = items.at(-1)?.id;
      const response = await get(
        session,
        `/dashboard/api/messages?${query}&limit=100${before ? `&before=${before}` : ""}`,
      );
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json<{ data: ListedMessage[]; has_more: boolean }>();
      items.push(...page.data);
      if (!page.has_more) return items;
    }
  }

  /** The download for the query: its header row and records, as a CSV parser reads them. */
  async function download(session: SignedIn, query: string) {
    const response = await get(session, `/dashboard/api/messages/export.csv?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    const records: string[][] = parse(response.rawPayload, { bom: true, relax_column_count: false });
    return { response, header: records[0]?.join(","), rows: records.slice(1) };
  }

  async function send(key: string, body: Record<string, unknown>): Promise<string> {
    const response = await app.inject({
      method: "POST",
      url: "/v2/sms/send",
      headers: { authorization: `Bearer ${key}` },
      payload: { sender: "DAKIYA", template_id: TEMPLATE_ID, variables: { var1: "4821" }, ...body },
    });
    expect(response.statusCode, response.body).toBe(202);
    instances.clock.advance(1);
    return response.json<{ id: string }>().id;
  }

  beforeAll(async () => {
    ({ ctx, app } = instances);
    owner = await signedInAccount(ctx, app);
    other = await signedInAccount(ctx, app);
    const keys = new Map<SignedIn, string>();
    for (const session of [owner, other]) {
      await dashboardRequest(app, session, "POST", "/dashboard/api/sandbox/credits", { amount: "1000.00" });
      await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender: "DAKIYA" });
      for (const [template_id, name, content] of [
        [TEMPLATE_ID, "login code", "Your code is {#var#}."],
        [HINDI_TEMPLATE_ID, "लॉगिन कोड", "आपका कोड {#var#} है। इसे किसी से साझा न करें।"],
      ] as const) {
        const template = await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
          template_id,
          entity_id: ENTITY_ID,
          name,
          category: "transactional",
          senders: ["DAKIYA"],
          content,
        });
        expect(template.statusCode, template.body).toBe(201);
      }
      const key = await dashboardRequest(app, session, "POST", "/dashboard/api/keys", {
        environment: "sandbox",
      });
      keys.set(session, key.json<{ secret: string }>().secret);
    }
    ownerKey = keys.get(owner) as string;
    // 22 November, India time: the awkward references, a Hindi message and one that fails.
    for (const [i, reference] of AWKWARD_REFERENCES.entries()) {
      await send(ownerKey, { to: `+91987654320${i}`, reference });
    }
    await send(ownerKey, {
      to: "+919876543219",
      template_id: HINDI_TEMPLATE_ID,
      variables: { var1: '४८२१, "नया"' },
      reference: "हिंदी",
    });
    await send(ownerKey, { to: FAILING_TO, reference: "will-fail" });
    await drainQueue(ctx);
    // To the 23rd, India time: two more, left queued.
    instances.clock.advance(9 * 3600);
    await send(ownerKey, { to: "+919876543210", reference: "day-23-a" });
    await send(ownerKey, { to: "+919876543211", reference: "day-23-b" });
    await send(keys.get(other) as string, { to: "+919876543210", reference: "someone-else" });
  });

  it("holds exactly the messages the list shows, each field as the list has it", async () => {
    const messages = await listed(owner, "environment=sandbox");
    expect(messages).toHaveLength(AWKWARD_REFERENCES.length + 4);
    const { response, header, rows } = await download(owner, "environment=sandbox");
    expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(response.headers["content-disposition"]).toBe(
      'attachment; filename="dakiya-sandbox-messages.csv"',
    );
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(header).toBe(HEADER);
    expect(rows).toEqual(messages.map(expectedRow));
    expect(new Set(rows.map((row) => row[4]))).toEqual(new Set(["delivered", "failed", "queued"]));
  });

  it("starts with a UTF-8 byte order mark and keeps Hindi text whole", async () => {
    const { response, rows } = await download(owner, "environment=sandbox");
    expect([...response.rawPayload.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(response.body.split("\r\n")[0]).toBe(`\uFEFF${HEADER}`);
    const hindi = rows.find((row) => row[8] === "हिंदी");
    expect(hindi?.[7]).toBe("लॉगिन कोड");
    expect(hindi?.[9]).toBe('आपका कोड ४८२१, "नया" है। इसे किसी से साझा न करें।');
    expect(hindi?.[10]).toBe("ucs2");
  });

  it("quotes separators, quotes and line breaks, and defuses formulas with an apostrophe", async () => {
    const { response, rows } = await download(owner, "environment=sandbox");
    const references = rows.map((row) => row[8]);
    expect(references).toEqual(
      expect.arrayContaining([
        'inv "7", part 2',
        "line one\r\nline two",
        `'=HYPERLINK("https://evil.example","click")`,
        "'+1+1",
        "'-2+3",
        "'@SUM(A1:A2)",
      ]),
    );
    // On the wire, RFC 4180: the field in quotes, its own quotes doubled.
    expect(response.body).toContain(`,"inv ""7"", part 2",`);
    expect(response.body).toContain(`,"'=HYPERLINK(""https://evil.example"",""click"")",`);
    // Numbers keep their plus as text in a spreadsheet.
    expect(rows.every((row) => row[2]?.startsWith("'+91"))).toBe(true);
  });

  it("downloads only what the filters match, as the list does", async () => {
    for (const query of [
      "status=failed",
      "status=queued",
      "channel=sms",
      "channel=voice",
      "to=9876543210",
      "to=3211",
      "from=2026-11-23",
      "until=2026-11-22",
      "from=2026-11-22&until=2026-11-22&status=delivered",
      "from=2026-11-24",
    ]) {
      const messages = await listed(owner, `environment=sandbox&${query}`);
      const { rows } = await download(owner, `environment=sandbox&${query}`);
      expect(rows, query).toEqual(messages.map(expectedRow));
    }
    const failed = await download(owner, "environment=sandbox&status=failed");
    expect(failed.rows.map((row) => row[8])).toEqual(["will-fail"]);
    const dated = await download(owner, "environment=sandbox&from=2026-11-23&until=2026-11-23");
    expect(dated.response.headers["content-disposition"]).toBe(
      'attachment; filename="dakiya-sandbox-messages-from-2026-11-23-to-2026-11-23.csv"',
    );
    expect(dated.rows.map((row) => row[8])).toEqual(["day-23-b", "day-23-a"]);
  });

  it("never holds another account's or environment's messages", async () => {
    const others = await download(other, "environment=sandbox");
    expect(others.rows.map((row) => row[8])).toEqual(["someone-else"]);
    const live = await download(owner, "environment=live");
    expect(live.header).toBe(HEADER);
    expect(live.rows).toEqual([]);
  });

  it("refuses a bad filter with a JSON error naming it, before any CSV", async () => {
    for (const [query, param] of [
      ["from=2026-02-30", "from"],
      ["until=yesterday", "until"],
      ["from=2026-11-23&until=2026-11-22", "until"],
      ["to=12ab", "to"],
      ["status=lost", "status"],
      ["channel=fax", "channel"],
      ["limit=5", undefined],
    ] as const) {
      const response = await get(owner, `/dashboard/api/messages/export.csv?environment=sandbox&${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers["content-type"], query).toMatch(/json/);
      expect(response.json().error.code, query).toBe("invalid_request");
      if (param) expect(response.json().error.param, query).toBe(param);
    }
    const missing = await get(owner, "/dashboard/api/messages/export.csv");
    expect(missing.statusCode).toBe(400);
  });

  it("needs a session", async () => {
    const response = await app.inject({
      method: "GET",
      url: "/dashboard/api/messages/export.csv?environment=sandbox",
    });
    expect(response.statusCode).toBe(401);
  });

  it("streams more messages than one read batch whole, in the list's order, and stops at its cap", async () => {
    const session = await signedInAccount(ctx, app);
    await dashboardRequest(app, session, "POST", "/dashboard/api/sandbox/credits", { amount: "1000.00" });
    await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender: "DAKIYA" });
    await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
      template_id: TEMPLATE_ID,
      entity_id: ENTITY_ID,
      name: "login code",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Your code is {#var#}.",
    });
    const key = (
      await dashboardRequest(app, session, "POST", "/dashboard/api/keys", { environment: "sandbox" })
    ).json<{ secret: string }>().secret;
    // Two batches: many messages share a millisecond, which the keyset must page through.
    for (const [start, count] of [
      [0, 1_000],
      [1_000, 203],
    ] as const) {
      const response = await app.inject({
        method: "POST",
        url: "/v2/sms/batch",
        headers: { authorization: `Bearer ${key}` },
        payload: {
          messages: Array.from({ length: count }, (_, i) => ({
            to: "+919876543210",
            sender: "DAKIYA",
            template_id: TEMPLATE_ID,
            variables: { var1: "4821" },
            reference: `r${start + i}`,
          })),
        },
      });
      expect(response.json().accepted, response.body).toBe(count);
      instances.clock.advance(1);
    }
    const listedIds = (await listed(session, "environment=sandbox")).map((message) => message.id);
    expect(listedIds).toHaveLength(1_203);
    const { rows } = await download(session, "environment=sandbox");
    expect(rows.map((row) => row[1])).toEqual(listedIds);

    // The cap, small here: the newest that many, across a batch boundary.
    const capped = messagesCsv(ctx, { accountId: session.accountId, environment: "sandbox" }, {}, 501);
    const chunks: Buffer[] = [];
    for await (const chunk of capped) chunks.push(Buffer.from(chunk));
    const cappedRows: string[][] = parse(Buffer.concat(chunks), { bom: true });
    expect(cappedRows.slice(1).map((row) => row[1])).toEqual(listedIds.slice(0, 501));
  }, 120_000);
});
