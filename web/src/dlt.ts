/**
 * The server's rule for naming template placeholders (src/dlt/placeholders.ts), for a live
 * preview while a template is typed or pasted: `{#name#}` keeps its name; DLT's own tags
 * (`{#var#}`, `{#numeric#}`, …) are numbered per tag in order of appearance: var1, var2, numeric1, ….
 * The server has the last word; this only shows what it will do.
 */

const DLT_TAGS = new Set(["var", "numeric", "alphanumeric", "url", "urlott", "cbn", "email"]);
const PLACEHOLDER_NAME = /^[a-z][a-z0-9_]{0,29}$/;
const TOKEN = /\{#(.*?)#\}/g;

export type ContentPiece =
  | { kind: "text"; text: string }
  | { kind: "placeholder"; name: string; from: string };

export interface ContentPreview {
  pieces: ContentPiece[];
  /** Distinct names in order of first appearance, as the template will have them. */
  placeholders: string[];
  /** Why the server would refuse the content, when it can be told here. */
  problem: string | undefined;
}

/** Typographic characters the server replaces with plain ones, so the preview shows the stored text. */
function normaliseTypography(text: string): string {
  return text
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u2010-\u2015]/g, "-")
    .replace(/\u2026/g, "...")
    .replace(/[\u00A0\u2007\u202F]/g, " ");
}

export function previewContent(raw: string): ContentPreview {
  const text = normaliseTypography(raw).trim();
  const pieces: ContentPiece[] = [];
  const found: Array<{ name: string; bare: boolean; index: number }> = [];
  let problem: string | undefined;
  let position = 0;
  for (const match of text.matchAll(TOKEN)) {
    const name = match[1] ?? "";
    if (match.index > position) pieces.push({ kind: "text", text: text.slice(position, match.index) });
    if (name.includes("{#")) {
      problem ??= `A placeholder at character ${match.index + 1} is not closed with "#}".`;
    } else if (!PLACEHOLDER_NAME.test(name)) {
      problem ??= `"{#${name}#}" is not a valid placeholder: use lower-case letters, digits or _, starting with a letter.`;
    }
    found.push({ name, bare: DLT_TAGS.has(name), index: pieces.length });
    pieces.push({ kind: "placeholder", name, from: name });
    position = match.index + match[0].length;
  }
  if (position < text.length) pieces.push({ kind: "text", text: text.slice(position) });

  const explicit = new Set(found.filter((token) => !token.bare).map((token) => token.name));
  const counts = new Map<string, number>();
  const placeholders: string[] = [];
  for (const token of found) {
    let name = token.name;
    if (token.bare) {
      const count = (counts.get(name) ?? 0) + 1;
      counts.set(name, count);
      name = `${name}${count}`;
      if (explicit.has(name)) {
        problem ??= `{#${name}#} is used by name and also by a numbered {#${token.name}#}: name every placeholder, or none.`;
      }
      pieces[token.index] = { kind: "placeholder", name, from: token.name };
    }
    if (!placeholders.includes(name)) placeholders.push(name);
  }
  if (found.length > 30) problem ??= `DLT allows at most 30 placeholders; this has ${found.length}.`;
  return { pieces, placeholders, problem };
}

/** Splits stored template content into text and `{#name#}` placeholders, to highlight them. */
export function splitContent(content: string): ContentPiece[] {
  const pieces: ContentPiece[] = [];
  let position = 0;
  for (const match of content.matchAll(TOKEN)) {
    if (match.index > position) pieces.push({ kind: "text", text: content.slice(position, match.index) });
    const name = match[1] ?? "";
    pieces.push({ kind: "placeholder", name, from: name });
    position = match.index + match[0].length;
  }
  if (position < content.length) pieces.push({ kind: "text", text: content.slice(position) });
  return pieces;
}
