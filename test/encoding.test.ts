import { describe, expect, it } from "vitest";
import { analyseSms, isGsm7, splitSms, toGsm7Septets } from "../src/dlt/encoding.js";

const BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ" +
  " !\"#¤%&'()*+,-./0123456789:;<=>?" +
  "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§" +
  "¿abcdefghijklmnopqrstuvwxyzäöñüà";
const EXTENSION = "\f^{}\\[~]|€";
const HINDI = "आपका ओटीपी 482913 है";
const EMOJI = "😀";

const a = (n: number) => "a".repeat(n);
const deva = (n: number) => "अ".repeat(n);

/** Checks the invariants every split must hold and returns the parts. */
function checkedSplit(text: string): string[] {
  const analysis = analyseSms(text);
  const parts = splitSms(text);
  expect(parts.length).toBe(analysis.segments);
  expect(parts.join("")).toBe(text);
  if (parts.length > 1) {
    const gsm = analysis.encoding === "gsm7";
    const capacity = gsm ? 153 : 67;
    for (const part of parts) {
      // A part of a UCS-2 text is measured in UTF-16 units even if it happens to be all GSM-7.
      const units = gsm ? analyseSms(part).units : part.length;
      expect(units).toBeGreaterThan(0);
      expect(units).toBeLessThanOrEqual(capacity);
      // No surrogate pair is split: no part starts with a low surrogate or ends with a high one.
      const first = part.charCodeAt(0);
      const last = part.charCodeAt(part.length - 1);
      expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
    }
  }
  return parts;
}

describe("isGsm7", () => {
  it("accepts the whole default alphabet and extension table", () => {
    expect(BASIC.length).toBe(127);
    expect(isGsm7(BASIC)).toBe(true);
    expect(isGsm7(EXTENSION)).toBe(true);
    expect(isGsm7("")).toBe(true);
  });

  it.each([
    ["backtick", "`"],
    ["left double quote", "“"],
    ["right double quote", "”"],
    ["left single quote", "‘"],
    ["right single quote", "’"],
    ["en dash", "–"],
    ["em dash", "—"],
    ["ESC itself", "\u001b"],
    ["tab", "\t"],
    ["lowercase c cedilla", "ç"],
    ["rupee sign", "₹"],
    ["emoji", EMOJI],
    ["Devanagari", "अ"],
  ])("rejects %s", (_name, char) => {
    expect(isGsm7(char)).toBe(false);
    expect(isGsm7(`Your OTP is 1234 ${char} thanks`)).toBe(false);
  });
});

