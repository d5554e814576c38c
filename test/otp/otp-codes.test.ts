import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids.js";
import { seal, tryUnseal, unseal } from "../../src/lib/sealing.js";
import { generateCode } from "../../src/otp/codes.js";

describe("generated codes", () => {
  function chiSquare(counts: number[], total: number): number {
    const expected = total / counts.length;
    return counts.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
  }

  /** χ² for 9 degrees of freedom at p = 0.001: a uniform source exceeds it once in a thousand runs. */
  const CRITICAL = 27.88;

  it("are uniform: first digit, last digit and every position (χ² over 100,000 codes)", () => {
    const n = 100_000;
    const first = new Array<number>(10).fill(0);
    const last = new Array<number>(10).fill(0);
    const all = new Array<number>(10).fill(0);
    for (let i = 0; i < n; i++) {
      const code = generateCode(6);
      if (code.length !== 6) throw new Error(`code of length ${code.length}: ${code}`);
      first[code.charCodeAt(0) - 48] = (first[code.charCodeAt(0) - 48] ?? 0) + 1;
      last[code.charCodeAt(5) - 48] = (last[code.charCodeAt(5) - 48] ?? 0) + 1;
      for (let p = 0; p < 6; p++) all[code.charCodeAt(p) - 48] = (all[code.charCodeAt(p) - 48] ?? 0) + 1;
    }
    expect(first.reduce((a, b) => a + b)).toBe(n);
    expect(chiSquare(first, n)).toBeLessThan(CRITICAL);
    expect(chiSquare(last, n)).toBeLessThan(CRITICAL);
    expect(chiSquare(all, 6 * n)).toBeLessThan(CRITICAL);
  });

  it.each([4, 10])("have exactly %i digits, leading zeros included", (length) => {
    const codes = Array.from({ length: 5_000 }, () => generateCode(length));
    for (const code of codes) expect(code).toMatch(new RegExp(`^\\d{${length}}$`));
    // A leading zero comes one time in ten: 5,000 codes without one would be a broken generator.
    expect(codes.filter((c) => c.startsWith("0")).length).toBeGreaterThan(300);
    expect(new Set(codes).size).toBeGreaterThan(length === 4 ? 3_000 : 4_990);
  });
});

describe("sealing", () => {
  it("uses a fresh IV every time, ids drawing from the same random pool in between, and unseals only under its secret", () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const sealed = seal("secret-a", "123456");
      ivs.add(Buffer.from(sealed, "base64").subarray(0, 12).toString("hex"));
      if (i % 3 === 0) newId("otp");
      expect(unseal("secret-a", sealed)).toBe("123456");
    }
    expect(ivs.size).toBe(20_000);
    const sealed = seal("secret-a", "654321");
    expect(tryUnseal("secret-b", sealed)).toBeUndefined();
    expect(tryUnseal("secret-a", sealed)).toBe("654321");
    expect(tryUnseal("secret-b", seal("secret-b", "000000"))).toBe("000000");
  });
});
