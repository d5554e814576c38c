/**
 * Finds secrets in captured text (logs) however they were written: as text, or as the bytes of
 * the request that carried them in the forms a logger or a serializer produces.
 */

export interface Leak {
  secret: string;
  encoding: string;
  /** Some text around the first place it was found, for the failure message. */
  context: string;
}

/** Shorter encoded fragments would match by chance; the secrets used are longer than this. */
const MIN_FRAGMENT = 8;

/** `secret` in every encoding searched for, by encoding name. */
export function encodingsOf(secret: string): Map<string, string> {
  const bytes = Buffer.from(secret, "utf8");
  const forms = new Map<string, string>([
    ["text", secret],
    ["JSON-escaped", JSON.stringify(secret).slice(1, -1)],
    ["JSON-escaped ASCII", asciiJson(secret)],
    ["URL-encoded", encodeURIComponent(secret)],
    ["form-encoded", new URLSearchParams({ s: secret }).toString().slice(2)],
    ["hex", bytes.toString("hex")],
    ["HEX", bytes.toString("hex").toUpperCase()],
    // pino writes a Buffer (a parser error's rawPacket) as {"type":"Buffer","data":[112,97,…]}.
    ["byte list", [...bytes].join(",")],
    ["latin1 of UTF-8", bytes.toString("latin1")],
  ]);
  // Inside a longer base64 text the secret starts at any of three offsets within a 3-byte group.
  for (const offset of [0, 1, 2]) {
    for (const alphabet of ["base64", "base64url"] as const) {
      const fragment = stableBase64(bytes, offset, alphabet);
      if (fragment.length >= MIN_FRAGMENT) forms.set(`${alphabet} at offset ${offset}`, fragment);
    }
  }
  return forms;
}

/** Every secret found in `text`, with the first encoding it was found in. */
export function findLeaks(text: string, secrets: Iterable<string>): Leak[] {
  const leaks: Leak[] = [];
  for (const secret of secrets) {
    for (const [encoding, form] of encodingsOf(secret)) {
      const at = text.indexOf(form);
      if (at < 0) continue;
      leaks.push({ secret, encoding, context: text.slice(Math.max(0, at - 80), at + form.length + 40) });
      break;
    }
  }
  return leaks;
}

/**
 * The base64 characters that encode only `bytes` when they follow `offset` other bytes: the
 * 4-character groups shared with the neighbouring bytes are left out.
 */
function stableBase64(bytes: Buffer, offset: number, alphabet: "base64" | "base64url"): string {
  const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
  const encoded = padded.toString(alphabet);
  const firstWholeGroup = offset === 0 ? 0 : 1;
  const wholeGroups = Math.floor(padded.length / 3);
  return encoded.slice(firstWholeGroup * 4, wholeGroups * 4);
}

function asciiJson(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
