import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { updateAccount } from "../../src/accounts/update.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { loadConfig } from "../../src/config.js";
import { addTemplate } from "../../src/dlt/registry.js";
import { ChainHashes, parseTmChain, peTmChainHash } from "../../src/dlt/tm-chain.js";
import { sendSms } from "../../src/sms/send.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { createLiveSender, TEST_ENTITY_ID } from "../helpers/dlt-fixtures.js";
import { mobile, onWire, type RoutesRig, startRoutesRig, writeRoutesFile } from "../helpers/smpp-routes.js";

/* The PE–TM chain hash (docs/dlt-compliance.md#pe-tm-chain-hash): per message, from its template's entity. */

const TLV_TM = 0x1402;
const CONTRACT_PE = "1101172974420810001";
const CONTRACT_TM = "1101172974420830004";

describe("the PE–TM chain hash", () => {
  it("is the contract's vector: SHA-256 of the PE and the chain, comma-joined, lower-case hex", () => {
    expect(peTmChainHash(CONTRACT_PE, [CONTRACT_TM])).toBe(
      "c0c951afca257c5b87c3da535c09112080483f35b7e6faf35e2428b3b526b694",
    );
  });

  it("hashes a longer chain in its order, and the same PE with another chain differently", () => {
    const forward = peTmChainHash(CONTRACT_PE, ["1702000000000000001", CONTRACT_TM]);
    const backward = peTmChainHash(CONTRACT_PE, [CONTRACT_TM, "1702000000000000001"]);
    expect(forward).toMatch(/^[0-9a-f]{64}$/);
    expect(forward).not.toBe(backward);
    expect(new ChainHashes().of(CONTRACT_PE, [CONTRACT_TM]).toString()).toBe(
      peTmChainHash(CONTRACT_PE, [CONTRACT_TM]),
    );
  });

  it("takes 1 to 10 telemarketer ids of digits, trimmed", () => {
    expect(parseTmChain([" 1702000000000000001 "])).toEqual({ chain: ["1702000000000000001"] });
    expect(parseTmChain([])).toEqual({ problem: expect.stringMatching(/at least one/) });
    expect(parseTmChain(["17020000", "abc"])).toEqual({ problem: expect.stringMatching(/"abc"/) });
    expect(parseTmChain(["1", ""])).toEqual({ problem: expect.stringMatching(/1 to 30 digits/) });
    expect(parseTmChain(Array(11).fill("1"))).toEqual({ problem: expect.stringMatching(/at most 10/) });
  });
});

describe("tm_chain in the configuration", () => {
  const url = "smpp://dakiya:secret@127.0.0.1:2775";

  it("reads SMPP_TM_CHAIN comma-separated and a route's tm_chain as a list", () => {
    const [shorthand] =
      loadConfig({ SMPP_URL: url, SMPP_TM_CHAIN: "1702000000000000001,1702000000000000002" }).smpp ?? [];
    expect(shorthand).toMatchObject({
      tmId: undefined,
      tmChain: ["1702000000000000001", "1702000000000000002"],
    });
    const file = writeRoutesFile([{ name: "a", url, tm_chain: [CONTRACT_TM] }]);
    try {
      expect(loadConfig({ SMPP_ROUTES: file.path }).smpp?.[0]).toMatchObject({ tmChain: [CONTRACT_TM] });
    } finally {
      file.remove();
    }
  });

  it.each([
    [
      "tm_id beside tm_chain",
      [{ name: "a", url, tm_id: "1", tm_chain: ["2"] }],
      /route "a": tm_id and .*tm_chain both fill the TM TLV/,
    ],
    [
      "a tm_chain that is text",
      [{ name: "a", url, tm_chain: "1,2" }],
      /route "a": tm_chain must be a list of strings/,
    ],
    ["an empty tm_chain", [{ name: "a", url, tm_chain: [] }], /route "a": tm_chain: .*at least one/],
    ["a tm_chain with a name in it", [{ name: "a", url, tm_chain: ["TM-ONE"] }], /"TM-ONE"/],
  ])("stops the start on %s, with one line", (_what, routes, message) => {
    const file = writeRoutesFile(routes);
    try {
      expect(() => loadConfig({ SMPP_ROUTES: file.path })).toThrow(message);
    } finally {
      file.remove();
    }
  });

  it("refuses SMPP_TM_ID with SMPP_TM_CHAIN, and SMPP_TM_CHAIN beside SMPP_ROUTES", () => {
    expect(() => loadConfig({ SMPP_URL: url, SMPP_TM_ID: "1", SMPP_TM_CHAIN: "2" })).toThrow(
      /SMPP_TM_ID and SMPP_TM_CHAIN both fill the TM TLV/,
    );
    const file = writeRoutesFile([{ name: "a", url }]);
    try {
      expect(() => loadConfig({ SMPP_ROUTES: file.path, SMPP_TM_CHAIN: "2" })).toThrow(/SMPP_TM_CHAIN/);
    } finally {
      file.remove();
    }
  });
});

