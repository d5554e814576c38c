/**
 * SMS encoding and segment counting (GSM 03.38 7-bit default alphabet, else UCS-2).
 *
 * GSM-7: 160 septets in one SMS, 153 per part when concatenated (the UDH takes the rest);
 * extension-table characters are sent as ESC (0x1B) + code and cost two septets, and the pair
 * is never split across parts. UCS-2: 70 UTF-16 units in one SMS, 67 per part; a surrogate
 * pair (emoji and other non-BMP characters) costs two units and is never split across parts.
 * Because a pair that does not fit moves whole to the next part, the number of parts can be
 * higher than ceil(units / 153) (or / 67).
 */

export type SmsEncoding = "gsm7" | "ucs2";

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

/** 2 when a surrogate pair starts at index i, else 1 (a lone surrogate is one unit). */
function utf16Width(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
    const next = text.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return 2;
  }
  return 1;
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

  // One pass keeps both tallies until a non-GSM character rules GSM-7 out.
  let gsm = true;
  let septets = 0;
  let gsmParts = 1;
  let gsmFill = 0;
  let ucsParts = 1;
  let ucsFill = 0;

  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    let width = 1;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        width = 2;
        i++;
      }
    }

    if (ucsFill + width > UCS2_PART) {
      ucsParts++;
      ucsFill = width;
    } else {
      ucsFill += width;
    }

    if (gsm) {
      const cost = width === 1 ? gsm7Cost(code) : 0;
      if (cost === 0) {
        gsm = false;
      } else {
        septets += cost;
        if (gsmFill + cost > GSM7_PART) {
          gsmParts++;
          gsmFill = cost;
        } else {
          gsmFill += cost;
        }
      }
    }
  }

  if (gsm) {
    return { encoding: "gsm7", units: septets, segments: septets <= GSM7_SINGLE ? 1 : gsmParts };
  }
  return { encoding: "ucs2", units: length, segments: length <= UCS2_SINGLE ? 1 : ucsParts };
}

/** The text of each concatenated part, in order, as an SMSC would receive it: never splits an extension-table escape pair (a 2-septet character stays whole in one part) nor a UTF-16 surrogate pair; parts are packed greedily (a part is filled up to 153 septets / 67 units). A text that fits in one SMS gives one part. analyseSms(text).segments === splitSms(text).length always. */
export function splitSms(text: string): string[] {
  if (text.length === 0) return [];
  const { encoding, units } = analyseSms(text);
  const gsm = encoding === "gsm7";
  if (units <= (gsm ? GSM7_SINGLE : UCS2_SINGLE)) return [text];

  const capacity = gsm ? GSM7_PART : UCS2_PART;
  const parts: string[] = [];
  let start = 0;
  let fill = 0;
  for (let i = 0; i < text.length; ) {
    const width = utf16Width(text, i);
    const cost = gsm ? gsm7Cost(text.charCodeAt(i)) : width;
    if (fill + cost > capacity) {
      parts.push(text.slice(start, i));
      start = i;
      fill = 0;
    }
    fill += cost;
    i += width;
  }
  parts.push(text.slice(start));
  return parts;
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
