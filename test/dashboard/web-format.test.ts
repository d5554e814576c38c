import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatInr as formatUnits } from "../../src/lib/money.js";
import {
  addInr,
  formatIndiaTime,
  formatInr,
  formatUtc,
  parseIndiaInput,
  toIndiaInput,
} from "../../web/src/format.js";

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

describe("formatInr", () => {
  it("shows rupees to the paisa, grouped the Indian way", () => {
    expect(formatInr("99.7500")).toBe("₹99.75");
    expect(formatInr("0.2500")).toBe("₹0.25");
    expect(formatInr("100000.5")).toBe("₹1,00,000.50");
    expect(formatInr("1000")).toBe("₹1,000.00");
    expect(formatInr("-0.5000")).toBe("-₹0.50");
    expect(formatInr("12345678.0000")).toBe("₹1,23,45,678.00");
  });

  it("keeps the 4 decimals of an amount with a fraction of a paisa instead of rounding it", () => {
    expect(formatInr("0.1275")).toBe("₹0.1275");
    expect(formatInr("0.0001")).toBe("₹0.0001");
    expect(formatInr("2.5050")).toBe("₹2.5050");
  });

  it("shows every amount exactly, with 2 or 4 decimals (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }), (units) => {
        const shown = formatInr(formatUnits(units));
        const match = /^(-?)₹([\d,]+)\.(\d{2}|\d{4})$/.exec(shown);
        expect(match).not.toBeNull();
        const [, sign = "", rupees = "", fraction = ""] = match ?? [];
        expect(/^\d{1,2}(,\d{2})*,\d{3}$|^\d{1,3}$/.test(rupees)).toBe(true);
        const back = BigInt(`${rupees.replace(/,/g, "")}${fraction.padEnd(4, "0")}`);
        expect(sign === "-" ? -back : back).toBe(BigInt(units));
        expect(fraction.length === 2).toBe(units % 100 === 0);
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

describe("India time typed in a form", () => {
  it("reads year-month-day and a 24-hour time as India's wall clock", () => {
    expect(parseIndiaInput("2026-11-29 14:30")).toBe("2026-11-29T09:00:00.000Z");
    expect(parseIndiaInput("2026-11-29T14:30")).toBe("2026-11-29T09:00:00.000Z");
    expect(parseIndiaInput(" 2027-01-01 00:00 ")).toBe("2026-12-31T18:30:00.000Z");
    expect(toIndiaInput("2026-11-29T09:00:00.000Z")).toBe("2026-11-29 14:30");
  });

  it("refuses what is not a real day and time", () => {
    for (const text of [
      "",
      "11/29/2026 14:30",
      "29-11-2026 14:30",
      "2026-02-30 10:00",
      "2026-11-29 24:00",
      "2026-11-29 9:30",
      "2026-11-29 14:60",
    ]) {
      expect(parseIndiaInput(text)).toBeUndefined();
    }
  });

  it("gives back the minute it wrote (property)", () => {
    const minutes = fc.integer({ min: 0, max: 60 * 24 * 365 * 100 });
    fc.assert(
      fc.property(minutes, (minute) => {
        const iso = new Date(Date.parse("2000-01-01T00:00:00Z") + minute * 60_000).toISOString();
        expect(parseIndiaInput(toIndiaInput(iso))).toBe(iso);
        expect(formatIndiaTime(iso, Date.parse("1990-01-01T00:00:00Z"))).toMatch(/ IST$/);
      }),
    );
  });

  it("never throws on any text (property)", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseIndiaInput(text);
        if (parsed !== undefined) expect(Number.isNaN(Date.parse(parsed))).toBe(false);
      }),
    );
  });
});
