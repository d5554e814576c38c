import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getBalance } from "../../src/accounts/ledger.js";
import { buildApp } from "../../src/app.js";
import { carries, type RouteTraffic, unroutedTraffic } from "../../src/delivery/carriers/route-selection.js";
import { sendSms } from "../../src/sms/send.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import {
  mobile,
  onWire,
  outboundSms,
  type RouteSpec,
  type RoutesRig,
  startRoutesRig,
} from "../helpers/smpp-routes.js";

/* Routes by traffic: a route's categories, accounts and senders, no_route, and /readyz (docs/routes.md). */

const BANK_TEMPLATE_ID = "1107161234567890999";
const SMS_PRICE = 2_500;

describe("which routes may carry a message", () => {
  const traffic = (lists: Partial<RouteTraffic>): RouteTraffic => ({
    categories: undefined,
    accounts: undefined,
    senders: undefined,
    ...lists,
  });

  it("takes a route only when every list it has holds the message", () => {
    const otpOfA = traffic({ categories: new Set(["otp"]), accounts: new Set(["acct_partnerA"]) });
    expect(carries(otpOfA, outboundSms({ category: "otp" }))).toBe(true);
    expect(carries(otpOfA, outboundSms({ category: "transactional" }))).toBe(false);
    expect(carries(otpOfA, outboundSms({ category: "otp", accountId: "acct_partnerB" }))).toBe(false);
    expect(carries(traffic({}), outboundSms({ category: "promotional", sender: null }))).toBe(true);
  });

  it("compares senders without regard to case, and never matches a message without one", () => {
    const dakiya = traffic({ senders: new Set(["DAKIYA"]) });
    expect(carries(dakiya, outboundSms({ sender: "dakiya" }))).toBe(true);
    expect(carries(dakiya, outboundSms({ sender: "DKYBNK" }))).toBe(false);
    expect(carries(dakiya, outboundSms({ sender: null }))).toBe(false);
  });

  it("sends a message of before categories (category null) only to routes that list none", () => {
    expect(
      carries(traffic({ categories: new Set(["transactional"]) }), outboundSms({ category: null })),
    ).toBe(false);
    expect(carries(traffic({ senders: new Set(["DAKIYA"]) }), outboundSms({ category: null }))).toBe(true);
  });

  it("names the categories no route carries, and whether every route lists accounts or senders", () => {
    expect(
      unroutedTraffic([
        { traffic: traffic({ categories: new Set(["otp"]), accounts: new Set(["acct_a"]) }) },
        {
          traffic: traffic({ categories: new Set(["transactional", "otp"]), accounts: new Set(["acct_b"]) }),
        },
      ]),
    ).toEqual({
      categories: ["service_implicit", "service_explicit", "promotional"],
      accountsListedOnly: true,
      sendersListedOnly: false,
    });
    expect(
      unroutedTraffic([
        { traffic: traffic({ categories: new Set(["otp"]) }) },
        { traffic: traffic({ senders: new Set(["DAKIYA"]) }) },
      ]),
    ).toEqual({ categories: [], accountsListedOnly: false, sendersListedOnly: false });
  });
});

