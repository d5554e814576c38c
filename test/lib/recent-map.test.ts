import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RecentMap } from "../../src/lib/recent-map.js";

describe("RecentMap", () => {
  it("keeps at most its limit, and always the entries set or read since the last limit/2 writes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 20 }),
        fc.array(fc.tuple(fc.constantFrom("set", "get", "take"), fc.integer({ min: 0, max: 30 })), {
          maxLength: 300,
        }),
        (limit, operations) => {
          const map = new RecentMap<number, number>(limit);
          const model = new Map<number, number>();
          /** Keys touched, most recent last: the model of which entries must still be there. */
          let recent: number[] = [];
          let version = 0;
          for (const [operation, key] of operations) {
            if (operation === "set") {
              version += 1;
              map.set(key, version);
              model.set(key, version);
              recent = [...recent.filter((k) => k !== key), key];
            } else {
              const value = operation === "get" ? map.get(key) : map.take(key);
              // Whatever it answers was the latest value set for that key.
              if (value !== undefined) expect(value).toBe(model.get(key));
              if (value !== undefined && operation === "get")
                recent = [...recent.filter((k) => k !== key), key];
              if (operation === "take") {
                model.delete(key);
                recent = recent.filter((k) => k !== key);
                expect(map.get(key)).toBeUndefined();
              }
            }
            expect(map.size).toBeLessThanOrEqual(limit);
            // The latest half of the limit is always kept.
            for (const k of recent.slice(-Math.floor(limit / 2))) expect(map.get(k)).toBe(model.get(k));
            recent = recent.slice(-Math.floor(limit / 2));
          }
        },
      ),
    );
  });

  it("used as a FIFO of far more entries than its limit, keeps the newest and never more than its limit", () => {
    const map = new RecentMap<string, number>(50_000);
    for (let i = 0; i < 1_000_000; i++) map.set(`smpp:${i}`, i);
    expect(map.size).toBeLessThanOrEqual(50_000);
    expect(map.get("smpp:999999")).toBe(999_999);
    expect(map.get("smpp:0")).toBeUndefined();
  });
});
