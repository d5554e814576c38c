import { describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { down, up } from "../../src/db/migrations/2026-11-29T0016-template-rules.js";
import { listTemplates } from "../../src/dlt/registry.js";
import { templateRuleWarnings } from "../../src/dlt/template-rules.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

/*
 * Templates of before get no justification and the warnings of TRAI's template rules worked out
 * from their content; down removes both columns.
 */

describe.each(DIALECTS)("the template-rules migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  async function columnsOf(db: AppContext["db"], table: string): Promise<string[]> {
    const tables = await db.introspection.getTables();
    return (tables.find((t) => t.name === table)?.columns ?? []).map((column) => column.name);
  }

  it("adds variables_justification and warnings, works out the warnings of existing templates, and down drops them", async () => {
    const ctx = await fresh.open();
    const { db } = ctx;
    const accountId = await createTestAccount(ctx);
    await down(db);
    expect(await columnsOf(db, "templates")).not.toContain("warnings");
    expect(await columnsOf(db, "templates")).not.toContain("variables_justification");

    // Templates saved by the version before, without the new columns: more than a page of them.
    const contents = {
      untagged: "Your login code is {#var1#}. Do not share it with anyone.",
      terse: "Code {#numeric1#}",
      many: "{#var1#} {#var2#} {#var3#} {#var4#}",
      clean: "Your order {#numeric1#} has shipped and arrives in two days.",
    };
    const rows = Array.from({ length: 503 }, (_, i) => {
      const kind = (["untagged", "terse", "many", "clean"] as const)[i % 4] ?? "clean";
      return {
        id: `tpl_${String(i).padStart(24, "0")}`,
        account_id: accountId,
        template_id: String(1107160000000000000n + BigInt(i)),
        entity_id: "1101456789012345678",
        name: kind,
        category: "transactional",
        content: contents[kind],
        placeholders: "[]",
        senders: "[]",
        status: "active",
        created_at: ctx.clock.now().toISOString(),
        updated_at: ctx.clock.now().toISOString(),
      };
    });
    // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration
    const before = db as any;
    for (let start = 0; start < rows.length; start += 100) {
      await before
        .insertInto("templates")
        .values(rows.slice(start, start + 100))
        .execute();
    }

    await up(db);
    const templates = await listTemplates(ctx, accountId);
    expect(templates).toHaveLength(503);
    for (const template of templates) {
      expect(template.variables_justification).toBeNull();
      expect(template.warnings).toEqual(templateRuleWarnings(template.content, null));
    }
    const codes = (name: string) =>
      templates.find((template) => template.name === name)?.warnings.map((warning) => warning.code);
    expect(codes("untagged")).toEqual(["untagged_variable"]);
    expect(codes("terse")).toEqual(["fixed_text_below_30_percent"]);
    expect(codes("many")).toEqual(["untagged_variable", "too_many_variables", "fixed_text_below_30_percent"]);
    expect(codes("clean")).toEqual([]);
    // The last template, past the first page of the migration, was worked out too.
    const last = templates.find((template) => template.id === `tpl_${"502".padStart(24, "0")}`);
    expect(last?.warnings.map((warning) => warning.code)).toEqual([
      "untagged_variable",
      "too_many_variables",
      "fixed_text_below_30_percent",
    ]);

    // warnings is NOT NULL with its default, on both databases.
    await expect(
      db
        .updateTable("templates")
        .set({ warnings: null as unknown as string })
        .where("account_id", "=", accountId)
        .execute(),
    ).rejects.toThrow();
  });
});
