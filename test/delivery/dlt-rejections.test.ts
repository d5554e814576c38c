import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import {
  DEFAULT_REJECTIONS,
  parseErrorMapKey,
  REJECTION_CODES,
  RejectionTable,
} from "../../src/delivery/carriers/dlt-rejections.js";
import { parseRoutesFile } from "../../src/delivery/carriers/smpp-config.js";
import { ConfigError } from "../../src/errors.js";
import { parseReceiptText, toReceipt } from "../../src/receipts/smpp-receipt.js";

/* Operator rejections by name: the default table, a route's error_map, and receipts read with them (docs/dlt-compliance.md). */

const URL_A = "smpp://dakiya:s3cret@10.0.0.1:2775";
const URL_B = "smpp://other:pw@10.0.0.2:2775";

function routesError(routes: unknown): string {
  try {
    parseRoutesFile(JSON.stringify(routes));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toMatch(/[\r\n]/);
    return message;
  }
  throw new Error("expected a ConfigError");
}

function receiptOf(text: string, table = DEFAULT_REJECTIONS) {
  const parsed = parseReceiptText(text);
  if (!parsed) throw new Error(`not a receipt: ${text}`);
  return toReceipt("smpp:a", parsed.id, parsed, table);
}

describe("the default table of operator rejections", () => {
  it("names the DLT scrubbing codes the sources agree on", () => {
    expect(DEFAULT_REJECTIONS.receipt("623")).toBe("dlt_header_not_registered");
    expect(DEFAULT_REJECTIONS.receipt("620")).toBe("dlt_header_not_registered");
    expect(DEFAULT_REJECTIONS.receipt("634")).toBe("dlt_header_not_registered");
    expect(DEFAULT_REJECTIONS.receipt("630")).toBe("dlt_template_not_registered");
    expect(DEFAULT_REJECTIONS.receipt("633")).toBe("dlt_template_mismatch");
    expect(DEFAULT_REJECTIONS.receipt("635")).toBe("dlt_template_mismatch");
    expect(DEFAULT_REJECTIONS.receipt("5601")).toBe("dlt_pe_tm_hash_invalid");
    expect(DEFAULT_REJECTIONS.receipt("812")).toBe("dlt_pe_tm_hash_invalid");
    expect(DEFAULT_REJECTIONS.receipt("650")).toBe("dnd_blocked");
    expect(DEFAULT_REJECTIONS.receipt("660")).toBe("dlt_consent_missing");
    expect(DEFAULT_REJECTIONS.receipt("601")).toBe("carrier_rejected");
  });

  it("reads receipt codes with leading zeros alike, and leaves handset errors and unknown codes unnamed", () => {
    expect(DEFAULT_REJECTIONS.receipt("0623")).toBe("dlt_header_not_registered");
    for (const err of ["000", "006", "001", "666", "670", "701", "5901", "abc", ""]) {
      expect(DEFAULT_REJECTIONS.receipt(err), err).toBeUndefined();
    }
  });

  it("has no submit_sm_resp status of its own: no public source names an SMSC's", () => {
    for (const status of [0x0b, 0x45, 0x400, 0x45a, 0x4ff])
      expect(DEFAULT_REJECTIONS.status(status)).toBeUndefined();
  });

  it("lets an error_map add statuses and override receipt codes, for its route only", () => {
    const table = new RejectionTable(
      new Map([
        ["0x0000045A", "dlt_template_mismatch"],
        ["623", "carrier_rejected"],
        ["701", "dlt_cta_not_whitelisted"],
      ] as const),
    );
    expect(table.status(0x45a)).toBe("dlt_template_mismatch");
    expect(table.receipt("623")).toBe("carrier_rejected");
    expect(table.receipt("701")).toBe("dlt_cta_not_whitelisted");
    expect(table.receipt("633")).toBe("dlt_template_mismatch");
    expect(DEFAULT_REJECTIONS.receipt("623")).toBe("dlt_header_not_registered");
    expect(DEFAULT_REJECTIONS.status(0x45a)).toBeUndefined();
  });

  it("parses error_map keys of either kind and nothing else", () => {
    expect(parseErrorMapKey("0x0000045A")).toEqual({ kind: "status", status: 0x45a });
    expect(parseErrorMapKey("0x0000045a")).toEqual({ kind: "status", status: 0x45a });
    expect(parseErrorMapKey("0623")).toEqual({ kind: "receipt", err: "623" });
    for (const key of [
      "0x45A",
      "0x0000045AB",
      "45A",
      "1234567",
      "",
      " 623",
      "623 ",
      "-1",
      "6.3",
      "0X0000045A",
    ]) {
      expect(parseErrorMapKey(key), key).toBeUndefined();
    }
    fc.assert(
      fc.property(fc.string(), (key) => {
        const parsed = parseErrorMapKey(key);
        if (parsed === undefined) return;
        if (parsed.kind === "status") expect(key).toMatch(/^0x[0-9a-fA-F]{8}$/);
        else expect(key).toMatch(/^[0-9]{1,6}$/);
      }),
    );
  });
});

