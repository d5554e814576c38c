/**
 * The check of a send's calls to action against its account's whitelist
 * (docs/dlt-compliance.md#whitelisted-links-and-numbers). Operators scrub the text of a message,
 * so a link passes only when its text AND the way a browser parses it both land inside an entry:
 * neither alone decides.
 */
import type { DltTemplateRules } from "../../config.js";
import { ApiError } from "../../errors.js";
import { slotTypeOf } from "../variables.js";
import type { CtaEntry, UrlPrefix } from "./entries.js";

/** An account's entries, compiled once for the sends that read them (held in the settings cache). */
export interface CtaWhitelist {
  urls: readonly UrlPrefix[];
  /** Canonical E.164 numbers. */
  numbers: ReadonlySet<string>;
}

export const EMPTY_CTA_WHITELIST: CtaWhitelist = { urls: [], numbers: new Set() };

export function compileWhitelist(entries: readonly CtaEntry[]): CtaWhitelist {
  const urls: UrlPrefix[] = [];
  const numbers = new Set<string>();
  for (const entry of entries) {
    if (entry.kind === "url") urls.push(entry);
    else numbers.add(entry.value);
  }
  return { urls, numbers };
}

/** Whether a template's placeholders include a call to action (`url`, `urlott` or `cbn` slots). */
export function hasCtaSlot(placeholders: readonly string[]): boolean {
  return placeholders.some((name) => {
    const type = slotTypeOf(name);
    return type === "url" || type === "urlott" || type === "cbn";
  });
}

/**
 * Refuses (422 `cta_not_whitelisted`, param `variables.<name>`) the first link or callback
 * number that the whitelist does not allow. A kind is checked once the account has an entry of
 * it, or always under `strict`; nothing is under `off`.
 */
export function requireWhitelistedCtas(
  mode: DltTemplateRules,
  whitelist: CtaWhitelist,
  variables: Record<string, string>,
): void {
  if (mode === "off") return;
  for (const [name, value] of Object.entries(variables)) {
    const type = slotTypeOf(name);
    if (type === "url" || type === "urlott") {
      if (whitelist.urls.length === 0 && mode !== "strict") continue;
      if (!urlIsWhitelisted(value, whitelist.urls)) throw refusal(name, "link", whitelist.urls.length);
    } else if (type === "cbn") {
      if (whitelist.numbers.size === 0 && mode !== "strict") continue;
      if (!numberIsWhitelisted(value, whitelist.numbers)) {
        throw refusal(name, "callback number", whitelist.numbers.size);
      }
    }
  }
}

function refusal(name: string, what: "link" | "callback number", entries: number): ApiError {
  const rule =
    what === "link"
      ? "it must start with one of the account's whitelisted URL prefixes (same scheme, host and port, and a path under the entry's)"
      : "it must be one of the account's whitelisted numbers";
  const none =
    entries === 0 ? ` The account has no whitelisted ${what}s, and this server allows none then.` : "";
  return new ApiError(
    "cta_not_whitelisted",
    `variables.${name} is not a whitelisted ${what}: ${rule}.${none} Whitelist it first, as on DLT.`,
    `variables.${name}`,
  );
}

/** Printable ASCII without the space or the backslash. */
const PLAIN_URL_TEXT = /^[\x21-\x5b\x5d-\x7e]+$/;
const URL_PARTS = /^(https?):\/\/([^/?#]*)([^?#]*)/i;
const AUTHORITY = /^([a-z0-9.-]+)(?::([0-9]+))?$/i;

interface UrlReading {
  scheme: string;
  host: string;
  port: string;
  path: string;
}

/** Whether `value` lies under one of `entries`, by its text and by its parse. */
export function urlIsWhitelisted(value: string, entries: readonly UrlPrefix[]): boolean {
  if (entries.length === 0) return false;
  const text = readText(value);
  const parsed = text && readParsed(value);
  if (!text || !parsed) return false;
  return entries.some((entry) => within(text, entry) && within(parsed, entry));
}

/** The parts as the text spells them: scheme and host lower-cased, nothing decoded. */
function readText(value: string): UrlReading | undefined {
  if (!PLAIN_URL_TEXT.test(value)) return undefined;
  const parts = URL_PARTS.exec(value);
  const authority = parts && AUTHORITY.exec(parts[2] ?? "");
  if (!parts || !authority) return undefined;
  return {
    scheme: (parts[1] ?? "").toLowerCase(),
    host: (authority[1] ?? "").toLowerCase(),
    port: authority[2] ?? "",
    path: parts[3] || "/",
  };
}

/** The parts as a browser reads them (WHATWG URL: hosts mapped, dot segments resolved). */
function readParsed(value: string): UrlReading | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.username !== "" || url.password !== "") return undefined;
  return { scheme: url.protocol.slice(0, -1), host: url.hostname, port: url.port, path: url.pathname };
}

function within(reading: UrlReading, entry: UrlPrefix): boolean {
  return (
    reading.scheme === entry.scheme &&
    reading.host === entry.host &&
    reading.port === entry.port &&
    pathWithin(reading.path, entry.path)
  );
}

/**
 * `path` is the entry's or below it: `/app/` holds `/app/x`; `/app` holds `/app` and `/app/x`
 * but not `/apps` (on a shared host or a link shortener that would be someone else's page).
 */
function pathWithin(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  return path.length === prefix.length || prefix.endsWith("/") || path[prefix.length] === "/";
}

/** India's country code: numbers written without one are read as Indian national numbers. */
const INDIA = "91";

/**
 * Whether a callback number is one of `numbers`. A value with `+` compares digit for digit; one
 * without is read as an Indian national number (`1800-123-4567`, `01800 123 4567` with the
 * trunk 0): it matches only a `+91` entry with the same digits after the country code. Nothing
 * else is guessed: `00…` is not read as the international prefix, nor `91…` without `+` as the
 * country code.
 */
export function numberIsWhitelisted(value: string, numbers: ReadonlySet<string>): boolean {
  if (!/^\+?[0-9]+(?:[ -][0-9]+)*$/.test(value)) return false;
  const digits = value.replace(/[ -]/g, "");
  if (digits.startsWith("+")) return numbers.has(digits);
  const national = digits.startsWith("0") ? digits.slice(1) : digits;
  if (national.startsWith("0")) return false;
  return numbers.has(`+${INDIA}${national}`);
}
