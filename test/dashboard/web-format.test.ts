import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatInr as formatUnits } from "../../src/lib/money.js";
import { addInr, formatIndiaTime, formatUtc } from "../../web/src/format.js";

/* The dashboard's money arithmetic on the API's decimal strings: exact, as the server's integers are. */

describe("addInr", () => {
  it("adds a partial refund back to what was kept", () => {
    expect(addInr("0.2500", "0.2500")).toBe("0.5000");
    expect(addInr("1.0833", "9.7500")).toBe("10.8333");
    expect(addInr("0", "0.0001")).toBe("0.0001");
    expect(addInr("-0.5000", "0.2500")).toBe("-0.2500");
  });

  it("equals the sum of the 1/10,000 INR integers the strings stand for (property)", () => {
    const units = fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 });
    fc.assert(
      fc.property(units, units, (a, b) => {
        expect(addInr(formatUnits(a), formatUnits(b))).toBe(formatUnits(a + b));
      }),
    );
  });
});

describe("formatIndiaTime", () => {
  const NOW = Date.parse("2026-11-29T08:00:00Z");

  it("shows India's wall clock, whatever the browser's zone, with the year only when not this year's", () => {
    expect(formatIndiaTime("2026-12-01T03:30:00Z", NOW)).toBe("1 Dec, 09:00 IST");
    expect(formatIndiaTime("2026-12-31T18:29:59Z", NOW)).toBe("31 Dec, 23:59 IST");
    expect(formatIndiaTime("2026-12-31T18:30:00Z", NOW)).toBe("1 Jan 2027, 00:00 IST");
    expect(formatIndiaTime("not a time", NOW)).toBe("not a time");
    expect(formatUtc("2026-12-01T03:30:00Z")).toBe("1 Dec 2026, 03:30:00 UTC");
  });

  // en-IN names September "Sept", as Indian English does.
  it("is the UTC time moved on by 5 h 30 min, to the minute (property)", () => {
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"];
    const instants = fc.integer({
      min: Date.parse("2000-01-01T00:00:00Z"),
      max: Date.parse("2099-12-31T00:00:00Z"),
    });
    fc.assert(
      fc.property(instants, (ms) => {
        const india = new Date(ms + 5.5 * 3_600_000);
        const time = `${String(india.getUTCHours()).padStart(2, "0")}:${String(india.getUTCMinutes()).padStart(2, "0")}`;
        const expected = `${india.getUTCDate()} ${months[india.getUTCMonth()]} ${india.getUTCFullYear()}, ${time} IST`;
        const farFromNow = Date.parse("1990-06-01T00:00:00Z");
        expect(formatIndiaTime(new Date(ms).toISOString(), farFromNow)).toBe(expected);
      }),
    );
  });
});
