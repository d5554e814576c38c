import { describe, expect, it } from "vitest";
import { dayToSeconds, formatReportDay, reportDaysOf, reportPeriod } from "../../web/src/reports/period.js";
import { deliveryRate, formatPercent, statusParts, totals } from "../../web/src/reports/series.js";

const row = (
  key: string,
  messages: number,
  delivered: number,
  undelivered: number,
  failed: number,
  cancelled = 0,
) => ({
  key,
  messages,
  segments: messages,
  delivered,
  undelivered,
  failed,
  cancelled,
  cost: "0.0000",
});

describe("the Overview's report periods", () => {
  it("reads only the periods offered from the address, 30 days otherwise", () => {
    expect(reportDaysOf("7")).toBe(7);
    expect(reportDaysOf("90")).toBe(90);
    for (const value of [null, "", "31", "7.0", "abc"]) expect(reportDaysOf(value)).toBe(30);
  });

  it("ends on today in India, whatever the time in UTC", () => {
    // 29 Nov 2026 19:00 UTC is already 30 Nov, 00:30 in India.
    const lateEvening = Date.parse("2026-11-29T19:00:00Z");
    expect(reportPeriod(7, lateEvening)).toEqual({ from: "2026-11-24", to: "2026-11-30" });
    expect(reportPeriod(30, Date.parse("2026-11-29T18:29:59Z"))).toEqual({
      from: "2026-10-31",
      to: "2026-11-29",
    });
    expect(reportPeriod(90, lateEvening).from).toBe("2026-09-02");
  });

  it("places a day at its date's UTC midnight and labels it so in any zone", () => {
    expect(dayToSeconds("2026-11-29")).toBe(Date.UTC(2026, 10, 29) / 1000);
    expect(formatReportDay("2026-11-29")).toBe("29 Nov");
    expect(formatReportDay(dayToSeconds("2026-01-01"))).toBe("1 Jan");
  });
});

describe("the Overview's report series", () => {
  it("splits a day into final statuses and those not yet final", () => {
    expect(statusParts(row("2026-11-29", 12, 6, 1, 2, 2))).toEqual({
      delivered: 6,
      pending: 1,
      undelivered: 1,
      failed: 2,
      cancelled: 2,
    });
    expect(totals([row("a", 10, 6, 1, 2), row("b", 3, 3, 0, 0)])).toEqual({
      messages: 13,
      delivered: 9,
      pending: 1,
      undelivered: 1,
      failed: 2,
      cancelled: 0,
    });
  });

  it("gives no delivery rate for a day without messages", () => {
    expect(deliveryRate({ messages: 0, delivered: 0, cancelled: 0 })).toBeNull();
    expect(deliveryRate({ messages: 6, delivered: 5, cancelled: 0 })).toBeCloseTo(5 / 6);
    // Cancelled messages never went out: they count neither way.
    expect(deliveryRate({ messages: 8, delivered: 5, cancelled: 2 })).toBeCloseTo(5 / 6);
    expect(deliveryRate({ messages: 2, delivered: 0, cancelled: 2 })).toBeNull();
    expect(formatPercent(5 / 6)).toBe("83.3%");
    expect(formatPercent(1)).toBe("100%");
  });
});
