/**
 * The one rule for DLT template content, used by the server to accept or refuse a template and by
 * the dashboard to preview it while it is typed: named placeholders `{#name#}`, and the bare
 * `{#var#}` of content pasted from the DLT portal, numbered `var1`, `var2`, … in order of
 * appearance. DLT's typed tags (`{#numeric#}`, `{#url#}`, …) are slots of their own in the same
 * way: `numeric1`, `numeric2`, …. This module imports nothing, so the browser bundle can take it.
 */

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

/** Replaces smart quotes, dashes, the ellipsis and non-breaking spaces with their plain forms. */
export function normaliseTypography(text: string): string {
  let out = text;
  for (const [pattern, replacement] of TYPOGRAPHIC) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A stretch of content: plain text, a placeholder (`from` is the tag as written, `name` what it
 * becomes), or text the rule refuses, such as `{#otp #}`.
 */
export type ContentPiece =
  | { kind: "text"; text: string }
  | { kind: "placeholder"; name: string; from: string }
  | { kind: "invalid"; text: string };

export interface TemplateAnalysis {
  /** Normalised, trimmed content with every placeholder named. */
  content: string;
  pieces: ContentPiece[];
  /** Distinct placeholder names in order of first appearance; refused tokens are not among them. */
  placeholders: string[];
  /** Why the content is refused (the first reason, in the order the server checks), if it is. */
  problem: string | undefined;
}

/** Reads template content by the rule above, to the end even past a problem, so all of it can be shown. */
export function analyseTemplateContent(raw: string): TemplateAnalysis {
  const text = normaliseTypography(raw).trim();
  const problems: string[] = [];
  const refuse = (message: string) => problems.push(message);
  if (text === "") refuse("content must not be empty.");
  const length = [...text].length;
  if (length > MAX_CONTENT_LENGTH) {
    refuse(`content must be at most ${MAX_CONTENT_LENGTH} characters (it has ${length}).`);
  }

  // Split into static text and placeholder tokens; bare `{#var#}` tokens are numbered afterwards.
  const scanned: Array<
    { kind: "text" | "invalid"; text: string } | { kind: "token"; name: string; bare: boolean }
  > = [];
  let position = 0;
  while (position < text.length) {
    const open = text.indexOf(OPEN, position);
    const close = text.indexOf(CLOSE, position);
    if (close !== -1 && (open === -1 || close < open)) {
      refuse(`content has "#}" without an opening "{#" at character ${close + 1}.`);
      if (close > position) scanned.push({ kind: "text", text: text.slice(position, close) });
      scanned.push({ kind: "invalid", text: CLOSE });
      position = close + CLOSE.length;
      continue;
    }
    if (open === -1) {
      scanned.push({ kind: "text", text: text.slice(position) });
      break;
    }
    if (open > position) scanned.push({ kind: "text", text: text.slice(position, open) });
    const end = text.indexOf(CLOSE, open + OPEN.length);
    const nextOpen = text.indexOf(OPEN, open + OPEN.length);
    if (end === -1 || (nextOpen !== -1 && nextOpen < end)) {
      refuse(`content has a placeholder "{#" at character ${open + 1} that is not closed with "#}".`);
      scanned.push({ kind: "invalid", text: OPEN });
      position = open + OPEN.length;
      continue;
    }
    const name = text.slice(open + OPEN.length, end);
    position = end + CLOSE.length;
    if (name === "") {
      refuse(`content has an empty placeholder "{##}" at character ${open + 1}.`);
      scanned.push({ kind: "invalid", text: text.slice(open, position) });
    } else if (!PLACEHOLDER_NAME.test(name)) {
      refuse(
        `content has an invalid placeholder name ${JSON.stringify(name)} at character ${open + 1}: ` +
          "a name is 1-30 lower-case letters, digits or _, starting with a letter, e.g. {#otp#}.",
      );
      scanned.push({ kind: "invalid", text: text.slice(open, position) });
    } else {
      scanned.push({ kind: "token", name, bare: DLT_TAGS.has(name) });
    }
  }

  const tokens = scanned.filter((piece) => piece.kind === "token");
  if (tokens.length > MAX_PLACEHOLDERS) {
    refuse(`content has ${tokens.length} placeholders; DLT allows at most ${MAX_PLACEHOLDERS}.`);
  }
  const explicit = new Set(tokens.filter((token) => !token.bare).map((token) => token.name));
  const bareCounts = new Map<string, number>();
  const pieces: ContentPiece[] = [];
  const placeholders: string[] = [];
  let content = "";
  for (const piece of scanned) {
    if (piece.kind !== "token") {
      pieces.push(piece);
      content += piece.text;
      continue;
    }
    let name = piece.name;
    if (piece.bare) {
      const count = (bareCounts.get(piece.name) ?? 0) + 1;
      bareCounts.set(piece.name, count);
      name = `${piece.name}${count}`;
      if (explicit.has(name)) {
        refuse(
          `content names a placeholder {#${name}#} and also has bare {#${piece.name}#} placeholders, which are ` +
            `numbered ${piece.name}1, ${piece.name}2, …: the ${ordinal(count)} bare {#${piece.name}#} would also be {#${name}#}. ` +
            "Name every placeholder, or none.",
        );
      }
    }
    if (!placeholders.includes(name)) placeholders.push(name);
    pieces.push({ kind: "placeholder", name, from: piece.name });
    content += `${OPEN}${name}${CLOSE}`;
  }
  return { content, pieces, placeholders, problem: problems[0] };
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}
