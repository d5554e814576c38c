/**
 * DLT template content: the rule that names placeholders and refuses malformed ones lives in
 * template-syntax.ts, shared with the dashboard's live preview; here it is applied and enforced.
 */
import { ApiError } from "../errors.js";
import { analyseTemplateContent } from "./template-syntax.js";

export {
  MAX_CONTENT_LENGTH,
  MAX_PLACEHOLDERS,
  normaliseTypography,
  PLACEHOLDER_NAME,
} from "./template-syntax.js";

export interface ParsedTemplate {
  /** Normalised, trimmed content with every placeholder named. */
  content: string;
  /** Distinct placeholder names in order of first appearance. */
  placeholders: string[];
}

/** Validates template content and names its placeholders; refuses it with `invalid_request` (param `content`). */
export function parseTemplateContent(raw: string): ParsedTemplate {
  const { content, placeholders, problem } = analyseTemplateContent(raw);
  if (problem !== undefined) throw new ApiError("invalid_request", problem, "content");
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