describe.each(DIALECTS)("the PE–TM chain on the wire, on %s", (dialect) => {
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

  /** What the SMSC received in the TM TLV for the message to `to`. */
  function tmOnWire(to: string): string | undefined {
    const submit = rig?.smscs.chain?.submits.find((s) => s.destination_addr === onWire(to));
    return submit?.tlvs.get(TLV_TM)?.toString("latin1");
  }

  async function deliveredTo(to: string): Promise<string | undefined> {
    await waitFor(async () => tmOnWire(to) !== undefined, 10_000);
    return tmOnWire(to);
  }

  it("sends each account's messages with the hash of its own PE, and an account's chain overrides the route's", async () => {
    rig = await startRoutesRig(database.url, [{ name: "chain", fields: { tm_chain: [CONTRACT_TM] } }]);
    const { ctx } = rig;
    // A second account on the same route, whose templates belong to another principal entity.
    const other = await createLiveSender(ctx, []);
    await addTemplate(
      ctx,
      {
        accountId: other.accountId,
        templateId: "1107161234567899999",
        entityId: CONTRACT_PE,
        name: "Order update",
        category: "transactional",
        senders: ["DAKIYA"],
        content: "Order {#ref#} is on its way.",
      },
      CLI_ORIGIN,
    );
    const sendAsOther = (to: string) =>
      sendSms(ctx, other.principal, {
        to,
        sender: "DAKIYA",
        template_id: "1107161234567899999",
        variables: { ref: "A1" },
      });

    await rig.send(mobile(1));
    await sendAsOther(mobile(2));
    expect(await deliveredTo(mobile(1))).toBe(peTmChainHash(TEST_ENTITY_ID, [CONTRACT_TM]));
    expect(await deliveredTo(mobile(2))).toBe(
      "c0c951afca257c5b87c3da535c09112080483f35b7e6faf35e2428b3b526b694",
    );

    // The other account goes through a reseller: its own chain, two telemarketers long.
    const view = await updateAccount(
      ctx,
      other.accountId,
      { tmChain: ["1702000000000000007", CONTRACT_TM] },
      CLI_ORIGIN,
    );
    expect(view.tm_chain).toEqual(["1702000000000000007", CONTRACT_TM]);
    await sendAsOther(mobile(3));
    await rig.send(mobile(4));
    expect(await deliveredTo(mobile(3))).toBe(
      peTmChainHash(CONTRACT_PE, ["1702000000000000007", CONTRACT_TM]),
    );
    expect(await deliveredTo(mobile(4))).toBe(peTmChainHash(TEST_ENTITY_ID, [CONTRACT_TM]));

    // Cleared: the route's chain again.
    expect((await updateAccount(ctx, other.accountId, { tmChain: null }, CLI_ORIGIN)).tm_chain).toBeNull();
    await sendAsOther(mobile(5));
    expect(await deliveredTo(mobile(5))).toBe(peTmChainHash(CONTRACT_PE, [CONTRACT_TM]));
  });

  it("sends a route's literal tm_id as it is, even for an account with its own chain", async () => {
    rig = await startRoutesRig(database.url, [{ name: "chain", fields: { tm_id: "1702000000000000001" } }]);
    await updateAccount(rig.ctx, rig.accountId, { tmChain: [CONTRACT_TM] }, CLI_ORIGIN);
    await rig.send(mobile(6));
    expect(await deliveredTo(mobile(6))).toBe("1702000000000000001");
  });

  it("sends no TM TLV on a route with neither tm_id nor tm_chain, unless the account has a chain", async () => {
    rig = await startRoutesRig(database.url, [{ name: "chain", fields: {} }]);
    await rig.send(mobile(7));
    const smsc = rig.smscs.chain;
    await waitFor(async () => (smsc?.submits.length ?? 0) === 1, 10_000);
    expect(smsc?.submits[0]?.tlvs.has(TLV_TM)).toBe(false);
    expect(smsc?.submits[0]?.tlvs.get(0x1400)?.toString()).toBe(TEST_ENTITY_ID);
    await updateAccount(rig.ctx, rig.accountId, { tmChain: [CONTRACT_TM] }, CLI_ORIGIN);
    await rig.send(mobile(8));
    expect(await deliveredTo(mobile(8))).toBe(peTmChainHash(TEST_ENTITY_ID, [CONTRACT_TM]));
  });

  it("refuses an account chain that is not DLT ids, changing nothing", async () => {
    rig = await startRoutesRig(database.url, [{ name: "chain", fields: { tm_chain: [CONTRACT_TM] } }], {
      worker: false,
    });
    await expect(
      updateAccount(rig.ctx, rig.accountId, { tmChain: ["17020", "TM"] }, CLI_ORIGIN),
    ).rejects.toMatchObject({
      code: "invalid_request",
      param: "tm_chain",
    });
    expect((await updateAccount(rig.ctx, rig.accountId, {}, CLI_ORIGIN)).tm_chain).toBeNull();
  });
});