describe.each(DIALECTS)("SMS routes by traffic on %s", (dialect) => {
  let database: TestDatabase;
  let rig: RoutesRig | undefined;

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });

  afterEach(async () => {
    await rig?.stop();
    rig = undefined;
    await database.drop();
  });

  /** A rig whose account also sends as DKYBNK (a transactional template of its own); the worker is started. */
  async function start(specs: RouteSpec[]) {
    rig = await startRoutesRig(database.url, specs, { worker: false });
    const current = rig;
    await registerDlt(current.ctx, current.accountId, {
      senders: ["DKYBNK"],
      templates: [{ templateId: BANK_TEMPLATE_ID, content: "Your code is {#code#}. -Bank" }],
    });
    current.startWorker();
    await waitFor(async () => current.carrier.routes().every((route) => route.bound), 5_000);
    const sendAsBank = (to: string) =>
      sendSms(current.ctx, current.principal, {
        to,
        sender: "DKYBNK",
        template_id: BANK_TEMPLATE_ID,
        variables: { code: "5678" },
      });
    return { ...current, sendAsBank };
  }

  async function rowOf(id: string) {
    return rig?.ctx.db
      .selectFrom("messages")
      .select(["status", "error_code", "error_message", "route", "cost"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
  }

  it("sends a message only on a route that carries its category and sender, and fails and refunds one no route carries", async () => {
    const current = await start([
      { name: "otp", fields: { priority: 1, categories: ["otp"] } },
      {
        name: "alerts",
        fields: { priority: 2, categories: ["transactional", "service_implicit"], senders: ["dakiya"] },
      },
    ]);
    const before = await getBalance(current.ctx.db, current.accountId, "live");
    const carried = await current.send(mobile(1));
    const stranded = await current.sendAsBank(mobile(2));
    await current.drained();

    expect(await rowOf(carried.id)).toMatchObject({ status: "submitted", route: "alerts" });
    expect(await rowOf(stranded.id)).toMatchObject({
      status: "failed",
      error_code: "no_route",
      error_message: expect.stringMatching(
        /^No SMSC route carries this message's traffic \(category transactional, account acct_\w+, sender DKYBNK\)\.$/,
      ),
      route: null,
    });
    // The stranded message was charged and its charge came back; nothing reached either SMSC for it.
    expect(await getBalance(current.ctx.db, current.accountId, "live")).toBe(before - SMS_PRICE);
    const ledger = await current.ctx.db
      .selectFrom("ledger_entries")
      .select("amount")
      .where("reference", "=", stranded.id)
      .execute();
    expect(ledger.map((entry) => Number(entry.amount)).sort((a, b) => a - b)).toEqual([
      -SMS_PRICE,
      SMS_PRICE,
    ]);
    expect(current.smscs.otp?.submits).toHaveLength(0);
    expect(current.smscs.alerts?.submits.map((submit) => submit.destination_addr)).toEqual([
      onWire(mobile(1)),
    ]);
    const failed = await current.ctx.db
      .selectFrom("events")
      .select("data")
      .where("type", "=", "sms.failed")
      .execute();
    expect(failed.map((event) => JSON.parse(event.data).id)).toEqual([stranded.id]);

    const app = await buildApp(current.ctx);
    try {
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().unrouted).toEqual({
        categories: ["service_explicit", "promotional"],
        accounts_listed_only: false,
        senders_listed_only: false,
      });
    } finally {
      await app.close();
    }
  });

  it("fails with no_route the messages of an account no route lists, and carries those of the accounts listed", async () => {
    const current = await start([
      { name: "partner-a", fields: { accounts: ["acct_partnerA"] } },
      { name: "partner-b", fields: { accounts: ["acct_partnerB", "acct_partnerC"], senders: ["DKYBNK"] } },
    ]);
    const before = await getBalance(current.ctx.db, current.accountId, "live");
    const stranded = await current.send(mobile(3));
    await current.drained();
    expect(await rowOf(stranded.id)).toMatchObject({ status: "failed", error_code: "no_route" });
    expect(await getBalance(current.ctx.db, current.accountId, "live")).toBe(before);

    // The listed accounts' traffic goes to their own route, whatever the turn of selection.
    for (let i = 0; i < 4; i++) {
      const result = await current.carrier.send(outboundSms({ id: `msg_a${i}`, accountId: "acct_partnerA" }));
      expect(result).toMatchObject({ outcome: "accepted", route: { name: "partner-a" } });
    }
    expect(
      await current.carrier.send(outboundSms({ id: "msg_b", accountId: "acct_partnerC", sender: "dkybnk" })),
    ).toMatchObject({ outcome: "accepted", route: { name: "partner-b" } });
    expect(
      await current.carrier.send(outboundSms({ id: "msg_c", accountId: "acct_partnerC" })),
    ).toMatchObject({
      outcome: "permanent",
      errorCode: "no_route",
    });
    // An OTP's copy for another route, when the route it avoids is the only one for its account.
    expect(
      await current.carrier.send(
        outboundSms({ id: "msg_copy", accountId: "acct_partnerA", avoidRoutes: ["partner-a"] }),
      ),
    ).toMatchObject({ outcome: "permanent", errorCode: "no_route" });

    const app = await buildApp(current.ctx);
    try {
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      expect(ready.json().unrouted).toEqual({
        categories: [],
        accounts_listed_only: true,
        senders_listed_only: false,
      });
    } finally {
      await app.close();
    }
  });
});
