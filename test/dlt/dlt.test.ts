import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { TemplateCategory, TemplateStatus } from "../../src/db/schema.js";
import { parseTemplateContent, renderTemplate } from "../../src/dlt/placeholders.js";
import {
  addTemplate,
  findTemplate,
  listTemplates,
  type NewTemplate,
  setTemplateStatus,
} from "../../src/dlt/registry.js";
import { addSender, listSenders, removeSender, senderExists } from "../../src/dlt/senders.js";
import { ApiError } from "../../src/errors.js";
import { openTestContext, TestClock } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

/** A 19-digit DLT id: beyond Number.MAX_SAFE_INTEGER, so any trip through a number would change it. */
const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";

/** Runs `work`, expecting an ApiError, and returns it. */
async function refusal(work: () => unknown): Promise<ApiError> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error("expected an ApiError, nothing was thrown");
}

describe("template placeholders", () => {
  it("keeps named placeholders and lists distinct names in order of first appearance", () => {
    expect(
      parseTemplateContent("Hi {#name#}, {#otp#} is your code. {#otp#} expires soon, {#name#}."),
    ).toEqual({
      content: "Hi {#name#}, {#otp#} is your code. {#otp#} expires soon, {#name#}.",
      placeholders: ["name", "otp"],
    });
    expect(parseTemplateContent("No variables here.")).toEqual({
      content: "No variables here.",
      placeholders: [],
    });
    const longest = `a${"b".repeat(29)}`;
    expect(parseTemplateContent(`{#${longest}#} {#x_1#}`).placeholders).toEqual([longest, "x_1"]);
  });

  it("numbers bare {#var#} placeholders pasted from DLT in order of appearance", () => {
    expect(parseTemplateContent("Your OTP is {#var#} for {#var#}")).toEqual({
      content: "Your OTP is {#var1#} for {#var2#}",
      placeholders: ["var1", "var2"],
    });
    // Named ones in between keep their names and do not shift the numbering.
    expect(parseTemplateContent("{#var#} {#name#} {#var#} {#var#}")).toEqual({
      content: "{#var1#} {#name#} {#var2#} {#var3#}",
      placeholders: ["var1", "name", "var2", "var3"],
    });
    // DLT's typed tags are separate slots too, numbered per tag.
    expect(parseTemplateContent("Rs {#numeric#} due on {#var#}, pay at {#url#} or {#numeric#}")).toEqual({
      content: "Rs {#numeric1#} due on {#var1#}, pay at {#url1#} or {#numeric2#}",
      placeholders: ["numeric1", "var1", "url1", "numeric2"],
    });
    // An explicit varN the numbering does not reach is no conflict.
    expect(parseTemplateContent("{#var#} and {#var7#}").placeholders).toEqual(["var1", "var7"]);
    // Exactly 30 is allowed.
    const thirty = parseTemplateContent(Array.from({ length: 30 }, () => "{#var#}").join(" "));
    expect(thirty.placeholders).toHaveLength(30);
    expect(thirty.placeholders.at(-1)).toBe("var30");
  });

  it("normalises typographic characters and trims", () => {
    const parsed = parseTemplateContent(
      "\u00A0 \u201CDear\u201D {#name#}\u00A0\u2013 it\u2019s \u2018done\u2019 \u2014 wait\u2026\n ",
    );
    expect(parsed.content).toBe(`"Dear" {#name#} - it's 'done' - wait...`);
    expect(parsed.placeholders).toEqual(["name"]);
  });

  it.each([
    ["empty content", "", /empty/],
    ["only whitespace", " \n\u00A0 ", /empty/],
    ["content over 2000 characters", "a".repeat(2001), /at most 2000 characters/],
    ["an unclosed {#", "Your code is {#otp", /character 14.*not closed/],
    ["an opener inside a placeholder", "Code {#otp {#x#}", /character 6.*not closed/],
    ["a #} without opener", "Code otp#} now", /"#}" without an opening "\{#" at character 9/],
    ["a stray #} after a placeholder", "{#otp#}#}", /"#}" without an opening/],
    ["an empty name", "Code {##}", /empty placeholder.*character 6/],
    ["an upper-case name", "Hi {#Name#}", /invalid placeholder name "Name" at character 4/],
    ["a name with spaces", "Hi {# otp #}", /invalid placeholder name " otp "/],
    ["a name starting with a digit", "Hi {#1x#}", /invalid placeholder name "1x"/],
    ["a name over 30 characters", `{#a${"b".repeat(30)}#}`, /invalid placeholder name/],
    [
      "more than 30 placeholders",
      Array.from({ length: 31 }, (_, i) => `{#v${i}#}`).join(" "),
      /31 placeholders.*at most 30/,
    ],
    ["31 bare placeholders", "{#var#}".repeat(31), /at most 30/],
    ["a repeated name counting past 30", "{#otp#}".repeat(31), /at most 30/],
    ["bare numbering colliding with an explicit var1", "{#var1#} then {#var#}", /\{#var1#\}.*bare/],
    ["bare numbering colliding with an explicit var2", "{#var#} {#var#} {#var2#}", /\{#var2#\}/],
  ])("refuses %s with invalid_request on content", (_name, raw, message) => {
    let thrown: unknown;
    try {
      parseTemplateContent(raw);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ code: "invalid_request", param: "content", status: 400 });
    expect((thrown as ApiError).message).toMatch(message);
  });

  it("counts 2000 characters as code points after normalisation", () => {
    expect(parseTemplateContent("अ".repeat(2000)).content).toHaveLength(2000);
    expect(parseTemplateContent("😀".repeat(2000)).content).toHaveLength(4000);
  });

  it("renders every placeholder in one pass, never re-expanding a value", () => {
    const { content } = parseTemplateContent("Hi {#name#}, your OTP is {#var#}. Bye {#name#}.");
    expect(renderTemplate(content, { name: "Asha", var1: "4821" })).toBe(
      "Hi Asha, your OTP is 4821. Bye Asha.",
    );
    expect(renderTemplate("{#a#}{#b#}", { a: "{#b#}", b: "x" })).toBe("{#b#}x");
    expect(renderTemplate("{#a#}", { a: "$& $1 $$" })).toBe("$& $1 $$");
    expect(renderTemplate("plain", {})).toBe("plain");
  });

  it("refuses to render a placeholder without a value", () => {
    let thrown: unknown;
    try {
      renderTemplate("Hi {#constructor#}", {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "missing_variable", param: "variables.constructor" });
  });
});

describe.each(DIALECTS)("DLT registry on %s", (dialect) => {
  let database: TestDatabase;
  let clock: TestClock;
  let ctx: AppContext;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    clock = new TestClock();
    ctx = await openTestContext(database.url, { clock });
  });

  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  /** An account with DAKIYA, DKYOTP and 123456 registered. */
  async function accountWithSenders(): Promise<string> {
    const accountId = await createTestAccount(ctx);
    for (const sender of ["DAKIYA", "DKYOTP", "123456"]) await addSender(ctx, accountId, sender, CLI_ORIGIN);
    return accountId;
  }

  function template(accountId: string, overrides: Partial<NewTemplate> = {}): NewTemplate {
    return {
      accountId,
      templateId: TEMPLATE_ID,
      entityId: ENTITY_ID,
      name: "Login OTP",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Your OTP is {#var#} for {#var#}. Do not share it.",
      ...overrides,
    };
  }

  it("registers, lists and removes senders, upper-casing lower-case input", async () => {
    const accountId = await createTestAccount(ctx);
    expect(await addSender(ctx, accountId, "dakiya", CLI_ORIGIN)).toEqual({
      sender: "DAKIYA",
      created_at: clock.now().toISOString(),
    });
    await addSender(ctx, accountId, "123456", CLI_ORIGIN);
    expect((await listSenders(ctx, accountId)).map((s) => s.sender)).toEqual(["123456", "DAKIYA"]);
    expect(await senderExists(ctx.db, accountId, "DAKIYA")).toBe(true);

    const duplicate = await refusal(() => addSender(ctx, accountId, "DAKIYA", CLI_ORIGIN));
    expect(duplicate).toMatchObject({ code: "invalid_request", param: "sender" });
    expect(duplicate.message).toContain("already registered");

    await removeSender(ctx, accountId, "Dakiya", CLI_ORIGIN);
    expect(await senderExists(ctx.db, accountId, "DAKIYA")).toBe(false);
    expect(await listSenders(ctx, accountId)).toEqual([{ sender: "123456", created_at: expect.any(String) }]);
    expect(await refusal(() => removeSender(ctx, accountId, "DAKIYA", CLI_ORIGIN))).toMatchObject({
      code: "not_found",
      param: "sender",
    });
  });

  it.each(["DAKIY", "DAKIYAA", "DAK1YA", "12345", "1234567", "DAK-YA", "", "ДАКИЯА"])(
    "refuses the header %j",
    async (sender) => {
      const accountId = await createTestAccount(ctx);
      const error = await refusal(() => addSender(ctx, accountId, sender, CLI_ORIGIN));
      expect(error).toMatchObject({ code: "invalid_request", param: "sender" });
      expect(await listSenders(ctx, accountId)).toEqual([]);
    },
  );

  it("refuses senders and templates of an unknown account with not_found", async () => {
    for (const work of [
      () => addSender(ctx, "acct_nope", "DAKIYA", CLI_ORIGIN),
      () => listSenders(ctx, "acct_nope"),
      () => addTemplate(ctx, template("acct_nope"), CLI_ORIGIN),
      () => listTemplates(ctx, "acct_nope"),
    ]) {
      expect(await refusal(work)).toMatchObject({ code: "not_found", param: "account" });
    }
  });

  it("registers a template with named placeholders and keeps a 19-digit id exact", async () => {
    const accountId = await accountWithSenders();
    const added = await addTemplate(
      ctx,
      template(accountId, { senders: ["dakiya", "DKYOTP", "DAKIYA"], name: "  Login OTP " }),
      CLI_ORIGIN,
    );
    expect(added).toEqual({
      id: expect.stringMatching(/^tpl_[0-9A-Za-z]{24}$/),
      template_id: TEMPLATE_ID,
      entity_id: ENTITY_ID,
      name: "Login OTP",
      category: "transactional",
      content: "Your OTP is {#var1#} for {#var2#}. Do not share it.",
      placeholders: ["var1", "var2"],
      senders: ["DAKIYA", "DKYOTP"],
      status: "active",
      created_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
      variables_justification: null,
      warnings: [expect.objectContaining({ code: "untagged_variable" })],
    });
    expect(Number(TEMPLATE_ID).toString()).not.toBe(TEMPLATE_ID);
    // Sends read the template without what is shown to people.
    const { variables_justification: _justification, warnings: _warnings, ...sent } = added;
    expect(await findTemplate(ctx.db, accountId, TEMPLATE_ID)).toEqual(sent);
    expect(await listTemplates(ctx, accountId)).toEqual([added]);

    const row = await ctx.db
      .selectFrom("templates")
      .select(["template_id", "entity_id"])
      .where("id", "=", added.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ template_id: TEMPLATE_ID, entity_id: ENTITY_ID });
    // A different id that would be equal as a double is a different template.
    expect(await findTemplate(ctx.db, accountId, "1107161234567890124")).toBeUndefined();

    const promotional = await addTemplate(
      ctx,
      template(accountId, {
        templateId: "1",
        category: "promotional",
        senders: ["123456"],
        content: "Sale! {#pct#}% off",
      }),
      CLI_ORIGIN,
    );
    expect(promotional).toMatchObject({
      category: "promotional",
      senders: ["123456"],
      placeholders: ["pct"],
    });
  });

  it.each<[string, Partial<NewTemplate>, string, RegExp]>([
    ["a non-numeric template id", { templateId: "11071612345678901x" }, "template_id", /digits/],
    ["an empty template id", { templateId: "" }, "template_id", /digits/],
    ["a 31-digit template id", { templateId: "1".repeat(31) }, "template_id", /1 to 30 digits/],
    ["a non-numeric entity id", { entityId: "PE-1" }, "entity_id", /digits/],
    ["an empty name", { name: "  " }, "name", /1 to 100/],
    ["a 101-character name", { name: "n".repeat(101) }, "name", /1 to 100/],
    ["an unknown category", { category: "otp" as TemplateCategory }, "category", /promotional/],
    ["no sender", { senders: [] }, "senders", /at least one sender/],
    ["only blank senders", { senders: [" "] }, "senders", /at least one sender/],
    ["an unregistered sender", { senders: ["DAKIYA", "NOTREG"] }, "senders", /NOTREG is not registered/],
    [
      "a digit header on a transactional template",
      { senders: ["123456"] },
      "senders",
      /123456.*transactional templates go out under 6-letter headers/,
    ],
    [
      "a digit header on a service-implicit template",
      { category: "service_implicit", senders: ["DAKIYA", "123456"] },
      "senders",
      /123456.*6-letter/,
    ],
    [
      "a letter header on a service-explicit template (promotional since May 2025)",
      { category: "service_explicit", senders: ["DAKIYA"] },
      "senders",
      /DAKIYA.*service_explicit templates go out under 6-digit headers: since May 2025 DLT treats service-explicit content as promotional/,
    ],
    [
      "a letter header on a promotional template",
      { category: "promotional", senders: ["DAKIYA"] },
      "senders",
      /DAKIYA.*promotional templates go out under 6-digit headers/,
    ],
    ["bad content", { content: "Hi {#Name#}" }, "content", /invalid placeholder name/],
  ])("refuses a template with %s", async (_name, overrides, param, message) => {
    const accountId = await accountWithSenders();
    const error = await refusal(() => addTemplate(ctx, template(accountId, overrides), CLI_ORIGIN));
    expect(error).toMatchObject({ code: "invalid_request", param });
    expect(error.message).toMatch(message);
    expect(await listTemplates(ctx, accountId)).toEqual([]);
  });

  it("refuses a duplicate template id for the same account", async () => {
    const accountId = await accountWithSenders();
    await addTemplate(ctx, template(accountId), CLI_ORIGIN);
    const error = await refusal(() => addTemplate(ctx, template(accountId, { name: "Again" }), CLI_ORIGIN));
    expect(error).toMatchObject({ code: "invalid_request", param: "template_id" });
    expect(error.message).toContain("already registered");
    expect(await listTemplates(ctx, accountId)).toHaveLength(1);
  });

  it("deactivates and activates a template", async () => {
    const accountId = await accountWithSenders();
    const added = await addTemplate(ctx, template(accountId), CLI_ORIGIN);
    clock.advance(60);
    const inactive = await setTemplateStatus(ctx, accountId, TEMPLATE_ID, "inactive", CLI_ORIGIN);
    expect(inactive).toEqual({ ...added, status: "inactive", updated_at: clock.now().toISOString() });
    expect(inactive.updated_at > added.created_at).toBe(true);
    expect((await findTemplate(ctx.db, accountId, TEMPLATE_ID))?.status).toBe("inactive");

    clock.advance(60);
    const active = await setTemplateStatus(ctx, accountId, TEMPLATE_ID, "active", CLI_ORIGIN);
    expect(active).toEqual({ ...added, status: "active", updated_at: clock.now().toISOString() });
    expect(await listTemplates(ctx, accountId)).toEqual([active]);

    expect(
      await refusal(() => setTemplateStatus(ctx, accountId, "999", "inactive", CLI_ORIGIN)),
    ).toMatchObject({
      code: "not_found",
      param: "template_id",
    });
    expect(
      await refusal(() =>
        setTemplateStatus(ctx, accountId, TEMPLATE_ID, "paused" as TemplateStatus, CLI_ORIGIN),
      ),
    ).toMatchObject({ code: "invalid_request", param: "status" });
  });

  it("keeps each account's registry to itself", async () => {
    const a = await accountWithSenders();
    const b = await createTestAccount(ctx);
    const added = await addTemplate(ctx, template(a), CLI_ORIGIN);

    expect(await listTemplates(ctx, b)).toEqual([]);
    expect(await listSenders(ctx, b)).toEqual([]);
    expect(await findTemplate(ctx.db, b, TEMPLATE_ID)).toBeUndefined();
    expect(await senderExists(ctx.db, b, "DAKIYA")).toBe(false);
    for (const status of ["active", "inactive"] as const) {
      expect(await refusal(() => setTemplateStatus(ctx, b, TEMPLATE_ID, status, CLI_ORIGIN))).toMatchObject({
        code: "not_found",
        param: "template_id",
      });
    }
    expect(await refusal(() => removeSender(ctx, b, "DAKIYA", CLI_ORIGIN))).toMatchObject({
      code: "not_found",
    });
    // A's senders are not B's: B must register its own before using them.
    expect(await refusal(() => addTemplate(ctx, template(b), CLI_ORIGIN))).toMatchObject({
      param: "senders",
    });

    // B may register the same header and the same DLT template id independently.
    await addSender(ctx, b, "DAKIYA", CLI_ORIGIN);
    const theirs = await addTemplate(ctx, template(b, { name: "B's OTP" }), CLI_ORIGIN);
    expect(theirs.id).not.toBe(added.id);
    await setTemplateStatus(ctx, b, TEMPLATE_ID, "inactive", CLI_ORIGIN);
    expect((await findTemplate(ctx.db, a, TEMPLATE_ID))?.status).toBe("active");
    expect((await findTemplate(ctx.db, b, TEMPLATE_ID))?.name).toBe("B's OTP");
  });
});
