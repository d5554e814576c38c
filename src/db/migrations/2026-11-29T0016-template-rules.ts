import type { Kysely } from "kysely";
import { templateRuleWarnings } from "../../dlt/template-rules.js";

/**
 * TRAI's template rules (docs/dlt-variables.md#template-rules): a template keeps the
 * justification of its variables (`variables_justification`, null: none given) and the rules it
 * breaks (`warnings`, a JSON array of `{code, message}`). Templates of before have no
 * justification, and their warnings are worked out here, page by page, from their content.
 *
 * The rules come from src/dlt/template-rules.ts, a pure module that reads nothing of the schema:
 * a later change of the rules brings a migration of its own to work the warnings out again.
 */
const PAGE = 500;

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("templates").addColumn("variables_justification", "text").execute();
  await db.schema
    .alterTable("templates")
    .addColumn("warnings", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  let after = "";
  for (;;) {
    const rows: Array<{ id: string; content: string }> = await db
      .selectFrom("templates")
      .select(["id", "content"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(PAGE)
      .execute();
    for (const row of rows) {
      const warnings = templateRuleWarnings(row.content, null);
      if (warnings.length === 0) continue;
      await db
        .updateTable("templates")
        .set({ warnings: JSON.stringify(warnings) })
        .where("id", "=", row.id)
        .execute();
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < PAGE) break;
    after = last.id;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("templates").dropColumn("warnings").execute();
  await db.schema.alterTable("templates").dropColumn("variables_justification").execute();
}
