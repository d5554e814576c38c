import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inChunks } from "../src/db/prepared.js";

describe("inChunks", () => {
  it("splits any list into power-of-two chunks of at most 128, largest first, keeping the order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 1_500 }), (items) => {
        const chunks = inChunks(items);
        expect(chunks.flat()).toEqual(items);
        const sizes = chunks.map((chunk) => chunk.length);
        for (const size of sizes) {
          expect(size).toBeLessThanOrEqual(128);
          expect(Number.isInteger(Math.log2(size))).toBe(true);
        }
        expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
        // So a table sees at most eight statement shapes, whatever the counts.
        expect(new Set(sizes).size).toBeLessThanOrEqual(8);
      }),
    );
    expect(inChunks([]).length).toBe(0);
    expect(inChunks(Array.from({ length: 97 }, (_, i) => i)).map((chunk) => chunk.length)).toEqual([
      64, 32, 1,
    ]);
  });
});
