import type { SmsEncoding } from "../db/schema.js";

/**
 * SMS encoding and segment counting (GSM 03.38 7-bit default alphabet, else UCS-2).
 *
 * GSM-7: 160 septets in one SMS, 153 per part when concatenated (the UDH takes the rest);
 * extension-table characters are sent as ESC (0x1B) + code and cost two septets. UCS-2: 70
 * UTF-16 units in one SMS, 67 per part; a non-BMP character (an emoji) costs two units.
 * A part boundary never splits a grapheme cluster (what a reader sees as one character: an
 * escape pair, an emoji with its skin tone or ZWJ sequence, a flag, an Indic conjunct, CR LF):
 * a cluster that does not fit moves whole to the next part, so the number of parts can be
 * higher than ceil(units / 153) (or / 67). The count that prices a message and the parts its
 * carrier submits come from the same packing.
 */

export interface SmsAnalysis {
  encoding: SmsEncoding;
  /** GSM-7 septets (extension-table characters count 2) or UTF-16 code units (emoji and other non-BMP characters count 2). */
  units: number;
  /** Number of SMS parts: 1 if units fit in a single SMS (160 septets / 70 units), else the number of concatenated parts (153 / 67 each). 0 for an empty text. */
  segments: number;
}

const GSM7_SINGLE = 160;
const GSM7_PART = 153;
const UCS2_SINGLE = 70;
const UCS2_PART = 67;
const ESC = 0x1b;
const CR = 0x0d;
const LF = 0x0a;

/**
 * The GSM 03.38 default alphabet, indexed by septet value. Index 0x1B is the escape to the
 * extension table and is not a character: the placeholder there is skipped.
 */
const DEFAULT_ALPHABET =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ" +
  " !\"#¤%&'()*+,-./0123456789:;<=>?" +
  "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§" +
  "¿abcdefghijklmnopqrstuvwxyzäöñüà";

/** The extension table: character → code sent after ESC. */
const EXTENSION_TABLE: ReadonlyArray<readonly [string, number]> = [
  ["\f", 0x0a],
  ["^", 0x14],
  ["{", 0x28],
  ["}", 0x29],
  ["\\", 0x2f],
  ["[", 0x3c],
  ["~", 0x3d],
  ["]", 0x3e],
  ["|", 0x40],
  ["€", 0x65],
];

/** UTF-16 code unit → GSM-7 septet value (default alphabet). */
const BASIC_SEPTET = new Map<number, number>();
/** UTF-16 code unit → code after ESC (extension table). */
const EXTENSION_SEPTET = new Map<number, number>();

let maxCode = 0;
for (let septet = 0; septet < DEFAULT_ALPHABET.length; septet++) {
  if (septet === ESC) continue;
  const code = DEFAULT_ALPHABET.charCodeAt(septet);
  BASIC_SEPTET.set(code, septet);
  if (code > maxCode) maxCode = code;
}
for (const [char, septet] of EXTENSION_TABLE) {
  const code = char.charCodeAt(0);
  EXTENSION_SEPTET.set(code, septet);
  if (code > maxCode) maxCode = code;
}

/** UTF-16 code unit → septet cost: 0 = not GSM-7, 1 = default alphabet, 2 = extension table. */
const GSM7_COST = new Uint8Array(maxCode + 1);
for (const code of BASIC_SEPTET.keys()) GSM7_COST[code] = 1;
for (const code of EXTENSION_SEPTET.keys()) GSM7_COST[code] = 2;

function gsm7Cost(code: number): number {
  return code < GSM7_COST.length ? (GSM7_COST[code] ?? 0) : 0;
}

/** True when every character is in the GSM 03.38 default alphabet or its extension table. */
export function isGsm7(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (gsm7Cost(text.charCodeAt(i)) === 0) return false;
  }
  return true;
}

export function analyseSms(text: string): SmsAnalysis {
  const length = text.length;
  if (length === 0) return { encoding: "gsm7", units: 0, segments: 0 };

  // Nearly every text is GSM-7 and fits in one SMS: one pass, packing parts as it goes.
  let septets = 0;
  let parts = 1;
  let fill = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    let cost = gsm7Cost(code);
    if (cost === 0) return analyseUcs2(text);
    // CR LF is one grapheme cluster: it goes whole into one part.
    if (code === CR && text.charCodeAt(i + 1) === LF) {
      cost = 2;
      i++;
    }
    septets += cost;
    if (fill + cost > GSM7_PART) {
      parts++;
      fill = cost;
    } else {
      fill += cost;
    }
  }
  return { encoding: "gsm7", units: septets, segments: septets <= GSM7_SINGLE ? 1 : parts };
}

function analyseUcs2(text: string): SmsAnalysis {
  const units = text.length;
  return { encoding: "ucs2", units, segments: units <= UCS2_SINGLE ? 1 : ucs2PartEnds(text).length };
}

/**
 * The text of each concatenated part, in order, as an SMSC would receive it. Parts are packed
 * greedily (up to 153 septets / 67 units) and a cut falls only between grapheme clusters: an
 * extension-table escape pair, a surrogate pair, an emoji with its skin tone or ZWJ sequence, a
 * flag, a letter with its combining marks, an Indic conjunct and CR LF each stay whole in one
 * part. Only a cluster longer than a whole part (a letter under dozens of combining marks) is cut,
 * between code points. A text that fits in one SMS gives one part.
 * analyseSms(text).segments === splitSms(text).length always.
 */
