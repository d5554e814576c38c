import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  TEMPLATE_RULE_CODES,
  type TemplateRuleCode,
  templateRuleWarnings,
} from "../../src/dlt/template-rules.js";
import { analyseTemplateContent } from "../../src/dlt/template-syntax.js";

/*
 * TRAI's template rules (docs/dlt-variables.md#template-rules), on content as stored: bare
 * {#var#} slots, more than 3 variables without a justification, fixed text below 30% of fixed
 * text plus 30 characters a placeholder.
 */

/** Content as the server stores it: pasted text with its placeholders named. */
function stored(raw: string): string {
  const { content, problem } = analyseTemplateContent(raw);
  if (problem !== undefined) throw new Error(problem);
  return content;
}

const codes = (raw: string, justification: string | null = null): TemplateRuleCode[] =>
  templateRuleWarnings(stored(raw), justification).map((warning) => warning.code);

const warningOf = (raw: string, code: TemplateRuleCode, justification: string | null = null) =>
  templateRuleWarnings(stored(raw), justification).find((warning) => warning.code === code);

/** `fixed` fixed characters (all of them at the start) and `slots` typed placeholders. */
function shaped(fixed: number, slots: number): string {
  return "x".repeat(fixed) + "{#numeric#}".repeat(slots);
}