describe("analyseSms: GSM-7", () => {
  it("gives 0 segments for an empty text", () => {
    expect(analyseSms("")).toEqual({ encoding: "gsm7", units: 0, segments: 0 });
    expect(splitSms("")).toEqual([]);
  });

  it.each([
    [1, 1],
    [160, 1],
    [161, 2],
    [306, 2],
    [307, 3],
    [459, 3],
    [460, 4],
    [1530, 10],
    [1531, 11],
  ])("%i plain characters → %i segments", (length, segments) => {
    const text = a(length);
    expect(analyseSms(text)).toEqual({ encoding: "gsm7", units: length, segments });
    checkedSplit(text);
  });

  it("counts every extension character as two septets", () => {
    expect(analyseSms(EXTENSION)).toEqual({ encoding: "gsm7", units: 20, segments: 1 });
    for (const char of EXTENSION) {
      expect(analyseSms(char).units).toBe(2);
      expect(analyseSms(`ab${char}`).units).toBe(4);
    }
    expect(analyseSms(BASIC).units).toBe(127);
  });

  it("159 plain + € is 161 septets → 2 segments", () => {
    expect(analyseSms(`${a(159)}€`)).toEqual({ encoding: "gsm7", units: 161, segments: 2 });
    expect(analyseSms(`${a(158)}€`)).toEqual({ encoding: "gsm7", units: 160, segments: 1 });
  });

  it("160 characters including one ^ is 161 septets → 2 segments", () => {
    const text = `${a(80)}^${a(79)}`;
    expect(text.length).toBe(160);
    expect(analyseSms(text)).toEqual({ encoding: "gsm7", units: 161, segments: 2 });
  });

  it("moves an escape pair straddling the 153 boundary to the next part", () => {
    // 152 + 2 + 152 = 306 septets: ceil(306 / 153) = 2, but € cannot straddle → 152 | 2+151 | 1.
    const text = `${a(152)}€${"b".repeat(152)}`;
    const analysis = analyseSms(text);
    expect(analysis.units).toBe(306);
    expect(Math.ceil(analysis.units / 153)).toBe(2);
    expect(analysis.segments).toBe(3);
    const parts = checkedSplit(text);
    expect(parts).toEqual([a(152), `€${"b".repeat(151)}`, "b"]);
    expect(parts.map((part) => analyseSms(part).units)).toEqual([152, 153, 1]);
  });

  it("keeps an escape pair that ends exactly on the boundary in the same part", () => {
    const text = `${a(151)}€${a(10)}`;
    expect(analyseSms(text).units).toBe(163);
    expect(checkedSplit(text)).toEqual([`${a(151)}€`, a(10)]);
  });

  it("a whole text of extension characters packs 76 per part", () => {
    // 81 × 2 = 162 septets; 153 is odd, so each part holds 76 pairs (152 septets).
    const text = "€".repeat(81);
    expect(analyseSms(text)).toEqual({ encoding: "gsm7", units: 162, segments: 2 });
    expect(checkedSplit(text)).toEqual(["€".repeat(76), "€".repeat(5)]);
    // 765 × 2 = 1530 septets: naive 10 parts, but at 76 pairs per part it needs 11.
    const long = "{".repeat(765);
    expect(analyseSms(long)).toEqual({ encoding: "gsm7", units: 1530, segments: 11 });
    checkedSplit(long);
  });
});

describe("analyseSms: UCS-2", () => {
  it("counts Hindi text in UTF-16 units", () => {
    expect(analyseSms(HINDI)).toEqual({ encoding: "ucs2", units: 20, segments: 1 });
  });

  it.each([
    [70, 1],
    [71, 2],
    [134, 2],
    [135, 3],
    [670, 10],
    [671, 11],
  ])("%i units → %i segments", (length, segments) => {
    const text = deva(length);
    expect(analyseSms(text)).toEqual({ encoding: "ucs2", units: length, segments });
    checkedSplit(text);
  });

  it("counts an emoji as two units", () => {
    expect(analyseSms(EMOJI)).toEqual({ encoding: "ucs2", units: 2, segments: 1 });
    expect(analyseSms(`OTP 1234 ${EMOJI}`)).toEqual({ encoding: "ucs2", units: 11, segments: 1 });
    expect(analyseSms(`${deva(68)}${EMOJI}`)).toEqual({ encoding: "ucs2", units: 70, segments: 1 });
    expect(analyseSms(`${deva(69)}${EMOJI}`)).toEqual({ encoding: "ucs2", units: 71, segments: 2 });
  });

  it("never splits a surrogate pair across the 67 boundary", () => {
    // 66 + 2 + 66 = 134 units: ceil(134 / 67) = 2, but the emoji moves → 66 | 2+65 | 1.
    const text = `${deva(66)}${EMOJI}${deva(66)}`;
    const analysis = analyseSms(text);
    expect(analysis.units).toBe(134);
    expect(analysis.segments).toBe(3);
    expect(checkedSplit(text)).toEqual([deva(66), `${EMOJI}${deva(65)}`, deva(1)]);
  });

  it("keeps a surrogate pair ending exactly on the boundary in the same part", () => {
    const text = `${deva(65)}${EMOJI}${deva(10)}`;
    expect(checkedSplit(text)).toEqual([`${deva(65)}${EMOJI}`, deva(10)]);
  });

  it("switches the whole text to ucs2 for one non-GSM character", () => {
    for (const char of ["“", "`", "’", "—"]) {
      const text = `${a(100)}${char}${a(100)}`;
      expect(analyseSms(text)).toEqual({ encoding: "ucs2", units: 201, segments: 3 });
      expect(analyseSms(`${text}a`)).toEqual({ encoding: "ucs2", units: 202, segments: 4 });
    }
    // Extension characters count one unit each once the text is UCS-2.
    expect(analyseSms(`€€€“`)).toEqual({ encoding: "ucs2", units: 4, segments: 1 });
    // The non-GSM character at the very end still decides.
    expect(analyseSms(`${a(160)}“`).encoding).toBe("ucs2");
  });

  it("treats a lone surrogate as one non-GSM unit", () => {
    expect(analyseSms("a\ud83d")).toEqual({ encoding: "ucs2", units: 2, segments: 1 });
    expect(analyseSms("\ude00a")).toEqual({ encoding: "ucs2", units: 2, segments: 1 });
  });
});

