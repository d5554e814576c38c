import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { DEFAULT_REJECTIONS, REJECTION_CODES } from "../../src/delivery/carriers/dlt-rejections.js";
import { parseRoutesFile } from "../../src/delivery/carriers/smpp-config.js";
import { ConfigError } from "../../src/errors.js";
import { TRAFFIC_CATEGORIES } from "../../src/messages/traffic.js";
import { writeRoutesFile } from "../helpers/smpp-routes.js";

/* SMPP_ROUTES: the routes file, read and checked at start-up (docs/routes.md). */

const files: Array<() => void> = [];
afterEach(() => {
  for (const remove of files.splice(0)) remove();
});

function withFile(content: unknown): string {
  const file = writeRoutesFile(content);
  files.push(file.remove);
  return file.path;
}

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

const PRIMARY = { name: "primary", url: "smpp://dakiya:s3cret@10.0.0.1:2775" };

describe("SMPP_ROUTES", () => {
  it("reads every field, with defaults for those left out, in the file's order", () => {
    const path = withFile([
      {
        name: "primary",
        url: "smpps://dakiya:p%40ss@smsc-a.example.in",
        priority: 1,
        weight: 3,
        system_type: "OTP",
        bind: "transmitter+receiver",
        tps: 200,
        window: 50,
        tlv_entity_id: "0x1401",
        tlv_template_id: 5120,
        tlv_tm: "0x1402",
        tm_id: "1702000000000000001",
        source_ton: 5,
        source_npi: 0,
        dest_ton: 1,
        dest_npi: 1,
        submit_timeout_seconds: 5,
        window_wait_ms: 100,
        breaker_failures: 3,
        breaker_cooldown_seconds: 10,
        smsc: "aggregator-a",
        categories: ["otp", "transactional"],
        accounts: ["acct_0Bcd3fGh1jKl2mNo3pQr4sTu", "acct_X"],
        senders: ["dakiya", "ABCDEF", "123456"],
      },
      { name: "backup", url: "smpp://other:pw@smsc-b.example.in:2776", priority: 2 },
    ]);
    const { smpp } = loadConfig({ SMPP_ROUTES: path });
    expect(smpp).toEqual([
      {
        name: "primary",
        priority: 1,
        weight: 3,
        smsc: "aggregator-a",
        host: "smsc-a.example.in",
        port: 3550,
        tls: true,
        systemId: "dakiya",
        password: "p@ss",
        systemType: "OTP",
        bindMode: "transmitter+receiver",
        tps: 200,
        window: 50,
        tlv: { entityId: 0x1401, templateId: 0x1400, tm: 0x1402 },
        tmId: "1702000000000000001",
        source: { ton: 5, npi: 0 },
        destination: { ton: 1, npi: 1 },
        submitTimeoutMs: 5_000,
        windowWaitMs: 100,
        breaker: { failures: 3, cooldownMs: 10_000 },
        traffic: {
          categories: new Set(["otp", "transactional"]),
          accounts: new Set(["acct_0Bcd3fGh1jKl2mNo3pQr4sTu", "acct_X"]),
          senders: new Set(["DAKIYA", "ABCDEF", "123456"]),
        },
        errorMap: new Map(),
        rejections: DEFAULT_REJECTIONS,
      },
      {
        name: "backup",
        priority: 2,
        weight: 1,
        smsc: "backup",
        host: "smsc-b.example.in",
        port: 2776,
        tls: false,
        systemId: "other",
        password: "pw",
        systemType: "",
        bindMode: "transceiver",
        tps: 50,
        window: 10,
        tlv: { entityId: 0x1400, templateId: 0x1401, tm: 0x1402 },
        tmId: undefined,
        source: { ton: 5, npi: 0 },
        destination: { ton: 1, npi: 1 },
        submitTimeoutMs: 10_000,
        windowWaitMs: 500,
        breaker: { failures: 5, cooldownMs: 30_000 },
        traffic: { categories: undefined, accounts: undefined, senders: undefined },
        errorMap: new Map(),
        rejections: DEFAULT_REJECTIONS,
      },
    ]);
  });

  it("makes SMPP_URL alone the one route named default", () => {
    const { smpp } = loadConfig({
      SMPP_URL: "smpp://a:b@h",
      SMPP_WINDOW_WAIT_MS: "0",
      SMPP_BREAKER_FAILURES: "2",
    });
    expect(smpp).toHaveLength(1);
    expect(smpp?.[0]).toMatchObject({
      name: "default",
      smsc: "default",
      priority: 1,
      weight: 1,
      windowWaitMs: 0,
      breaker: { failures: 2 },
    });
    expect(loadConfig({}).smpp).toBeUndefined();
  });

  it.each([
    ["not JSON", "[{", /SMPP_ROUTES: the file is not valid JSON/],
    ["an object", { routes: [] }, /must hold a JSON array of routes, got an object/],
    ["no routes", [], /1 to 32 routes, got 0/],
    ["33 routes", Array.from({ length: 33 }, (_, i) => ({ ...PRIMARY, name: `r${i}` })), /got 33/],
    ["a number for a route", [1], /route 1 must be an object, got a number/],
    ["no name", [{ url: PRIMARY.url }], /route 1: name must be/],
    ["an upper-case name", [{ ...PRIMARY, name: "Primary" }], /route 1: name must be/],
    ["a name too long", [{ ...PRIMARY, name: "a".repeat(33) }], /route 1: name must be/],
    [
      "a duplicate name",
      [PRIMARY, { ...PRIMARY, url: "smpp://x:y@10.0.0.2" }],
      /two routes are named "primary"/,
    ],
    ["an unknown field", [{ ...PRIMARY, tsp: 100 }], /route "primary": unknown field "tsp"/],
    ["an env name as field", [{ ...PRIMARY, SMPP_TPS: 100 }], /unknown field "SMPP_TPS"/],
    ["no url", [{ name: "primary" }], /route "primary": url is required/],
    ["a url of another scheme", [{ ...PRIMARY, url: "http://a:b@h" }], /url must start with smpp:\/\//],
    ["a url without system_id", [{ ...PRIMARY, url: "smpp://h:2775" }], /url needs a system_id/],
    ["a url with a path", [{ ...PRIMARY, url: "smpp://a:b@h/x" }], /no path, query or fragment/],
    ["a url as a number", [{ ...PRIMARY, url: 5 }], /url must be a string, got a number/],
    [
      "a string tps",
      [{ ...PRIMARY, tps: "100" }],
      /route "primary": tps must be an integer from 1 to 100000, got "100"/,
    ],
    [
      "a fractional window",
      [{ ...PRIMARY, window: 2.5 }],
      /window must be an integer from 1 to 1000, got 2.5/,
    ],
    ["a zero weight", [{ ...PRIMARY, weight: 0 }], /weight must be an integer from 1 to 1000, got 0/],
    ["a negative priority", [{ ...PRIMARY, priority: -1 }], /priority must be an integer from 0 to 1000/],
    [
      "a TLV tag out of range",
      [{ ...PRIMARY, tlv_tm: "0x0010" }],
      /tlv_tm must be an integer from 5120 to 16383, got "0x0010"/,
    ],
    [
      "a bad bind",
      [{ ...PRIMARY, bind: "receiver" }],
      /route "primary": bind must be transceiver or transmitter\+receiver/,
    ],
    ["a boolean tm_id", [{ ...PRIMARY, tm_id: true }], /tm_id must be a string, got a boolean/],
    ["a bad smsc", [{ ...PRIMARY, smsc: "A B" }], /smsc must be a name/],
    ["a null field", [{ ...PRIMARY, tps: null }], /tps must be an integer from 1 to 100000, got null/],
    [
      "an unknown category",
      [{ ...PRIMARY, categories: ["otp", "marketing"] }],
      /route "primary": categories must be a list of otp, transactional, service_implicit, service_explicit, promotional, got "marketing" in it/,
    ],
    [
      "a category in upper case",
      [{ ...PRIMARY, categories: ["OTP"] }],
      /route "primary": categories must be a list of .*, got "OTP" in it/,
    ],
    [
      "categories as a string",
      [{ ...PRIMARY, categories: "otp" }],
      /route "primary": categories must be a list of .*, got a string/,
    ],
    [
      "an empty category list",
      [{ ...PRIMARY, categories: [] }],
      /route "primary": categories must not be empty: leave it out to carry every one/,
    ],
    ["an empty account list", [{ ...PRIMARY, accounts: [] }], /route "primary": accounts must not be empty/],
    [
      "a malformed account id",
      [{ ...PRIMARY, accounts: ["acct_ok", "key_abc"] }],
      /route "primary": accounts must be a list of account ids \(acct_…\), got "key_abc" in it/,
    ],
    [
      "an account id with a space",
      [{ ...PRIMARY, accounts: ["acct_ab cd"] }],
      /route "primary": accounts must be a list of account ids/,
    ],
    [
      "a number for an account",
      [{ ...PRIMARY, accounts: [12] }],
      /route "primary": accounts must be a list of account ids \(acct_…\), got 12 in it/,
    ],
    ["an empty sender list", [{ ...PRIMARY, senders: [] }], /route "primary": senders must not be empty/],
    [
      "a 5-letter sender",
      [{ ...PRIMARY, senders: ["DAKIY"] }],
      /route "primary": senders must be a list of 6-letter or 6-digit sender headers, got "DAKIY" in it/,
    ],
    [
      "a sender of letters and digits",
      [{ ...PRIMARY, senders: ["DAK1YA"] }],
      /route "primary": senders must be a list of 6-letter or 6-digit sender headers, got "DAK1YA" in it/,
    ],
    [
      "senders as null",
      [{ ...PRIMARY, senders: null }],
      /route "primary": senders must be a list of .*, got null/,
    ],
    [
      "one account split over two smsc names",
      [PRIMARY, { ...PRIMARY, name: "second" }],
      /routes "primary" and "second" bind the same SMSC account \(dakiya@10\.0\.0\.1:2775\): give them the same "smsc"/,
    ],
  ])("refuses a file with %s, in one line", (_what, content, message) => {
    const text = errorOf(() => loadConfig({ SMPP_ROUTES: withFile(content) }));
    expect(text).toMatch(message);
    expect(text).not.toMatch(/\n/);
    expect(text).not.toContain("s3cret");
  });

  it("lets routes of one account share an smsc name", () => {
    const path = withFile([
      { ...PRIMARY, smsc: "agg" },
      { ...PRIMARY, name: "second", smsc: "agg", priority: 2 },
    ]);
    expect(loadConfig({ SMPP_ROUTES: path }).smpp?.map((r) => r.smsc)).toEqual(["agg", "agg"]);
  });

  it("refuses a missing file, and SMPP_* variables beside SMPP_ROUTES", () => {
    expect(errorOf(() => loadConfig({ SMPP_ROUTES: "/nonexistent/routes.json" }))).toBe(
      "SMPP_ROUTES: cannot read /nonexistent/routes.json (ENOENT)",
    );
    const path = withFile([PRIMARY]);
    expect(errorOf(() => loadConfig({ SMPP_ROUTES: path, SMPP_URL: "smpp://a:b@h", SMPP_TPS: "5" }))).toBe(
      "SMPP_ROUTES replaces SMPP_URL, SMPP_TPS: put each route's settings in the file and unset the variables",
    );
  });

  it("never leaks a password into an error about the url", () => {
    for (const url of [
      "smpp://dakiya:s3cret@",
      "smpp://dakiya:s3cret@h/p?q",
      "ftp://dakiya:s3cret@h",
      "smpp://:s3cret@h",
    ]) {
      expect(errorOf(() => parseRoutesFile(JSON.stringify([{ name: "r", url }])))).not.toContain("s3cret");
    }
  });

  it("never quotes the file in an error about its JSON, where a password may stand", () => {
    const broken = '[{"name":"a","url":"smpp://u:Passw0rd@h"},]';
    const error = errorOf(() => parseRoutesFile(broken));
    expect(error).toMatch(/^SMPP_ROUTES: the file is not valid JSON/);
    expect(error).not.toMatch(/sw0rd|Passw/);
  });

  describe("fuzzed", () => {
    const name = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,31}$/);
    const json = fc.jsonValue({ maxDepth: 3 });
    const fieldValue = fc.oneof(
      json,
      fc.integer({ min: -10, max: 20_000 }),
      fc.constantFrom("0x1400", "0x3fff", "0x0", "transceiver", "transmitter+receiver", "", "smpp://a:b@h"),
      fc.array(
        fc.constantFrom("otp", "promotional", "Otp", "acct_1a2B", "acct_", "DAKIYA", "dakiya", "12345", ""),
        { maxLength: 3 },
      ),
      fc.dictionary(
        fc.oneof(fc.stringMatching(/^(?:0x[0-9a-fA-F]{0,9}|[0-9]{0,7})$/), fc.string({ maxLength: 4 })),
        fc.oneof(fc.constantFrom(...REJECTION_CODES), json),
        { maxKeys: 3 },
      ),
    );
    const fieldName = fc.constantFrom(
      "name",
      "url",
      "priority",
      "weight",
      "smsc",
      "categories",
      "accounts",
      "senders",
      "system_type",
      "bind",
      "tps",
      "window",
      "tlv_entity_id",
      "tlv_template_id",
      "tlv_tm",
      "tm_id",
      "source_ton",
      "source_npi",
      "dest_ton",
      "dest_npi",
      "submit_timeout_seconds",
      "window_wait_ms",
      "breaker_failures",
      "breaker_cooldown_seconds",
      "error_map",
      "other",
    );
    const route = fc.dictionary(fieldName, fieldValue, { maxKeys: 8 });

    it("answers any text with routes or a one-line ConfigError, never another error", () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string(),
            json.map((value) => JSON.stringify(value)),
            fc.array(route, { maxLength: 4 }).map((routes) => JSON.stringify(routes)),
          ),
          (text) => {
            try {
              const routes = parseRoutesFile(text);
              expect(routes.length).toBeGreaterThan(0);
              for (const r of routes) {
                expect(r.tps).toBeGreaterThanOrEqual(1);
                expect(r.weight).toBeGreaterThanOrEqual(1);
                expect(r.host).not.toBe("");
              }
            } catch (error) {
              expect(error).toBeInstanceOf(ConfigError);
              expect((error as Error).message).toMatch(/^SMPP_ROUTES: /);
              expect((error as Error).message).not.toMatch(/[\r\n]/);
            }
          },
        ),
        { numRuns: 2_000 },
      );
    });

    it("reads back what a valid file says", () => {
      const validRoute = fc.record({
        name,
        priority: fc.integer({ min: 0, max: 1_000 }),
        weight: fc.integer({ min: 1, max: 1_000 }),
        tps: fc.integer({ min: 1, max: 100_000 }),
        window: fc.integer({ min: 1, max: 1_000 }),
        tlv_tm: fc.integer({ min: 0x1400, max: 0x3fff }),
        port: fc.integer({ min: 1, max: 65_535 }),
        password: fc.string({ maxLength: 12 }),
        categories: fc.option(fc.uniqueArray(fc.constantFrom(...TRAFFIC_CATEGORIES), { minLength: 1 }), {
          nil: undefined,
        }),
        senders: fc.option(
          fc.array(fc.stringMatching(/^(?:[A-Za-z]{6}|[0-9]{6})$/), { minLength: 1, maxLength: 3 }),
          {
            nil: undefined,
          },
        ),
      });
      fc.assert(
        fc.property(
          fc.uniqueArray(validRoute, { selector: (r) => r.name, minLength: 1, maxLength: 5 }),
          (specs) => {
            const file = specs.map(({ port, password, tlv_tm, ...fields }, index) => ({
              ...fields,
              url: `smpp://id${index}:${encodeURIComponent(password)}@10.0.0.${index + 1}:${port}`,
              tlv_tm: `0x${tlv_tm.toString(16)}`,
            }));
            const routes = parseRoutesFile(JSON.stringify(file));
            expect(
              routes.map((r) => [
                r.name,
                r.priority,
                r.weight,
                r.tps,
                r.window,
                r.tlv.tm,
                r.port,
                r.password,
                r.traffic.categories && [...r.traffic.categories],
                r.traffic.senders && [...r.traffic.senders],
              ]),
            ).toEqual(
              specs.map((s) => [
                s.name,
                s.priority,
                s.weight,
                s.tps,
                s.window,
                s.tlv_tm,
                s.port,
                s.password,
                s.categories,
                s.senders && [...new Set(s.senders.map((sender) => sender.toUpperCase()))],
              ]),
            );
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});