describe("TRAI's template rules", () => {
  it("finds nothing wrong with typed or named slots, enough fixed text and at most 3 variables", () => {
    expect(codes("Your verification code is {#otp#}. Do not share it with anyone.")).toEqual([]);
    expect(codes("Order {#numeric#} shipped: track it at {#url#} or call {#cbn#} today.")).toEqual([]);
    expect(codes("No variables at all.")).toEqual([]);
  });

  it("names every bare {#var#} slot, once each, and how to fix it", () => {
    const warning = warningOf(
      "Hi {#var#}, your order {#var#} ships {#numeric#}. Thanks for shopping.",
      "untagged_variable",
    );
    expect(warning?.message).toMatch(/^\{#var1#\}, \{#var2#\} are bare \{#var#\} slots with no type/);
    expect(warning?.message).toContain("18 November 2025");
    expect(warning?.message).toContain(
      "{#numeric#}, {#alphanumeric#}, {#url#}, {#urlott#}, {#cbn#} or {#email#}",
    );
    expect(warningOf("Your one login code for the app is {#var#}.", "untagged_variable")?.message).toMatch(
      /^\{#var1#\} is a bare \{#var#\} slot/,
    );
    // A placeholder written as var1 is the same untyped slot; other names are the sender's own.
    expect(codes("Dear {#var1#}, your parcel is on its way to you.")).toEqual(["untagged_variable"]);
    expect(codes("Dear {#name#}, your parcel is on its way to you.")).toEqual([]);
    expect(codes("Dear {#variable#}, your parcel is on its way to you.")).toEqual([]);
  });

  it("allows 3 variable slots without a justification, not 4; repeats of one name count", () => {
    const body = "Your booking details have been confirmed for the trip, enjoy";
    expect(codes(`${body} {#numeric#} {#numeric#} {#numeric#}`)).toEqual([]);
    expect(codes(`${body} {#numeric#} {#numeric#} {#numeric#} {#numeric#}`)).toEqual(["too_many_variables"]);
    expect(codes(`${body} {#otp#} {#otp#} {#otp#} {#otp#}`)).toEqual(["too_many_variables"]);
    expect(warningOf(`${body} {#otp#} {#otp#} {#otp#} {#otp#}`, "too_many_variables")?.message).toMatch(
      /^The template has 4 variable slots; TRAI allows more than 3 only with a justification\. Enter the justification/,
    );
  });

  it("takes a justification only if it has more than white space", () => {
    const four = `${"Your booking details have been confirmed for the trip, enjoy"} {#numeric#} {#numeric#} {#numeric#} {#numeric#}`;
    expect(codes(four, "Booking reference, seat, coach and date")).toEqual([]);
    expect(codes(four, "x")).toEqual([]);
    for (const blank of [null, "", " ", "\t\n", "\u00a0\u3000"]) {
      expect(codes(four, blank), JSON.stringify(blank)).toEqual(["too_many_variables"]);
    }
  });

  it("holds fixed text to 30% of fixed text plus 30 characters a placeholder, to the character", () => {
    // One slot: 13 fixed characters are 30.2% (13 / 43), 12 are 28.6% (12 / 42).
    expect(codes(shaped(13, 1))).toEqual([]);
    expect(codes(shaped(12, 1))).toEqual(["fixed_text_below_30_percent"]);
    // Seven slots: exactly 30% at 90 fixed characters (90 / 300), below it at 89.
    expect(codes(shaped(90, 7), "seven")).toEqual([]);
    expect(codes(shaped(89, 7), "seven")).toEqual(["fixed_text_below_30_percent"]);
    expect(warningOf(shaped(89, 7), "fixed_text_below_30_percent", "seven")?.message).toBe(
      "Fixed text is 29% of the message (89 fixed characters against 30 for each of its 7 variable slots); " +
        "TRAI requires at least 30%. Add at least 1 more fixed character to the approved text, or use fewer variables.",
    );
    expect(warningOf(shaped(12, 1), "fixed_text_below_30_percent")?.message).toMatch(
      /^Fixed text is 28% of the message \(12 fixed characters against 30 for its variable slot\); .* Add at least 1 more fixed character to/,
    );
    expect(warningOf(shaped(0, 2), "fixed_text_below_30_percent")?.message).toMatch(
      /^Fixed text is 0% .* Add at least 26 more fixed characters/,
    );
  });

  it("counts characters as code points, white space included", () => {
    // 13 code points of Hindi and emoji (more UTF-16 units than that) against one slot: 30.2%.
    const thirteen = "नमस्ते 😀😀 ok!"; // न म स ् त े ␠ 😀 😀 ␠ o k ! = 13
    expect([...thirteen]).toHaveLength(13);
    expect(codes(`${thirteen}{#numeric#}`)).toEqual([]);
    expect(codes(`${[...thirteen].slice(1).join("")}{#numeric#}`)).toEqual(["fixed_text_below_30_percent"]);
  });

  it("lists every breach, in the order of the rules", () => {
    expect(codes("{#var#}{#var#}{#var#}{#var#}")).toEqual([
      "untagged_variable",
      "too_many_variables",
      "fixed_text_below_30_percent",
    ]);
  });

  describe("over any content", () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom("{#var#}", "{#numeric#}", "{#url#}", "{#otp#}", "{#name#}", "{#var3#}", " ", "😀", "न"),
    );
    const content = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(""));
    const justification = fc.option(fc.string({ maxLength: 8 }), { nil: null });

    it("never throws, answers only the three codes, each once, each with a message", () => {
      fc.assert(
        fc.property(fc.string(), justification, (raw, given) => {
          const warnings = templateRuleWarnings(raw, given);
          const found = warnings.map((warning) => warning.code);
          expect(new Set(found).size).toBe(found.length);
          for (const warning of warnings) {
            expect(TEMPLATE_RULE_CODES).toContain(warning.code);
            expect(warning.message.length).toBeGreaterThan(20);
          }
        }),
      );
    });

    it("adding fixed text never adds the fixed-text warning, and changes no other", () => {
      fc.assert(
        fc.property(
          content,
          fc.string({ minLength: 1, maxLength: 40 }),
          justification,
          (raw, more, given) => {
            const { content: before, problem } = analyseTemplateContent(raw);
            const { content: after, problem: problemAfter } = analyseTemplateContent(
              `${raw} ${more.replace(/[{}#]/g, "")}.`,
            );
            fc.pre(problem === undefined && problemAfter === undefined && before !== "");
            const was = templateRuleWarnings(before, given).map((w) => w.code);
            const is = templateRuleWarnings(after, given).map((w) => w.code);
            if (!was.includes("fixed_text_below_30_percent"))
              expect(is).not.toContain("fixed_text_below_30_percent");
            expect(is.filter((code) => code !== "fixed_text_below_30_percent")).toEqual(
              was.filter((code) => code !== "fixed_text_below_30_percent"),
            );
          },
        ),
      );
    });

    it("a justification only ever takes away too_many_variables", () => {
      fc.assert(
        fc.property(content, fc.string({ maxLength: 20 }), (raw, given) => {
          const { content: text, problem } = analyseTemplateContent(raw);
          fc.pre(problem === undefined);
          const without = templateRuleWarnings(text, null).map((w) => w.code);
          const withIt = templateRuleWarnings(text, given).map((w) => w.code);
          const expected =
            given.trim() === "" ? without : without.filter((code) => code !== "too_many_variables");
          expect(withIt).toEqual(expected);
        }),
      );
    });

    it("warns of bare slots exactly when the stored content has a varN placeholder", () => {
      fc.assert(
        fc.property(content, (raw) => {
          const { content: text, placeholders, problem } = analyseTemplateContent(raw);
          fc.pre(problem === undefined);
          const untagged = templateRuleWarnings(text, null).some((w) => w.code === "untagged_variable");
          expect(untagged).toBe(placeholders.some((name) => /^var\d+$/.test(name)));
        }),
      );
    });
  });
});
