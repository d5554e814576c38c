import { describe, expect, it } from "vitest";
import { down, up } from "../../src/db/migrations/2026-11-29T0017-cta-whitelist.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

/* cta_entries: one row per (account, kind, canonical value); down drops the table, up makes it again. */

describe.each(DIALECTS)("the cta-whitelist migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  it("keys entries by account, kind and value, and down drops the table", async () => {
    const ctx = await fresh.open();
    const { db } = ctx;
    const tableNames = async () => (await db.introspection.getTables()).map((table) => table.name);
    await down(db);
    expect(await tableNames()).not.toContain("cta_entries");
    await up(db);
    expect(await tableNames()).toContain("cta_entries");

    const accountId = await createTestAccount(ctx);
    const row = {
      account_id: accountId,
      kind: "url" as const,
      value: "https://dky.in/",
      created_at: "2026-11-29T00:00:00.000Z",
    };
    await db.insertInto("cta_entries").values(row).execute();
    // The same text as a number is another entry; the same entry twice is refused.
    await db
      .insertInto("cta_entries")
      .values({ ...row, kind: "number" })
      .execute();
    await expect(db.insertInto("cta_entries").values(row).execute()).rejects.toThrow();
    expect(await db.selectFrom("cta_entries").select("kind").orderBy("kind").execute()).toEqual([
      { kind: "number" },
      { kind: "url" },
    ]);
  });
});
