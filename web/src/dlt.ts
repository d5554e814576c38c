/**
 * Template content as the server reads it, for the live preview while a template is typed or
 * pasted: the very rule the server applies (src/dlt/template-syntax.ts), so the preview names
 * placeholders as the server will and refuses what it refuses, with the same message.
 */
import { analyseTemplateContent, type ContentPiece } from "../../src/dlt/template-syntax";

export type { ContentPiece };

export interface ContentPreview {
  pieces: ContentPiece[];
  /** Distinct names in order of first appearance, as the template will have them. */
  placeholders: string[];
  /** Why the server would refuse the content, in its words. */
  problem: string | undefined;
}

export function previewContent(raw: string): ContentPreview {
  const { pieces, placeholders, problem } = analyseTemplateContent(raw);
  return { pieces, placeholders, problem };
}

const STORED_PLACEHOLDER = /\{#([a-z][a-z0-9_]{0,29})#\}/g;

/** Splits stored (already accepted) template content into text and `{#name#}` placeholders, to highlight them. */
export function splitContent(content: string): ContentPiece[] {
  const pieces: ContentPiece[] = [];
  let position = 0;
  for (const match of content.matchAll(STORED_PLACEHOLDER)) {
    if (match.index > position) pieces.push({ kind: "text", text: content.slice(position, match.index) });
    const name = match[1] ?? "";
    pieces.push({ kind: "placeholder", name, from: name });
    position = match.index + match[0].length;
  }
  if (position < content.length) pieces.push({ kind: "text", text: content.slice(position) });
  return pieces;
}