describe("a receipt read with a route's table", () => {
  it("turns a named err: into the operator's rejection, keeping the raw code", () => {
    expect(
      receiptOf(
        "id:m1 sub:001 dlvrd:000 submit date:2611291000 done date:2611291000 stat:REJECTD err:623 text:",
      ),
    ).toEqual({
      carrier: "smpp:a",
      carrierMessageId: "m1",
      state: "rejected",
      errorCode: "dlt_header_not_registered",
      errorMessage: expect.stringMatching(/header .* DLT\. The SMSC reported REJECTD with error 623\.$/),
      carrierError: "receipt err:623 stat:REJECTD",
    });
  });

  it("keeps an unknown err: a non-delivery, smsc_<err>, with the raw code", () => {
    expect(receiptOf("id:m2 stat:UNDELIV err:006")).toMatchObject({
      state: "undelivered",
      errorCode: "smsc_006",
      carrierError: "receipt err:006 stat:UNDELIV",
    });
    expect(receiptOf("id:m3 stat:EXPIRED err:000")).toMatchObject({
      state: "undelivered",
      errorCode: "expired",
    });
    expect(receiptOf("id:m4 stat:DELIVRD err:623")).toEqual({
      carrier: "smpp:a",
      carrierMessageId: "m4",
      state: "delivered",
    });
  });

  it("uses the route's error_map over the default", () => {
    const table = new RejectionTable(new Map([["6", "dnd_blocked"]] as const));
    expect(receiptOf("id:m5 stat:UNDELIV err:006", table)).toMatchObject({
      state: "rejected",
      errorCode: "dnd_blocked",
    });
  });
});

describe("error_map in SMPP_ROUTES", () => {
  it("is read into the route's table, keys written one way", () => {
    const [route] = parseRoutesFile(
      JSON.stringify([
        {
          name: "primary",
          url: URL_A,
          error_map: { "0x0000045a": "dlt_template_mismatch", "0623": "dlt_cta_not_whitelisted" },
        },
      ]),
    );
    expect(route?.errorMap).toEqual(
      new Map([
        ["0x0000045A", "dlt_template_mismatch"],
        ["623", "dlt_cta_not_whitelisted"],
      ]),
    );
    expect(route?.rejections.status(0x45a)).toBe("dlt_template_mismatch");
    expect(route?.rejections.receipt("623")).toBe("dlt_cta_not_whitelisted");
    expect(route?.rejections.receipt("633")).toBe("dlt_template_mismatch");
  });

  it("is refused at start with one line naming the route and the key", () => {
    const route = (error_map: unknown) => [{ name: "backup", url: URL_A, error_map }];
    expect(routesError(route(["623"]))).toBe(
      'SMPP_ROUTES: route "backup": error_map must be an object of codes to names, got an array',
    );
    expect(routesError(route({ "0x45A": "dnd_blocked" }))).toBe(
      'SMPP_ROUTES: route "backup": error_map key "0x45A" must be a submit_sm_resp status written 0x and 8 hex digits (0x0000045A) or a receipt err: code of 1 to 6 digits (623)',
    );
    expect(routesError(route({ "1234567": "dnd_blocked" }))).toMatch(/error_map key "1234567" must be/);
    expect(routesError(route({ "623": "header_not_registered" }))).toBe(
      `SMPP_ROUTES: route "backup": error_map "623" must name one of ${REJECTION_CODES.join(", ")}, got "header_not_registered"`,
    );
    expect(routesError(route({ "623": 1 }))).toMatch(/error_map "623" must name one of .*, got 1$/);
    expect(routesError(route({ "000": "dnd_blocked" }))).toBe(
      'SMPP_ROUTES: route "backup": error_map key "000" is err:000, which receipts send when there is no error',
    );
    expect(routesError(route({ "0x00000000": "dnd_blocked" }))).toMatch(/is ESME_ROK, an accepted submit$/);
    expect(routesError(route({ "623": "dnd_blocked", "0623": "dnd_blocked" }))).toBe(
      'SMPP_ROUTES: route "backup": error_map has "623" and "0623", the same code twice',
    );
  });

  it("must be the same on routes of one SMSC account, whose receipts come back on either", () => {
    expect(
      routesError([
        { name: "a", url: URL_A, smsc: "agg", error_map: { "623": "dnd_blocked" } },
        { name: "b", url: URL_B, smsc: "agg" },
      ]),
    ).toBe(
      'SMPP_ROUTES: routes "a" and "b" share the SMSC account "agg" but not their error_map: give them the same one, since receipts come back on either',
    );
    const routes = parseRoutesFile(
      JSON.stringify([
        { name: "a", url: URL_A, smsc: "agg", error_map: { "623": "dnd_blocked" } },
        { name: "b", url: URL_B, smsc: "agg", error_map: { "0623": "dnd_blocked" } },
        { name: "c", url: "smpp://c:pw@10.0.0.3:2775", error_map: { "633": "carrier_rejected" } },
      ]),
    );
    expect(routes.map((r) => r.rejections.receipt("623"))).toEqual([
      "dnd_blocked",
      "dnd_blocked",
      "dlt_header_not_registered",
    ]);
  });

  it("is the default table with the SMPP_URL shorthand", () => {
    const [route] = loadConfig({ SMPP_URL: URL_A }).smpp ?? [];
    expect(route?.rejections).toBe(DEFAULT_REJECTIONS);
    expect(route?.errorMap.size).toBe(0);
  });
});
