import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addSeconds, isoTime } from "../../src/lib/clock.js";

const MAX_DATE_MS = 8.64e15;

describe("isoTime", () => {
  it("writes any instant as Date.prototype.toISOString does, however the instants repeat and collide", () => {
    const instant = fc.oneof(
      fc.integer({ min: -MAX_DATE_MS, max: MAX_DATE_MS }),
      // Instants a few milliseconds apart, and the same instant again, so kept texts are hit.
      fc.integer({ min: 0, max: 64 }).map((offset) => 1_764_122_400_000 + offset * 8),
      // More seconds than are kept at once, at any millisecond, so the kept texts start again.
      fc
        .tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 999 }))
        .map(([second, ms]) => 1_764_122_400_000 + second * 1000 + ms),
      // Hours, their ends and minutes' buckets, which share a second's last bits.
      fc
        .tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 0, max: 61 }))
        .map(([hour, minute]) => 1_764_122_400_000 + hour * 3_600_000 + minute * 60_000),
      // Either side of the first instant and of the last of four-digit years.
      fc.integer({ min: -2, max: 2 }),
      fc.integer({ min: -2, max: 2 }).map((offset) => 253_402_300_799_999 + offset),
      fc.double({ min: -1e13, max: 1e13, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(instant, { maxLength: 200 }), (instants) => {
        for (const ms of [...instants, ...instants.slice().reverse()]) {
          expect(isoTime(ms)).toBe(new Date(ms).toISOString());
        }
      }),
    );
  });

  it("refuses an instant a Date cannot hold, as toISOString does", () => {
    for (const ms of [Number.NaN, MAX_DATE_MS + 1, Number.POSITIVE_INFINITY]) {
      expect(() => isoTime(ms)).toThrow(RangeError);
    }
  });

  it("adds seconds to an RFC 3339 time", () => {
    expect(addSeconds("2026-11-26T02:59:59.500Z", 0.75)).toBe("2026-11-26T03:00:00.250Z");
  });
});
