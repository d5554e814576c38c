/**
 * The entries of a CTA whitelist as an operator writes them (docs/cli.md#cta, the console), and
 * the canonical form they are stored and compared in (docs/dlt-compliance.md#whitelisted-links-and-numbers):
 *
 * - a URL prefix: `http://` or `https://`, a host, an optional port, an optional path; no user
 *   name or password, query or fragment. Stored with the scheme and host in lower case and the
 *   path as given (`/` when there is none): `HTTPS://Dky.in/App/` → `https://dky.in/App/`.
 * - a callback number: E.164, `+` and 8 to 15 digits; spaces and hyphens between digits are
 *   dropped: `+91 1800-123-4567` → `+9118001234567`.
 *
 * An entry is accepted only when its text and the WHATWG URL parser agree on every part, so
 * that what the operator reads in the list is exactly what sends are compared with.
 */
import type { CtaKind } from "../../db/schema.js";
import { ApiError } from "../../errors.js";

export const CTA_KINDS: readonly CtaKind[] = ["url", "number"];

export interface UrlPrefix {
  kind: "url";
  /** The canonical text. */
  value: string;
  scheme: "http" | "https";
  /** Lower-case ASCII (an internationalised domain in its `xn--` form). */
  host: string;
  /** The port as written, or "" for the scheme's own. */
  port: string;
  /** Starts with `/`. */
  path: string;
}

export interface CallbackNumber {
  kind: "number";
  /** `+` and the digits. */
  value: string;
}

export type CtaEntry = UrlPrefix | CallbackNumber;

export const MAX_URL_PREFIX_LENGTH = 500;
const MAX_NUMBER_INPUT_LENGTH = 40;

/** Printable ASCII without the space: anything else (Unicode look-alikes, controls) is refused. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
const SCHEME_AUTHORITY_PATH = /^(https?):\/\/([^/?#]*)(.*)$/i;
/** A DNS name of LDH labels, at least two of them. */
const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const PORT = /^[1-9][0-9]{0,4}$/;
const DEFAULT_PORTS: Record<UrlPrefix["scheme"], string> = { http: "80", https: "443" };
/** A number as written: `+`, then digits with single spaces or hyphens between them. */
const NUMBER_INPUT = /^\+[0-9](?:[ -]?[0-9])*$/;
const E164_DIGITS = /^[1-9][0-9]{7,14}$/;

/** `kind`'s entry from what an operator typed; `invalid_request` (param `value`) saying what is wrong. */
export function parseCtaEntry(kind: CtaKind, raw: string): CtaEntry {
  return kind === "url" ? parseUrlPrefix(raw) : parseCallbackNumber(raw);
}

export function parseUrlPrefix(raw: string): UrlPrefix {
  const text = raw.trim();
  const refuse = (why: string): never => {
    throw new ApiError("invalid_request", `URL prefix ${JSON.stringify(clip(text))} ${why}`, "value");
  };
  if (text.length === 0) refuse("is empty: give one like https://dky.in/ or https://dky.in/offers/.");
  if (text.length > MAX_URL_PREFIX_LENGTH) refuse(`is longer than ${MAX_URL_PREFIX_LENGTH} characters.`);
  if (!PRINTABLE_ASCII.test(text)) {
    refuse(
      "has spaces or characters outside plain ASCII: write an internationalised domain in its xn-- form, and percent-encode the path.",
    );
  }
  if (text.includes("\\")) refuse("has a backslash; use / between path segments.");
  const parts = SCHEME_AUTHORITY_PATH.exec(text);
  if (!parts) refuse("must start with http:// or https://.");
  const [, schemeText = "", authority = "", rest = ""] = parts ?? [];
  if (rest.includes("?") || rest.includes("#")) {
    refuse("has a query (?) or fragment (#): a whitelist entry is a scheme, a host and a path prefix.");
  }
  if (authority.includes("@")) refuse("has a user name or password (@): give the host alone.");
  const scheme = schemeText.toLowerCase() as UrlPrefix["scheme"];
  const colon = authority.lastIndexOf(":");
  const host = (colon === -1 ? authority : authority.slice(0, colon)).toLowerCase();
  const port = colon === -1 ? "" : authority.slice(colon + 1);
  if (!HOST.test(host)) {
    refuse("has no valid host: give a domain name such as dky.in (letters, digits, hyphens and dots).");
  }
  if (colon !== -1) {
    if (!PORT.test(port) || Number(port) > 65_535) refuse("has a port that is not a number from 1 to 65535.");
    if (port === DEFAULT_PORTS[scheme]) refuse(`names ${scheme}'s own port ${port}: leave it out.`);
  }
  const path = rest === "" ? "/" : rest;
  const value = `${scheme}://${host}${port === "" ? "" : `:${port}`}${path}`;
  // The parser must read the same host, port and path: this refuses hosts it would rewrite
  // (1.2.3 → 1.2.0.3), dot segments (/a/../b), percent-encoded dots and characters it escapes.
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return refuse("is not a valid URL.");
  }
  if (parsed.hostname !== host || parsed.port !== port) refuse("has a host that is not a plain domain name.");
  if (parsed.pathname !== path) {
    refuse(
      "has a path that browsers would rewrite (. or .. segments, or characters that need percent-encoding).",
    );
  }
  return { kind: "url", value, scheme, host, port, path };
}

export function parseCallbackNumber(raw: string): CallbackNumber {
  const text = raw.trim();
  const shown = JSON.stringify(clip(text));
  if (text.length > MAX_NUMBER_INPUT_LENGTH || !NUMBER_INPUT.test(text)) {
    throw new ApiError(
      "invalid_request",
      `number ${shown} must be in E.164 form: + and the country code, like +9118001234567 (spaces and hyphens between digits are allowed).`,
      "value",
    );
  }
  const digits = text.replace(/[ -]/g, "").slice(1);
  if (!E164_DIGITS.test(digits)) {
    throw new ApiError(
      "invalid_request",
      `number ${shown} must have 8 to 15 digits after the +, the first not 0.`,
      "value",
    );
  }
  if (digits.startsWith("910")) {
    throw new ApiError(
      "invalid_request",
      `number ${shown} keeps the trunk 0 after +91: drop it, like +9118001234567.`,
      "value",
    );
  }
  return { kind: "number", value: `+${digits}` };
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
