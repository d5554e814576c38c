/**
 * DLT template content: named placeholders `{#name#}`, and the bare `{#var#}` of content pasted
 * from the DLT portal, which are numbered `var1`, `var2`, … in order of appearance. DLT's typed
 * tags (`{#numeric#}`, `{#url#}`, …) are slots of their own in the same way: `numeric1`, `numeric2`, ….
 */
import { ApiError } from "../errors.js";

export const PLACEHOLDER_NAME = /^[a-z][a-z0-9_]{0,29}$/;
/** DLT allows at most 30 variables in a template. */
export const MAX_PLACEHOLDERS = 30;
export const MAX_CONTENT_LENGTH = 2000;
/** DLT's own placeholder tags: every occurrence is a separate value, so each is numbered. */
const DLT_TAGS = new Set(["var", "numeric", "alphanumeric", "url", "urlott", "cbn", "email"]);
const OPEN = "{#";
const CLOSE = "#}";

/**
 * Typographic characters a word processor puts in that DLT scrubbing and GSM-7 trip over, and the
 * plain characters that replace them.
 */
const TYPOGRAPHIC: ReadonlyArray<readonly [RegExp, string]> = [
  [/[\u201C\u201D\u201E\u201F]/g, '"'], // “ ” „ ‟
  [/[\u2018\u2019\u201A\u201B]/g, "'"], // ‘ ’ ‚ ‛
  [/[\u2010\u2011\u2012\u2013\u2014\u2015]/g, "-"], // hyphen, non-breaking hyphen, figure dash, – — ―
  [/\u2026/g, "..."], // …
  [/[\u00A0\u2007\u202F]/g, " "], // non-breaking, figure and narrow non-breaking spaces
];

export interface ParsedTemplate {
  /** Normalised, trimmed content with every placeholder named. */
  content: string;
  /** Distinct placeholder names in order of first appearance. */
  placeholders: string[];
}

/** Replaces smart quotes, dashes, the ellipsis and non-breaking spaces with their plain forms. */
export function normaliseTypography(text: string): string {
  let out = text;
  for (const [pattern, replacement] of TYPOGRAPHIC) out = out.replace(pattern, replacement);
  return out;
}

/** Validates template content and names its placeholders; refuses it with `invalid_request` (param `content`). */
export function parseTemplateContent(raw: string): ParsedTemplate {
  const text = normaliseTypography(raw).trim();
  if (text === "") throw invalid("content must not be empty.");
  const length = [...text].length;
  if (length > MAX_CONTENT_LENGTH) {
    throw invalid(`content must be at most ${MAX_CONTENT_LENGTH} characters (it has ${length}).`);
  }

  // Split into static text and placeholder tokens; bare `{#var#}` tokens are numbered afterwards.
  const pieces: Array<{ text: string } | { name: string; bare: boolean }> = [];
  let position = 0;
  while (position < text.length) {
    const open = text.indexOf(OPEN, position);
    const close = text.indexOf(CLOSE, position);
    if (close !== -1 && (open === -1 || close < open)) {
      throw invalid(`content has "#}" without an opening "{#" at character ${close + 1}.`);
    }
    if (open === -1) {
      pieces.push({ text: text.slice(position) });
      break;
    }
    if (open > position) pieces.push({ text: text.slice(position, open) });
    const end = text.indexOf(CLOSE, open + OPEN.length);
    const nextOpen = text.indexOf(OPEN, open + OPEN.length);
    if (end === -1 || (nextOpen !== -1 && nextOpen < end)) {
      throw invalid(`content has a placeholder "{#" at character ${open + 1} that is not closed with "#}".`);
    }
    const name = text.slice(open + OPEN.length, end);
    if (name === "") throw invalid(`content has an empty placeholder "{##}" at character ${open + 1}.`);
    if (!PLACEHOLDER_NAME.test(name)) {
      throw invalid(
        `content has an invalid placeholder name ${JSON.stringify(name)} at character ${open + 1}: ` +
          "a name is 1-30 lower-case letters, digits or _, starting with a letter, e.g. {#otp#}.",
      );
    }
    pieces.push({ name, bare: DLT_TAGS.has(name) });
    position = end + CLOSE.length;
  }

  const tokens = pieces.filter((piece) => "name" in piece);
  if (tokens.length > MAX_PLACEHOLDERS) {
    throw invalid(`content has ${tokens.length} placeholders; DLT allows at most ${MAX_PLACEHOLDERS}.`);
  }
  const explicit = new Set(tokens.filter((token) => !token.bare).map((token) => token.name));
  const bareCounts = new Map<string, number>();
  let content = "";
  const placeholders: string[] = [];
  for (const piece of pieces) {
    if ("text" in piece) {
      content += piece.text;
      continue;
    }
    let name = piece.name;
    if (piece.bare) {
      const count = (bareCounts.get(piece.name) ?? 0) + 1;
      bareCounts.set(piece.name, count);
      name = `${piece.name}${count}`;
      if (explicit.has(name)) {
        throw invalid(
          `content names a placeholder {#${name}#} and also has bare {#${piece.name}#} placeholders, which are ` +
            `numbered ${piece.name}1, ${piece.name}2, …: the ${ordinal(count)} bare {#${piece.name}#} would also be {#${name}#}. ` +
            "Name every placeholder, or none.",
        );
      }
    }
    if (!placeholders.includes(name)) placeholders.push(name);
    content += `${OPEN}${name}${CLOSE}`;
  }
  return { content, placeholders };
}

/**
 * Fills every `{#name#}` in one pass, so a value that itself looks like a placeholder stays as it
 * is. A placeholder without a value is `missing_variable` (the send path checks this first).
 */
export function renderTemplate(content: string, variables: Record<string, string>): string {
  return content.replace(/\{#([a-z][a-z0-9_]{0,29})#\}/g, (_match, name: string) => {
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (value === undefined) {
      throw new ApiError("missing_variable", `variables has no value for {#${name}#}.`, `variables.${name}`);
    }
    return value;
  });
}

function invalid(message: string): ApiError {
  return new ApiError("invalid_request", message, "content");
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}
