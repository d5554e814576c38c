/**
 * Template content as the server reads it, for the live preview while a template is typed or
 * pasted: the very rule the server applies (src/dlt/template-syntax.ts), so the preview names
 * placeholders as the server will and refuses what it refuses, with the same message.
 */
import type { TemplateRuleCode } from "../../src/dlt/template-rules";
import { analyseTemplateContent, type ContentPiece } from "../../src/dlt/template-syntax";

export { otpCodeSlot } from "../../src/dlt/otp-slot";

import type { TemplateCategory } from "./api";

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

/** What each of TRAI's template rules is called in the console (the server's message says why and what to do). */
export const TEMPLATE_RULE_TITLES: Record<TemplateRuleCode, string> = {
  untagged_variable: "Untagged variable",
  too_many_variables: "More than 3 variables",
  fixed_text_below_30_percent: "Fixed text below 30%",
};

/**
 * The suffix networks add to a header by its template's category, as handsets show it
 * (`DAKIYA-T`). Service-explicit templates go out as promotional since May 2025. Government
 * senders get `-G`, which is no category of a Dakiya template.
 */
const HEADER_SUFFIXES: Record<TemplateCategory, string> = {
  transactional: "T",
  service_implicit: "S",
  service_explicit: "P",
  promotional: "P",
};

export function headerSuffix(category: TemplateCategory): string {
  return `-${HEADER_SUFFIXES[category]}`;
}

/** Whether the category's templates go out under 6-digit (promotional) headers rather than 6 letters. */
export function takesNumericHeaders(category: TemplateCategory): boolean {
  return HEADER_SUFFIXES[category] === "P";
}