export function splitSms(text: string): string[] {
  if (text.length === 0) return [];
  const ends = isGsm7(text)
    ? gsm7PartEnds(text)
    : text.length <= UCS2_SINGLE
      ? [text.length]
      : ucs2PartEnds(text);
  return ends.map((end, index) => text.slice(index === 0 ? 0 : ends[index - 1], end));
}

/** Where each part of a GSM-7 text ends. No GSM-7 character joins a cluster with its neighbour, except CR with LF. */
function gsm7PartEnds(text: string): number[] {
  const ends: number[] = [];
  let septets = 0;
  let fill = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    const width = code === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    const cost = width === 2 ? 2 : gsm7Cost(code);
    if (fill + cost > GSM7_PART) {
      ends.push(i);
      fill = 0;
    }
    septets += cost;
    fill += cost;
    i += width;
  }
  return septets <= GSM7_SINGLE ? [text.length] : [...ends, text.length];
}

/**
 * Where each part of a multi-part UCS-2 text ends: each part takes 67 units, less the start of
 * a grapheme cluster that would straddle the cut, which moves whole to the next part.
 */
function ucs2PartEnds(text: string): number[] {
  const clusterStart = clusterStartFinder(text);
  const ends: number[] = [];
  let start = 0;
  while (text.length - start > UCS2_PART) {
    let cut = start + UCS2_PART;
    const straddling = clusterStart(cut);
    if (straddling > start) {
      cut = straddling;
    } else if (isLowSurrogate(text.charCodeAt(cut)) && isHighSurrogate(text.charCodeAt(cut - 1))) {
      // A cluster longer than a part: cut it between code points.
      cut--;
    }
    ends.push(cut);
    start = cut;
  }
  ends.push(text.length);
  return ends;
}

const GRAPHEMES = new Intl.Segmenter("und", { granularity: "grapheme" });
/**
 * Below U+0300 every character is a grapheme cluster of its own, except CR LF: what can join its
 * neighbours (combining marks, Indic and other scripts with clusters, ZWJ, variation selectors,
 * Prepend, emoji with their skin tones, flags) is all from here on.
 */
const MAY_JOIN_FROM = 0x300;

/**
 * For a text, a function giving the start of the grapheme cluster that holds the code unit at an
 * index. A cut between two characters below U+0300 is decided on the spot; only for the others is
 * the segmenter asked, once per text and then only about the cut points: setting it up costs a
 * few µs, segmenting a whole text tens of µs.
 */
function clusterStartFinder(text: string): (index: number) => number {
  let segments: Intl.Segments | undefined;
  return (index) => {
    const before = text.charCodeAt(index - 1);
    const at = text.charCodeAt(index);
    if (before < MAY_JOIN_FROM && at < MAY_JOIN_FROM) return before === CR && at === LF ? index - 1 : index;
    segments ??= GRAPHEMES.segment(text);
    return segments.containing(index)?.index ?? index;
  };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** GSM 03.38 septet values for a GSM-7 text, one a byte (extension characters as 0x1B followed by their code), for the SMPP carrier; throws RangeError on a character outside GSM-7. */
export function toGsm7Septets(text: string): Buffer {
  // At most two septets a character; written in place rather than grown value by value.
  const septets = Buffer.allocUnsafe(text.length * 2);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const basic = BASIC_SEPTET.get(code);
    if (basic !== undefined) {
      septets[length++] = basic;
      continue;
    }
    const extension = EXTENSION_SEPTET.get(code);
    if (extension !== undefined) {
      septets[length++] = ESC;
      septets[length++] = extension;
      continue;
    }
    const codePoint = text.codePointAt(i) ?? code;
    const hex = codePoint.toString(16).toUpperCase().padStart(4, "0");
    throw new RangeError(`U+${hex} at index ${i} is not in the GSM 03.38 alphabet`);
  }
  return septets.subarray(0, length);
}

/** Code after ESC → character of the extension table. */
const EXTENSION_CHAR = new Map(EXTENSION_TABLE.map(([char, septet]) => [septet, char]));
const REPLACEMENT = "\uFFFD";

/**
 * The text of GSM 03.38 septets one a byte, as an SMSC reads what `toGsm7Septets` wrote.
 * ESC followed by a code the extension table lacks reads as that code's default-alphabet
 * character (GSM 03.38 §6.2.1.1); a byte above 0x7F, which no septet is, as U+FFFD; a lone ESC
 * at the end as nothing.
 */
export function fromGsm7Septets(septets: Uint8Array): string {
  let text = "";
  for (let i = 0; i < septets.length; i++) {
    const septet = septets[i] as number;
    if (septet === ESC) {
      const next = septets[++i];
      if (next === undefined) break;
      text += EXTENSION_CHAR.get(next) ?? basicChar(next);
      continue;
    }
    text += basicChar(septet);
  }
  return text;
}

function basicChar(septet: number): string {
  // ESC ESC is reserved for a further extension table: shown as a space, as handsets do.
  if (septet === ESC) return " ";
  return septet < DEFAULT_ALPHABET.length ? (DEFAULT_ALPHABET[septet] as string) : REPLACEMENT;
}
