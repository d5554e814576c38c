import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatInr as formatUnits } from "../../src/lib/money.js";
import { addInr } from "../../web/src/format.js";

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
