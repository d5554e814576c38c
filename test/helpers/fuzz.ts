import fc from "fast-check";
import { ERROR_STATUS } from "../../src/errors.js";

/**
 * Arbitraries for fuzzing the HTTP API with fast-check, and the properties every answer must
 * have whatever was sent.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A body as sent: a JSON value (serialized by the client), or raw text that may not be JSON. */
export type FuzzBody = { json: Json } | { raw: string };

/** Strings that broke or nearly broke input handling somewhere: NUL, lone surrogates, digits of other scripts. */
const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\udc00\ud800",
  "😀",
  "🇮🇳👍🏽",
  "\u202e\u2066",
  "٤٨٢١٩٣",
  "４８２１９３",
  "\r\n",
  "\t",
  "\u007f\u0085\u2028",
  "null",
  "true",
  "1e309",
  "-0",
  "0x1F",
  "+919876543210\u0000",
  "+91 98765 43210",
  "'; drop table accounts; --",
  '"',
  "\\",
  "%00",
  "\\u0000",
  "<script>alert(1)</script>",
  "javascript:alert(1)",
  "{#otp#}",
  "__proto__",
  "constructor",
];

const NASTY_NUMBERS = [0, -1, 1.5, -0.0001, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, Number.MIN_VALUE];

/** Raw bodies that are not quite JSON objects, or JSON that parsers treat specially. */
const RAW_BODIES = [
  "",
  " ",
  "null",
  "[]",
  '"text"',
  "1",
  "{",
  '{"a":1',
  "{} x",
  "\ufeff{}",
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"to":"+919876543210","to":1}',
  `${"[".repeat(5_000)}${"]".repeat(5_000)}`,
  `{"a":${"1".repeat(400)}}`,
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  "\u0000",
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(300, 5_000, 17_000).map((length) => "é".repeat(length)),
);

/** A value to put where a valid one was: wrong types, nasty strings, numbers as strings. */
export const nastyValue: fc.Arbitrary<Json> = fc.oneof(
  nastyString,
  fc.constantFrom(...NASTY_NUMBERS),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom<Json>(null, true, false, [], {}, [""], { "": null }),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

/** Places in a JSON value where another value can go: `[]` is the value itself. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const paths: (string | number)[][] = [prefix];
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) paths.push(...pathsOf(item, [...prefix, index]));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

function replaceAt(value: Json, path: (string | number)[], replacement: Json | undefined): Json {
  if (path.length === 0) return replacement === undefined ? null : replacement;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && replacement === undefined) copy.splice(Number(head), 1);
    else copy[Number(head)] = replaceAt(copy[Number(head)] ?? null, rest, replacement);
    return copy;
  }
  if (value !== null && typeof value === "object") {
    const copy = { ...value };
    if (rest.length === 0 && replacement === undefined) delete copy[head];
    else copy[head] = replaceAt(copy[head] ?? null, rest, replacement);
    return copy;
  }
  return value;
}

/** A valid body with one thing changed: a field removed, replaced by a nasty value, or one added. */
export function nearValid(valid: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  return valid.chain((body) => {
    const paths = pathsOf(body);
    const objects = paths.filter((path) => {
      const at = path.reduce<Json | undefined>(
        (node, key) =>
          node !== null && typeof node === "object" ? (node as Record<string, Json>)[key] : undefined,
        body,
      );
      return at !== null && typeof at === "object" && !Array.isArray(at);
    });
    return fc.oneof(
      fc.constantFrom(...paths).map((path) => replaceAt(body, path, undefined)),
      fc.tuple(fc.constantFrom(...paths), nastyValue).map(([path, value]) => replaceAt(body, path, value)),
      fc
        .tuple(
          fc.constantFrom(...objects),
          fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...NASTY_STRINGS)),
          nastyValue,
        )
        .map(([path, key, value]) => replaceAt(body, [...path, key], value)),
    );
  });
}

/** Any body at all for a route whose valid bodies `valid` draws. */
export function fuzzBody(valid: fc.Arbitrary<Json>): fc.Arbitrary<FuzzBody> {
  return fc.oneof(
    { weight: 4, arbitrary: nearValid(valid).map((json) => ({ json })) },
    { weight: 1, arbitrary: valid.map((json) => ({ json })) },
    { weight: 2, arbitrary: (fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>).map((json) => ({ json })) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES).map((raw) => ({ raw })) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 60 }).map((raw) => ({ raw })) },
  );
}

