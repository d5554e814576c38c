/**
 * TRAI's rules for DLT content templates, checked when a template is registered or changed
 * (docs/dlt-variables.md#template-rules). They read a template as it is stored: placeholders
 * already named (`{#var1#}` for a bare `{#var#}`, `{#numeric1#}` for a bare `{#numeric#}`, …).
 * Every breach is listed, each with its reason and how to fix it, in words the console shows.
 * This module imports nothing, so the browser bundle can take it.
 */

export const TEMPLATE_RULE_CODES = [
  "untagged_variable",
  "too_many_variables",
  "fixed_text_below_30_percent",
] as const;
export type TemplateRuleCode = (typeof TEMPLATE_RULE_CODES)[number];

export interface TemplateWarning {
  code: TemplateRuleCode;
  /** The reason and how to fix it. */
  message: string;
}

/** More variable slots than this need a justification (TRAI). */
export const MAX_UNJUSTIFIED_VARIABLES = 3;
/** Fixed text must be at least this share of the message, in percent (TRAI). */
export const MIN_FIXED_TEXT_PERCENT = 30;
/** What one placeholder counts for in the fixed-text share: the length a value may take. */
export const PLACEHOLDER_WEIGHT = 30;
/** The longest `variables_justification` kept, in characters. */
export const MAX_JUSTIFICATION_LENGTH = 1000;

/** A placeholder as stored content has it (template-syntax.ts names them all). */
const STORED_PLACEHOLDER = /\{#([a-z][a-z0-9_]{0,29})#\}/g;
/** What a bare `{#var#}` becomes: a slot with no DLT type. */
const UNTAGGED = /^var[1-9][0-9]*$/;
const TYPED_TAGS = "{#numeric#}, {#alphanumeric#}, {#url#}, {#urlott#}, {#cbn#} or {#email#}";

/**
 * Every rule `content` (as stored) and `justification` break, in the order of TEMPLATE_RULE_CODES.
 * A justification counts only if it has something besides white space.
 */
export function templateRuleWarnings(content: string, justification: string | null): TemplateWarning[] {
  const slots: string[] = [];
  let fixed = 0;
  let position = 0;
  for (const match of content.matchAll(STORED_PLACEHOLDER)) {
    fixed += codePoints(content.slice(position, match.index));
    slots.push(match[1] ?? "");
    position = match.index + match[0].length;
  }
  fixed += codePoints(content.slice(position));

  const warnings: TemplateWarning[] = [];
  const untagged = [...new Set(slots.filter((slot) => UNTAGGED.test(slot)))];
  if (untagged.length > 0) {
    const named = untagged.map((slot) => `{#${slot}#}`).join(", ");
    warnings.push({
      code: "untagged_variable",
      message:
        `${named} ${untagged.length === 1 ? "is a bare {#var#} slot" : "are bare {#var#} slots"} with no type: ` +
        "since TRAI's direction of 18 November 2025 operators reject templates whose variables are not " +
        `tagged by type. Register the template again on the DLT portal with each {#var#} replaced by ${TYPED_TAGS}, ` +
        "then update its content here to match.",
    });
  }
  if (slots.length > MAX_UNJUSTIFIED_VARIABLES && (justification ?? "").trim() === "") {
    warnings.push({
      code: "too_many_variables",
      message:
        `The template has ${slots.length} variable slots; TRAI allows more than ${MAX_UNJUSTIFIED_VARIABLES} ` +
        "only with a justification. Enter the justification you gave on the DLT portal in Variables " +
        `justification, or use at most ${MAX_UNJUSTIFIED_VARIABLES} variables.`,
    });
  }
  // fixed / (fixed + 30 × slots) < 30%, in integers: 10 × fixed < 3 × (fixed + 30 × slots).
  const total = fixed + PLACEHOLDER_WEIGHT * slots.length;
  if (100 * fixed < MIN_FIXED_TEXT_PERCENT * total) {
    const percent = Math.floor((100 * fixed) / total);
    const missing = fixedTextNeeded(slots.length) - fixed;
    const against =
      slots.length === 1
        ? `${PLACEHOLDER_WEIGHT} for its variable slot`
        : `${PLACEHOLDER_WEIGHT} for each of its ${slots.length} variable slots`;
    warnings.push({
      code: "fixed_text_below_30_percent",
      message:
        `Fixed text is ${percent}% of the message (${fixed} fixed character${fixed === 1 ? "" : "s"} against ${against}); ` +
        `TRAI requires at least ${MIN_FIXED_TEXT_PERCENT}%. Add at least ` +
        `${missing} more fixed character${missing === 1 ? "" : "s"} to the approved text, or use fewer variables.`,
    });
  }
  return warnings;
}

/** The fewest fixed characters that make `slots` placeholders at least 30% fixed text. */
function fixedTextNeeded(slots: number): number {
  // 100 × f ≥ 30 × (f + 30 × slots)  ⇔  70 × f ≥ 900 × slots
  const weight = MIN_FIXED_TEXT_PERCENT * PLACEHOLDER_WEIGHT * slots;
  return Math.ceil(weight / (100 - MIN_FIXED_TEXT_PERCENT));
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
