import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyseSms, fromGsm7Septets, isGsm7, splitSms, toGsm7Septets } from "../../src/dlt/encoding.js";
import { DEFAULT_PRICES, priceOf } from "../../src/messages/pricing.js";

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

const graphemes = new Intl.Segmenter("und", { granularity: "grapheme" });
const clustersOf = (text: string) => Array.from(graphemes.segment(text), ({ segment }) => segment);

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
          const cost = measure(clustersOf(parts[p] ?? "")[0] ?? "");
          expect(previous + cost).toBeGreaterThan(capacity);
        }
      }
    }
  });
});

describe("splitSms: grapheme clusters", () => {
  const FLAG = "🇮🇳";
  const THUMB = "👍🏽";
  const FAMILY = "👨‍👩‍👧‍👦";
  const KSHA = "क्ष";

  /** The parts' boundaries, and whether each falls between two grapheme clusters of the whole text. */
  function expectNoClusterSplit(text: string, parts: string[]): void {
    const boundaries = new Set<number>();
    let offset = 0;
    for (const cluster of clustersOf(text)) {
      boundaries.add(offset);
      offset += cluster.length;
    }
    let end = 0;
    for (const part of parts.slice(0, -1)) {
      end += part.length;
      expect(boundaries.has(end), `a cut at ${end} of ${JSON.stringify(text)}`).toBe(true);
    }
  }

  it.each([
    ["a flag", FLAG, 65],
    ["an emoji with a skin tone", THUMB, 65],
    ["a ZWJ family", FAMILY, 60],
    ["a Devanagari conjunct", KSHA, 65],
    ["a rainbow flag (emoji, variation selector, ZWJ)", "🏳️‍🌈", 64],
    ["an e with a combining acute", "e\u0301", 66],
  ])("moves %s straddling the 67-unit boundary whole to the next part", (_name, cluster, before) => {
    // The cluster's first code unit fits in the first part, the rest does not.
    expect(before).toBeLessThan(67);
    expect(before + cluster.length).toBeGreaterThan(67);
    const text = `${deva(before)}${cluster}${deva(40)}`;
    const parts = checkedSplit(text);
    expect(parts).toEqual([deva(before), `${cluster}${deva(40)}`]);
    expect(analyseSms(text).segments).toBe(2);
  });

  it("counts the part a moved cluster adds, and prices it", () => {
    // 65 + 4 + 65 = 134 units: 2 parts by length, but the flag moves whole → 65 | 4+63 | 2.
    const text = `${deva(65)}${FLAG}${deva(65)}`;
    expect(text.length).toBe(134);
    expect(analyseSms(text)).toEqual({ encoding: "ucs2", units: 134, segments: 3 });
    expect(checkedSplit(text)).toEqual([deva(65), `${FLAG}${deva(63)}`, deva(2)]);
    expect(priceOf(DEFAULT_PRICES, "sms", analyseSms(text).segments)).toBe(3 * DEFAULT_PRICES.sms);
  });

  it("keeps CR LF in one part, in GSM-7 and in UCS-2", () => {
    expect(checkedSplit(`${a(152)}\r\n${a(20)}`)).toEqual([a(152), `\r\n${a(20)}`]);
    expect(analyseSms(`${a(152)}\r\n${a(20)}`)).toEqual({ encoding: "gsm7", units: 174, segments: 2 });
    expect(checkedSplit(`${"ç".repeat(66)}\r\n${a(20)}`)).toEqual(["ç".repeat(66), `\r\n${a(20)}`]);
    expect(checkedSplit(`${deva(66)}\r\n${a(20)}`)).toEqual([deva(66), `\r\n${a(20)}`]);
  });

  it("cuts a cluster longer than a whole part between code points", () => {
    // A letter under 100 combining marks is one cluster of 101 units: no part can hold it.
    const zalgo = `a${"\u0301".repeat(100)}`;
    const text = `${deva(10)}${zalgo}${deva(10)}`;
    const parts = checkedSplit(text);
    expect(parts).toEqual([deva(10), zalgo.slice(0, 67), `${zalgo.slice(67)}${deva(10)}`]);
    // Of emoji too, never inside a surrogate pair.
    const thumbs = `x${"👍".repeat(40)}`;
    expect(clustersOf(`${thumbs}`)).toHaveLength(41);
    const tones = `👍${"🏽".repeat(40)}`;
    expect(clustersOf(tones)).toHaveLength(1);
    expect(checkedSplit(`${a(1)}${tones}`).map((part) => part.length)).toEqual([1, 66, 16]);
  });

  // Clusters that each fit in a part, and the usual text around them.
  const cluster = fc.oneof(
    fc.constantFrom(...BASIC, ...EXTENSION, "\r\n"),
    fc.constantFrom("अ", "कि", "हिं", KSHA, "त्र", "ज्ञ", "श्र", "स्त्रि", "न्दी", "द्ध", "क्", "ङ्क्ष्व", "க்ஷ", "ক্ষ"),
    fc.constantFrom(
      "😀",
      THUMB,
      "👩🏾‍💻",
      FAMILY,
      "🧑‍🤝‍🧑",
      "🏳️‍🌈",
      "❤️",
      "1️⃣",
      FLAG,
      "🇺🇸",
      "🇮",
      "🏽",
      "\u200d",
      "e\u0301",
      "©",
      "®",
      "😀\u200d©",
    ),
    fc.constantFrom("“", "’", "—", "₹", "ç", "\t", "\u0600", "한", "ᄀ", "ᅡ", "ᆨ"),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
  );
  const texts = (weights: { gsm: number; other: number }) =>
    fc
      .array(
        fc.oneof(
          { arbitrary: fc.constantFrom(...BASIC, "\r\n"), weight: weights.gsm },
          { arbitrary: cluster, weight: weights.other },
        ),
        {
          maxLength: 400,
          size: "max",
        },
      )
      .map((pieces) => pieces.join(""));

  it("never splits a grapheme cluster, joins back, fits each part and counts what it prices (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(texts({ gsm: 1, other: 1 }), texts({ gsm: 8, other: 1 }), texts({ gsm: 1, other: 0 })),
        (text) => {
          const analysis = analyseSms(text);
          const parts = checkedSplit(text);
          expectNoClusterSplit(text, parts);
          // The count a send answers with and is charged for is the number of parts submitted.
          expect(priceOf(DEFAULT_PRICES, "sms", analysis.segments)).toBe(parts.length * DEFAULT_PRICES.sms);
          // Packed greedily: the first cluster of each next part would not have fitted in the one before.
          const gsm = analysis.encoding === "gsm7";
          const measure = (s: string) => (gsm ? analyseSms(s).units : s.length);
          for (let p = 1; p < parts.length; p++) {
            const next = clustersOf(parts[p] ?? "")[0] ?? "";
            expect(measure(parts[p - 1] ?? "") + measure(next)).toBeGreaterThan(gsm ? 153 : 67);
          }
        },
      ),
      { numRuns: 500 },
    );
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

describe("fromGsm7Septets", () => {
  it("reads back every default-alphabet and extension character", () => {
    expect(fromGsm7Septets(toGsm7Septets(BASIC))).toBe(BASIC);
    expect(fromGsm7Septets(toGsm7Septets(EXTENSION))).toBe(EXTENSION);
    expect(fromGsm7Septets(Buffer.from([0x00, 0x02, 0x1b, 0x65, 0x11]))).toBe("@$€_");
  });

  it("reads what no encoder writes the way handsets show it", () => {
    // ESC before a code the extension table lacks: that code's default-alphabet character.
    expect(fromGsm7Septets(Buffer.from([0x1b, 0x41, 0x62]))).toBe("Ab");
    // ESC ESC is reserved: a space. A lone ESC at the end: nothing. A byte above 0x7F: U+FFFD.
    expect(fromGsm7Septets(Buffer.from([0x61, 0x1b, 0x1b, 0x62, 0x1b]))).toBe("a b");
    expect(fromGsm7Septets(Buffer.from([0x61, 0x80, 0xff]))).toBe("a\uFFFD\uFFFD");
    expect(fromGsm7Septets(Buffer.alloc(0))).toBe("");
  });

  it("round-trips any GSM-7 text, and reads any bytes without throwing", () => {
    const gsm = fc.string({ unit: fc.constantFrom(...BASIC, ...EXTENSION), maxLength: 200 });
    fc.assert(fc.property(gsm, (text) => fromGsm7Septets(toGsm7Septets(text)) === text));
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = fromGsm7Septets(bytes);
        expect(text.length).toBeLessThanOrEqual(bytes.length);
      }),
    );
  });
});
