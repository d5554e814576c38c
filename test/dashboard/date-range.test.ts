/** The dashboard's date filters: whole days of India time (UTC+05:30), both ends included. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseIndiaDateRange } from "../../src/dashboard/date-range.js";
import { ApiError } from "../../src/errors.js";

const PARAMS = { from: "from", to: "until" };

describe("parseIndiaDateRange", () => {
  it("starts a day at 00:00 IST and ends it at the next 00:00 IST", () => {
    expect(parseIndiaDateRange("2026-11-22", "2026-11-22", PARAMS)).toEqual({
      after: "2026-11-21T18:30:00.000Z",
      before: "2026-11-22T18:30:00.000Z",
    });
    expect(parseIndiaDateRange(undefined, "2024-02-29", PARAMS)).toEqual({
      after: undefined,
      before: "2024-02-29T18:30:00.000Z",
    });
    expect(parseIndiaDateRange("", "", PARAMS)).toEqual({ after: undefined, before: undefined });
  });

  it("refuses what is not a real day, and a range ending before it starts, naming the parameter", () => {
    for (const [from, to, param] of [
      ["2026-02-29", undefined, "from"],
      ["2026-11-31", undefined, "from"],
      ["2026-1-05", undefined, "from"],
      [undefined, "0099-01-01", "until"],
      [undefined, "2026-11-22 ", "until"],
      ["2026-11-23", "2026-11-22", "until"],
    ] as const) {
      const error = (() => {
        try {
          parseIndiaDateRange(from, to, PARAMS);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, `${from} ${to}`).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: "invalid_request", param });
    }
  });

  it("answers a 24-hour span for any real day, and an invalid_request for any other text", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1970-01-02"), max: new Date("9999-12-30"), noInvalidDate: true }),
        (day) => {
          const date = day.toISOString().slice(0, 10);
          const range = parseIndiaDateRange(date, date, PARAMS);
          expect(Date.parse(range.before ?? "") - Date.parse(range.after ?? "")).toBe(86_400_000);
          expect(new Date(Date.parse(range.after ?? "") + 5.5 * 3_600_000).toISOString()).toBe(
            `${date}T00:00:00.000Z`,
          );
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (from, to) => {
        try {
          const range = parseIndiaDateRange(from, to, PARAMS);
          if (range.after !== undefined && range.before !== undefined)
            expect(range.after < range.before).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect(["from", "until"]).toContain((error as ApiError).param);
        }
      }),
    );
  });
});
