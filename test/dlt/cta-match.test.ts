import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCallbackNumber, parseCtaEntry, parseUrlPrefix } from "../../src/dlt/cta/entries.js";
import {
  compileWhitelist,
  numberIsWhitelisted,
  requireWhitelistedCtas,
  urlIsWhitelisted,
} from "../../src/dlt/cta/match.js";
import { ApiError } from "../../src/errors.js";

/*
 * The CTA whitelist's parsing and matching (docs/dlt-compliance.md#whitelisted-links-and-numbers):
 * entries in canonical form, links that lie under an entry by text and by parse, numbers by
 * digits, and every trick that smuggles a whitelisted prefix into a link to another host refused.
 */

const ROOT = parseUrlPrefix("https://dky.in/");
const APP = parseUrlPrefix("https://dky.in/app/");
const SHORT = parseUrlPrefix("https://bit.ly/dky");

function passes(value: string, entries = [ROOT]): boolean {
  return urlIsWhitelisted(value, entries);
}

function refusalOf(work: () => unknown): { code: string; message: string; param?: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message, param: error.param };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("CTA whitelist entries", () => {
  it("stores URL prefixes with the scheme and host in lower case and the path as given", () => {
    expect(parseUrlPrefix("HTTPS://Dky.IN").value).toBe("https://dky.in/");
    expect(parseUrlPrefix("  https://dky.in/App/  ").value).toBe("https://dky.in/App/");
    expect(parseUrlPrefix("http://dky.in:8080/x")).toEqual({
      kind: "url",
      value: "http://dky.in:8080/x",
      scheme: "http",
      host: "dky.in",
      port: "8080",
      path: "/x",
    });
    expect(parseUrlPrefix("https://xn--80ak6aa92e.com/").host).toBe("xn--80ak6aa92e.com");
    expect(parseUrlPrefix("https://dky.in/a%20b/").path).toBe("/a%20b/");
  });

  it.each([
    ["", /is empty/],
    ["dky.in/", /must start with http:\/\/ or https:\/\//],
    ["ftp://dky.in/", /must start with http/],
    ["javascript:alert(1)", /must start with http/],
    ["https://dky.in/?ref=sms", /query \(\?\) or fragment/],
    ["https://dky.in/#top", /query \(\?\) or fragment/],
    ["https://user:pw@dky.in/", /user name or password/],
    ["https://dky.in@evil.com/", /user name or password/],
    ["https://dky%2Ein/", /no valid host/],
    ["https://dkу.in/", /outside plain ASCII/],
    ["https://dky．in/", /outside plain ASCII/],
    ["https://dky.in\\evil/", /backslash/],
    ["https://dky in/", /spaces/],
    ["https://localhost/", /no valid host/],
    ["https://1.2.3/", /not a plain domain name|not a valid URL/],
    ["https://[::1]/", /no valid host/],
    ["https://dky.in:0/", /port/],
    ["https://dky.in:65536/", /port/],
    ["https://dky.in:443/", /https's own port 443: leave it out/],
    ["http://dky.in:80/", /http's own port 80/],
    ["https://dky.in/app/../evil", /path that browsers would rewrite/],
    ["https://dky.in/app/%2e%2e/evil", /path that browsers would rewrite/],
    ["https://dky.in/a<b", /path that browsers would rewrite/],
    [`https://dky.in/${"a".repeat(500)}`, /longer than 500/],
  ])("refuses the URL prefix %j", (raw, why) => {
    const refused = refusalOf(() => parseUrlPrefix(raw));
    expect(refused).toMatchObject({ code: "invalid_request", param: "value" });
    expect(refused.message).toMatch(why);
    expect(refused.message).not.toContain("\n");
  });

  it("stores numbers as + and digits, and refuses what is not E.164", () => {
    expect(parseCallbackNumber("+91 1800-123-4567").value).toBe("+9118001234567");
    expect(parseCallbackNumber("+12025550123").value).toBe("+12025550123");
    for (const raw of [
      "1800-123-4567",
      "+91 (1800) 1234567",
      "+1234567",
      "+1234567890123456",
      "+0123456789",
      "+91--1800",
      "+91 01800 123 4567",
      "+91 1800 123 4567 ext 2",
      "",
    ]) {
      expect(refusalOf(() => parseCallbackNumber(raw))).toMatchObject({
        code: "invalid_request",
        param: "value",
      });
    }
  });
});

describe("CTA link matching", () => {
  it("passes links under an entry, whatever the case of the scheme and host", () => {
    expect(passes("https://dky.in/")).toBe(true);
    expect(passes("https://dky.in")).toBe(true);
    expect(passes("https://dky.in/t/4821?utm=sms#x")).toBe(true);
    expect(passes("HTTPS://DKY.IN/x")).toBe(true);
    expect(passes("https://dky.in/app/x", [APP])).toBe(true);
    expect(passes("https://dky.in/app/", [APP])).toBe(true);
    expect(passes("https://bit.ly/dky", [SHORT])).toBe(true);
    expect(passes("https://bit.ly/dky/2", [SHORT])).toBe(true);
    expect(passes("https://bit.ly/dky?x=1", [SHORT])).toBe(true);
  });

  it.each([
    ["https://dky.in.evil.com/", "a host that only starts with the entry's"],
    ["https://evil.com/dky.in/", "another host"],
    ["https://dky.in@evil.com/", "credentials that read like the host"],
    ["https://user@dky.in/", "credentials on the entry's host"],
    ["https://evil.com/?https://dky.in/", "the entry in the query"],
    ["https://evil.com#https://dky.in/", "the entry in the fragment"],
    ["https://dky%2Ein/", "a percent-encoded dot (a browser decodes it)"],
    ["https://%64ky.in/", "a percent-encoded letter"],
    ["https://dkу.in/", "a Cyrillic у"],
    ["https://dkу.іn/", "Cyrillic у and і"],
    ["https://dky．in/", "a fullwidth dot"],
    ["https://dky。in/", "an ideographic full stop"],
    ["https://ｄｋｙ.in/", "fullwidth letters"],
    ["https://dky.in\\@evil.com/", "a backslash before the @"],
    ["https://evil.com\\dky.in/", "a backslash a browser reads as /"],
    ["https://dky.in/\\..\\evil", "a backslash in the path"],
    ["https://DKY.IN.EVIL.COM/", "another host in upper case"],
    ["https://Dky.In.Evil.Com/", "another host in mixed case"],
    ["https://dky.in:444/", "another port"],
    ["https://dky.in:443/", "the default port written out (not the entry's text)"],
    ["http://dky.in/", "another scheme"],
    ["https://dky.in./", "a trailing dot"],
    ["https://dky.in /", "a space"],
    [" https://dky.in/", "a leading space"],
    ["https://dk\ty.in/", "a tab a browser would drop"],
    ["//dky.in/", "no scheme"],
    ["dky.in/", "no scheme at all"],
    ["https:dky.in/", "no slashes"],
    ["https:/dky.in/", "one slash"],
    ["https:///dky.in/", "three slashes"],
    ["https://0xdky.in/", "another host"],
  ])("refuses %j (%s) against https://dky.in/", (value) => {
    expect(passes(value)).toBe(false);
  });

  it.each([
    ["https://dky.in/app/../evil", "a dot-dot segment"],
    ["https://dky.in/app/%2e%2e/evil", "an encoded dot-dot segment"],
    ["https://dky.in/app/%2E%2E/evil", "an encoded dot-dot segment in upper case"],
    ["https://dky.in/app/.%2e/evil", "a half-encoded dot-dot segment"],
    ["https://dky.in/app/..", "a final dot-dot"],
    ["https://dky.in/apps/", "a sibling path"],
    ["https://dky.in/App/x", "another case of the path"],
    ["https://dky.in/%61pp/x", "an encoded letter in the path"],
    ["https://dky.in/", "the host alone"],
  ])("refuses %j (%s) against https://dky.in/app/", (value) => {
    expect(passes(value, [APP])).toBe(false);
  });

  it("does not let an entry without a final slash whitelist its siblings", () => {
    expect(passes("https://bit.ly/dkyevil", [SHORT])).toBe(false);
    expect(passes("https://bit.ly/dky.evil", [SHORT])).toBe(false);
  });

  it("matches ports as written", () => {
    const withPort = parseUrlPrefix("https://dky.in:8443/");
    expect(passes("https://dky.in:8443/x", [withPort])).toBe(true);
    expect(passes("https://dky.in/x", [withPort])).toBe(false);
    expect(passes("https://dky.in:08443/x", [withPort])).toBe(false);
  });
});

describe("CTA number matching", () => {
  const numbers = new Set(["+9118001234567", "+12025550123"]);

  it.each([
    "+9118001234567",
    "+91 1800 123 4567",
    "+91-1800-123-4567",
    "1800-123-4567",
    "18001234567",
    "01800 123 4567",
    "+12025550123",
  ])("passes %j", (value) => {
    expect(numberIsWhitelisted(value, numbers)).toBe(true);
  });

  it.each([
    "+9118001234568",
    "918001234567",
    "9118001234567",
    "00918001234567",
    "001800 123 4567",
    "+18001234567",
    "2025550123",
    "12025550123",
    "+91180012345670",
    "1800123456",
    "+91 1800  123 4567",
    "1800/123/4567",
    "",
  ])("refuses %j", (value) => {
    expect(numberIsWhitelisted(value, numbers)).toBe(false);
  });
});

describe("the CTA check of a send", () => {
  const whitelist = compileWhitelist([ROOT, parseCtaEntry("number", "+9118001234567")]);
  const urlsOnly = compileWhitelist([ROOT]);
  const empty = compileWhitelist([]);
  const good = {
    url1: "https://dky.in/t/1",
    urlott1: "https://dky.in/o/2",
    cbn1: "1800-123-4567",
    var1: "x",
  };

  it("passes whitelisted values and names the first that is not", () => {
    expect(() => requireWhitelistedCtas("warn", whitelist, good)).not.toThrow();
    expect(
      refusalOf(() => requireWhitelistedCtas("warn", whitelist, { ...good, urlott1: "https://evil.com/" })),
    ).toMatchObject({
      code: "cta_not_whitelisted",
      param: "variables.urlott1",
    });
    expect(
      refusalOf(() => requireWhitelistedCtas("warn", whitelist, { ...good, cbn1: "1800-000-0000" })),
    ).toMatchObject({
      code: "cta_not_whitelisted",
      param: "variables.cbn1",
    });
    // A free-text variable is no call to action, whatever it holds.
    expect(() =>
      requireWhitelistedCtas("warn", whitelist, { ...good, var1: "https://evil.com/" }),
    ).not.toThrow();
  });

  it("checks a kind only once the account has an entry of it, except under strict; nothing under off", () => {
    const otherNumber = { ...good, cbn1: "1800-000-0000" };
    expect(() => requireWhitelistedCtas("warn", urlsOnly, otherNumber)).not.toThrow();
    expect(() => requireWhitelistedCtas("warn", empty, { url1: "https://evil.com/" })).not.toThrow();
    const strict = refusalOf(() => requireWhitelistedCtas("strict", empty, { url1: "https://dky.in/" }));
    expect(strict).toMatchObject({ code: "cta_not_whitelisted", param: "variables.url1" });
    expect(strict.message).toMatch(/no whitelisted links/);
    expect(refusalOf(() => requireWhitelistedCtas("strict", urlsOnly, otherNumber)).param).toBe(
      "variables.cbn1",
    );
    expect(() =>
      requireWhitelistedCtas("off", whitelist, { url1: "https://evil.com/", cbn1: "1" }),
    ).not.toThrow();
  });
});

describe("CTA matching under fuzzing", () => {
  const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
  const hostArb = fc
    .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom("in", "com", "co.in", "org"))
    .map(([labels, tld]) => `${labels.join(".")}.${tld}`);
  const pathArb = fc
    .array(fc.stringMatching(/^[A-Za-z0-9._~%-]{0,8}$/), { maxLength: 4 })
    .map((s) => `/${s.join("/")}`);
  const anyText = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 60 }),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.string({ maxLength: 60 }),
    fc
      .tuple(
        fc.constantFrom("https://", "HTTP://", "http://", "https:"),
        fc.string({ unit: "binary", maxLength: 40 }),
      )
      .map(([a, b]) => a + b),
  );

  it("never passes a link whose host differs from every entry's, however its rest is built", () => {
    fc.assert(
      fc.property(
        hostArb,
        hostArb,
        fc.constantFrom("https", "HTTPS", "http"),
        fc.string({ maxLength: 30 }),
        fc.constantFrom("", "/", "?", "#", "@", ":443", "\\", ".", "%2e"),
        (entryHost, otherHost, scheme, tail, joint) => {
          fc.pre(entryHost !== otherHost);
          const entry = parseUrlPrefix(`https://${entryHost}/`);
          const smuggled = [
            `${scheme}://${otherHost}${joint}${entryHost}/${tail}`,
            `${scheme}://${otherHost}/${tail}${joint}https://${entryHost}/`,
            `${scheme}://${otherHost.toUpperCase()}/${tail}`,
            `${scheme}://${entryHost}${joint}${otherHost}/${tail}`.replace(
              `${entryHost}/`,
              `${entryHost}.x/`,
            ),
          ];
          for (const value of smuggled) {
            if (urlIsWhitelisted(value, [entry])) {
              expect(new URL(value).hostname).toBe(entryHost);
            }
          }
          expect(urlIsWhitelisted(`${scheme}://${otherHost}/${tail}`, [entry])).toBe(false);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("passes a link only when a browser parses it to an entry's scheme, host, port and path", () => {
    fc.assert(
      fc.property(hostArb, pathArb, anyText, fc.boolean(), (host, path, rest, upper) => {
        let entry: ReturnType<typeof parseUrlPrefix>;
        try {
          entry = parseUrlPrefix(`https://${host}${path}`);
        } catch {
          return; // a path the parser would rewrite: not an entry
        }
        const base = upper ? entry.value.toUpperCase() : entry.value;
        for (const value of [base + rest, `${entry.value}${rest}`, rest]) {
          if (!urlIsWhitelisted(value, [entry])) continue;
          const url = new URL(value);
          expect(url.protocol).toBe("https:");
          expect(url.hostname).toBe(entry.host);
          expect(url.port).toBe(entry.port);
          expect(url.username + url.password).toBe("");
          expect(url.pathname.startsWith(entry.path)).toBe(true);
          // And the text itself starts with the entry, ignoring case in the scheme and host.
          expect(value.slice(0, `https://${entry.host}`.length).toLowerCase()).toBe(`https://${entry.host}`);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("never throws on any text, as a link, a number or an entry", () => {
    const whitelist = compileWhitelist([ROOT, APP, parseCtaEntry("number", "+9118001234567")]);
    fc.assert(
      fc.property(anyText, (text) => {
        urlIsWhitelisted(text, whitelist.urls);
        numberIsWhitelisted(text, whitelist.numbers);
        for (const kind of ["url", "number"] as const) {
          try {
            parseCtaEntry(kind, text);
          } catch (error) {
            expect(error).toBeInstanceOf(ApiError);
            expect((error as ApiError).code).toBe("invalid_request");
          }
        }
        try {
          requireWhitelistedCtas("strict", whitelist, { url1: text, cbn1: text });
        } catch (error) {
          expect((error as ApiError).code).toBe("cta_not_whitelisted");
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it("parses every canonical entry back to itself", () => {
    fc.assert(
      fc.property(hostArb, pathArb, fc.constantFrom("http", "https", "HTTPS"), (host, path, scheme) => {
        let entry: ReturnType<typeof parseUrlPrefix>;
        try {
          entry = parseUrlPrefix(`${scheme}://${host.toUpperCase()}${path}`);
        } catch {
          return;
        }
        expect(parseUrlPrefix(entry.value)).toEqual(entry);
        expect(urlIsWhitelisted(entry.value, [entry])).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });
});