export function serialize(body: FuzzBody): string {
  return "raw" in body ? body.raw : JSON.stringify(body.json);
}

/** A header value as it can travel on the wire: tab, printable ASCII and latin1 bytes. */
export const headerText = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09)),
      { maxLength },
    )
    .map((codes) => String.fromCharCode(...codes));

export const contentTypes: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constantFrom(
    undefined,
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    "APPLICATION/JSON",
    "application/json; charset=latin1",
    "application/json; charset=utf-16",
    "application/json; boundary=x",
    "application/jsonx",
    "application/json-patch+json",
    " application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "text/plain",
    "",
  ),
  headerText(40),
);

export const idempotencyKeys: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
  fc.constantFrom("", " ", "k".repeat(255), "k".repeat(256), "kéy", "a b"),
  headerText(300),
);

/** `Authorization` values around a real key (`undefined`: no header). */
export function authorizations(key: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constantFrom(
      undefined,
      `Bearer ${key}`,
      `bearer ${key}`,
      `BEARER ${key}`,
      `Bearer  ${key}`,
      `Bearer ${key} `,
      `Bearer ${key}x`,
      `Bearer ${key.slice(0, -1)}`,
      `Bearer ${key.toUpperCase()}`,
      `Basic ${Buffer.from(`${key}:`).toString("base64")}`,
      "Bearer",
      "Bearer ",
      `Token ${key}`,
      `${key}`,
      `Bearer dk_live_${"0".repeat(40)}`,
      `Bearer dk_sandbox_${"A".repeat(32)}`,
      "Bearer dk_live_",
    ),
    headerText(80).map((text) => `Bearer ${text}`),
    headerText(80),
  );
}

/** The keys an error body may have: docs/api-reference.md#errors (and `retry_after` on a 429). */
const ENVELOPE_KEYS = new Set(["code", "message", "param", "retry_after", "request_id"]);
/** A stack frame, a source path, or text from a database driver or SQL. */
const INTERNALS =
  /\bat (?:\S+ \()?(?:file:\/\/|node:|\/)\S*:\d+:\d+|node_modules|\/src\/\S+\.ts|SQLITE_|sqlite3?_|better-sqlite|\bpg_|syntax error at or near|violates .+ constraint|invalid byte sequence|relation "|\b(insert into|select \S+ from|delete from|update \S+ set)\b/i;

export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/**
 * What is wrong with an answer, or `undefined`: never a 5xx; every error exactly the envelope,
 * its code one of the contract's with that code's status, its request id the header's; no
 * stack trace or SQL in any body.
 */
export function answerProblem(answer: Answer): string | undefined {
  const { statusCode, body } = answer;
  if (statusCode >= 500) return `status ${statusCode}: ${body.slice(0, 300)}`;
  const requestId = answer.headers["x-request-id"];
  if (typeof requestId !== "string" || requestId === "") return "no X-Request-Id header";
  if (INTERNALS.test(body)) return `internals in the body: ${body.slice(0, 300)}`;
  if (statusCode < 400) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `error body is not JSON: ${body.slice(0, 200)}`;
  }
  if (parsed === null || typeof parsed !== "object" || Object.keys(parsed).join() !== "error") {
    return `error body is not {"error": …}: ${body.slice(0, 200)}`;
  }
  const error = (parsed as { error: Record<string, unknown> }).error;
  if (error === null || typeof error !== "object") return `"error" is not an object: ${body}`;
  const extra = Object.keys(error).filter((key) => !ENVELOPE_KEYS.has(key));
  if (extra.length > 0) return `unexpected fields ${extra.join(", ")}: ${body}`;
  const code = error.code;
  if (typeof code !== "string" || !(code in ERROR_STATUS)) return `unknown code: ${body}`;
  if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== statusCode) {
    return `code ${code} with status ${statusCode}: ${body}`;
  }
  if (typeof error.message !== "string" || error.message === "") return `no message: ${body}`;
  if (error.request_id !== requestId) return `request_id is not the X-Request-Id header: ${body}`;
  if ("param" in error && typeof error.param !== "string") return `param is not a string: ${body}`;
  if ("retry_after" in error && (statusCode !== 429 || !Number.isInteger(error.retry_after))) {
    return `retry_after on a ${statusCode}: ${body}`;
  }
  return undefined;
}
