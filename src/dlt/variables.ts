/**
 * The values of a send's DLT variables (docs/sms.md): at most the DLT length, single-line text, and
 * for DLT's typed slots a value of that type, so the operator's scrubbing does not reject a
 * message after it was charged.
 *
 * Typed slots come from DLT's own tags: a bare `{#numeric#}` is stored as `{#numeric1#}`, the
 * next as `{#numeric2#}`, and so on (see placeholders.ts). A placeholder named that way is a
 * typed slot however it was written, so the type needs no storage of its own.
 */
import { ApiError } from "../errors.js";

export const SLOT_TYPES = ["numeric", "alphanumeric", "url", "urlott", "cbn", "email"] as const;
export type SlotType = (typeof SLOT_TYPES)[number];

const TYPED_SLOT = /^(numeric|alphanumeric|urlott|url|cbn|email)[1-9][0-9]*$/;

/**
 * Unicode's control characters (Cc: the C0 controls NUL … US, so CR, LF and TAB too, DEL, and
 * the C1 controls), and the line and paragraph separators: a DLT value is one line of text.
 */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

const NUMERIC = /^[0-9]+(?:\.[0-9]+)?$/;
const ALPHANUMERIC = /^[A-Za-z0-9]+$/;
/** Starts http:// or https://; the rest is checked by the WHATWG URL parser. */
const HTTP_URL = /^https?:\/\/[^\s/?#\\]/i;
/** A call-back number: an optional +, then digit groups separated by single spaces or hyphens. */
const PHONE = /^\+?[0-9]+(?:[ -][0-9]+)*$/;
const MIN_PHONE_DIGITS = 3;
/** E.164's maximum. */
const MAX_PHONE_DIGITS = 15;
/** The HTML standard's "valid e-mail address", with a dot required in the domain (a public address). */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

const EXPECTED: Record<SlotType, string> = {
  numeric: "a number: digits with an optional decimal part, like 1499 or 1499.50",
  alphanumeric: "letters A-Z and digits only, like PNR4821",
  url: "an http:// or https:// address, like https://example.com/t/4821",
  urlott: "an http:// or https:// address, like https://example.com/t/4821",
  cbn: "a phone number: digits with an optional leading + and single spaces or hyphens between groups, like 1800-123-4567",
  email: "an email address, like help@example.com",
};

/** The DLT type of a placeholder, or undefined for free text (`{#var1#}`, `{#name#}`, …). */
export function slotTypeOf(placeholder: string): SlotType | undefined {
  return TYPED_SLOT.exec(placeholder)?.[1] as SlotType | undefined;
}

/**
 * Checks every value, in the contract's order: first each value's length (`variable_too_long`),
 * then that no value holds a control character and each typed slot's value has its type
 * (`invalid_variable`). Names were checked before (missing / unknown variables).
 */
export function checkVariableValues(variables: Record<string, string>, maxLength: number): void {
  for (const [name, value] of Object.entries(variables)) {
    if ([...value].length > maxLength) {
      throw new ApiError(
        "variable_too_long",
        `variables.${name} is longer than ${maxLength} characters (the DLT limit).`,
        `variables.${name}`,
      );
    }
  }
  for (const [name, value] of Object.entries(variables)) {
    const control = CONTROL.exec(value);
    if (control) {
      const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      throw new ApiError(
        "invalid_variable",
        `variables.${name} contains a control character (U+${code}); a DLT variable is a single line of text ` +
          "without tabs, line breaks or other control characters.",
        `variables.${name}`,
      );
    }
    const type = slotTypeOf(name);
    if (type !== undefined && !matchesSlotType(type, value)) {
      throw new ApiError(
        "invalid_variable",
        `variables.${name} fills a {#${type}#} slot and must be ${EXPECTED[type]}.`,
        `variables.${name}`,
      );
    }
  }
}

export function matchesSlotType(type: SlotType, value: string): boolean {
  switch (type) {
    case "numeric":
      return NUMERIC.test(value);
    case "alphanumeric":
      return ALPHANUMERIC.test(value);
    case "url":
    case "urlott":
      return isHttpUrl(value);
    case "cbn":
      return isPhoneNumber(value);
    case "email":
      return EMAIL.test(value);
  }
}

/**
 * An absolute http(s) address with a host and without credentials: `javascript:`, `data:` and
 * other schemes, relative or scheme-less addresses, whitespace and `user:password@` (which makes
 * `https://bank.example@evil.example` read as the bank's) are refused.
 */
function isHttpUrl(value: string): boolean {
  if (!HTTP_URL.test(value) || /[\s\\]/.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    url.hostname !== "" &&
    url.username === "" &&
    url.password === ""
  );
}

function isPhoneNumber(value: string): boolean {
  if (!PHONE.test(value)) return false;
  const digits = value.replace(/[^0-9]/g, "").length;
  return digits >= MIN_PHONE_DIGITS && digits <= MAX_PHONE_DIGITS;
}
