import { beforeAll, describe, expect, it } from "vitest";
import type { MessageView } from "../../src/messages/store.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import {
  CARRIER_REJECTED,
  INVALID_NUMBER,
  nextNumber,
  type Query,
  queryString,
  useEventsHarness,
} from "../helpers/events.js";

type Page = { data: MessageView[]; has_more: boolean };

describe.each(DIALECTS)("GET /v2/sms on %s", (dialect) => {
  const h = useEventsHarness(dialect);
  let secret: string;
  /** Every message sent for the account, newest first, as the list should order them. */
  let all: MessageView[];
  const regular = nextNumber();
  const start = h.clock.now().toISOString();

  function list(query: Query = {}, key = secret) {
    return h.get(key, `/v2/sms?${queryString(query)}`);
  }

  async function listOk(query: Query = {}, key = secret): Promise<Page> {
    const response = await list(query, key);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Page>();
  }

  /** Newest first: later creation first, and within one millisecond the larger id first. */
  function newestFirst(messages: MessageView[]): MessageView[] {
    return [...messages].sort((a, b) =>
      a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
    );
  }

  beforeAll(async () => {
    ({ secret } = await h.account());
    const sent: MessageView[] = [];
    // 25 messages in one millisecond (the test clock stands still), so paging must break ties by id...
    for (let i = 0; i < 25; i++) sent.push(await h.sendSms(secret, regular, `order-${i % 5}`));
    // ...then some later ones, to other numbers, some that fail or are undelivered.
    h.clock.advance(60);
    sent.push(await h.sendSms(secret, INVALID_NUMBER, "order-x"));
    sent.push(await h.sendSms(secret, CARRIER_REJECTED));
    h.clock.advance(60);
    sent.push(await h.sendSms(secret, nextNumber()));
    await drainQueue(h.ctx);
    all = [];
    for (const message of newestFirst(sent))
      all.push(await h.getOk<MessageView>(secret, `/v2/sms/${message.id}`));
  });

  it("lists newest first, 20 by default, each item as GET /v2/sms/{id} shows it", async () => {
    const page = await listOk();
    expect(page.has_more).toBe(true);
    expect(page.data).toEqual(all.slice(0, 20));
    expect(page.data[0]?.carrier_message_ids).toHaveLength(1);
  });

  it("pages with starting_after through messages of the same millisecond, each once", async () => {
    const seen: string[] = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await listOk({ limit: 4, starting_after: startingAfter });
      seen.push(...page.data.map((m) => m.id));
      if (!page.has_more) break;
      startingAfter = page.data.at(-1)?.id;
    }
    expect(seen).toEqual(all.map((m) => m.id));
    const last = await listOk({ starting_after: all.at(-1)?.id });
    expect(last).toEqual({ data: [], has_more: false });
  });

  it("filters by status, to, reference and creation time", async () => {
    expect((await listOk({ status: "undelivered" })).data.map((m) => m.to)).toEqual([INVALID_NUMBER]);
    expect((await listOk({ status: "failed" })).data.map((m) => m.error_code)).toEqual(["carrier_rejected"]);
    expect((await listOk({ status: "queued" })).data).toEqual([]);

    const toRegular = await listOk({ to: regular, limit: 100 });
    expect(toRegular.data.map((m) => m.id)).toEqual(all.filter((m) => m.to === regular).map((m) => m.id));
    expect(toRegular.data).toHaveLength(25);

    const order3 = await listOk({ reference: "order-3", to: regular, status: "delivered" });
    expect(order3.data).toHaveLength(5);
    expect(order3.data.every((m) => m.reference === "order-3")).toBe(true);

    // created_after is inclusive, created_before exclusive; any RFC 3339 offset works.
    const firstMinute = await listOk({
      created_before: new Date(Date.parse(start) + 1).toISOString(),
      limit: 100,
    });
    expect(firstMinute.data).toHaveLength(25);
    const fromStart = await listOk({ created_after: start, limit: 100 });
    expect(fromStart.data).toHaveLength(all.length);
    const later = await listOk({ created_after: "2026-11-22T15:31:00+05:30" });
    expect(later.data).toEqual(all.slice(0, 3));
    const between = await listOk({
      created_after: "2026-11-22T10:01:00Z",
      created_before: "2026-11-22T10:02:00.000Z",
    });
    expect(between.data.map((m) => m.to).sort()).toEqual([CARRIER_REJECTED, INVALID_NUMBER].sort());

    // Paging keeps the filter.
    const firstPage = await listOk({ to: regular, limit: 10 });
    const secondPage = await listOk({ to: regular, limit: 10, starting_after: firstPage.data.at(-1)?.id });
    expect([...firstPage.data, ...secondPage.data].map((m) => m.id)).toEqual(
      toRegular.data.slice(0, 20).map((m) => m.id),
    );
  });

  it("refuses bad queries with invalid_request", async () => {
    for (const query of [
      "limit=0",
      "limit=101",
      "limit=ten",
      "status=sent",
      "to=9876543210",
      "created_after=yesterday",
      "created_before=2026-11-22",
      "sort=asc",
      `reference=${"r".repeat(65)}`,
    ]) {
      const response = await h.get(secret, `/v2/sms?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code, query).toBe("invalid_request");
    }
  });

  it("is scoped to the key's account and environment; other cursors are not_found", async () => {
    const stranger = await h.account();
    const live = await h.account("live");
    const strangers = await h.sendSms(stranger.secret, nextNumber());
    expect((await listOk({}, stranger.secret)).data.map((m) => m.id)).toEqual([strangers.id]);
    expect(await listOk({}, live.secret)).toEqual({ data: [], has_more: false });

    for (const [key, cursor] of [
      [secret, strangers.id],
      [live.secret, all[0]?.id],
      [secret, "msg_doesnotexist000000000000"],
    ] as const) {
      const response = await list({ starting_after: cursor }, key);
      expect(response.statusCode).toBe(404);
      expect(response.json().error).toMatchObject({ code: "not_found", param: "starting_after" });
    }
    expect((await h.app.inject({ method: "GET", url: "/v2/sms" })).statusCode).toBe(401);
  });

  it("is in the OpenAPI document", async () => {
    const document = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const operation = document.paths["/v2/sms"]?.get;
    expect(operation).toMatchObject({ tags: ["SMS"], summary: expect.any(String) });
    const parameters = (operation.parameters as Array<{ name: string }>).map((p) => p.name);
    expect(parameters).toEqual(
      expect.arrayContaining([
        "status",
        "to",
        "reference",
        "created_after",
        "created_before",
        "starting_after",
        "limit",
      ]),
    );
  });
});