describe("splitSms", () => {
  it("gives one part for a text that fits in one SMS", () => {
    expect(splitSms(a(160))).toEqual([a(160)]);
    expect(splitSms(HINDI)).toEqual([HINDI]);
  });

  it("packs parts greedily", () => {
    expect(splitSms(a(307))).toEqual([a(153), a(153), a(1)]);
    expect(splitSms(deva(135))).toEqual([deva(67), deva(67), deva(1)]);
  });

  it("joins back to the original text and agrees with analyseSms on mixed random texts", () => {
    const alphabet = [...BASIC, ...EXTENSION, "अ", "“", EMOJI, "👍🏽"];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 300; round++) {
      const gsmOnly = round % 2 === 0;
      const pool = gsmOnly ? [...BASIC, ...EXTENSION, ...EXTENSION] : alphabet;
      const length = Math.floor(random() * 800);
      let text = "";
      for (let i = 0; i < length; i++) text += pool[Math.floor(random() * pool.length)] ?? "";
      const parts = checkedSplit(text);
      if (parts.length > 1) {
        // Greedy: the first character of each next part would not have fitted in the previous one.
        const gsm = analyseSms(text).encoding === "gsm7";
        const capacity = gsm ? 153 : 67;
        const measure = (s: string) => (gsm ? analyseSms(s).units : s.length);
        for (let p = 1; p < parts.length; p++) {
          const previous = measure(parts[p - 1] ?? "");
          const cost = measure([...(parts[p] ?? "")][0] ?? "");
          expect(previous + cost).toBeGreaterThan(capacity);
        }
      }
    }
  });
});

describe("toGsm7Septets", () => {
  it("maps default-alphabet characters to their septet values", () => {
    expect([...toGsm7Septets("@£$")]).toEqual([0, 1, 2]);
    expect([...toGsm7Septets("Aa0 \n\r")]).toEqual([0x41, 0x61, 0x30, 0x20, 0x0a, 0x0d]);
    expect([...toGsm7Septets("¤¡§¿àΔ")]).toEqual([0x24, 0x40, 0x5f, 0x60, 0x7f, 0x10]);
    const all = [...toGsm7Septets(BASIC)];
    expect(all).toEqual([...Array(128).keys()].filter((septet) => septet !== 0x1b));
  });

  it("escapes extension characters", () => {
    expect([...toGsm7Septets("€")]).toEqual([0x1b, 0x65]);
    expect([...toGsm7Septets(EXTENSION)]).toEqual([
      0x1b, 0x0a, 0x1b, 0x14, 0x1b, 0x28, 0x1b, 0x29, 0x1b, 0x2f, 0x1b, 0x3c, 0x1b, 0x3d, 0x1b, 0x3e, 0x1b,
      0x40, 0x1b, 0x65,
    ]);
    expect(toGsm7Septets(`${a(5)}^`).length).toBe(analyseSms(`${a(5)}^`).units);
  });

  it("throws RangeError outside GSM-7", () => {
    expect(() => toGsm7Septets(EMOJI)).toThrow(RangeError);
    expect(() => toGsm7Septets("abc`")).toThrow(RangeError);
    expect(() => toGsm7Septets("\u001b")).toThrow(RangeError);
    expect([...toGsm7Septets("")]).toEqual([]);
  });
});
