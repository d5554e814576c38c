import { describe, expect, it } from "vitest";
import { down, up } from "../../src/db/migrations/2026-11-29T0024-audit-log.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";

/* The audit log's table, index and guard triggers come and go together. */

describe.each(DIALECTS)("the audit-log migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  it("drops the table with its triggers, and makes them again", async () => {
    const { db } = await fresh.open();
    const tables = async () => (await db.introspection.getTables()).map((table) => table.name);
    expect(await tables()).toContain("audit_log");
    await down(db);
    expect(await tables()).not.toContain("audit_log");
    await up(db);
    const row = {
      id: "aud_1",
      account_id: "acct_1",
      environment: null,
      actor_type: "cli" as const,
      actor_id: null,
      actor_label: null,
      action: "key.created",
      target_type: "api_key",
      target_id: null,
      client_address: null,
      before: null,
      after: null,
      created_at: new Date().toISOString(),
    };
    await db.insertInto("audit_log").values(row).execute();
    await expect(db.updateTable("audit_log").set({ action: "x" }).execute()).rejects.toThrow(/never changed/);
    await expect(db.deleteFrom("audit_log").execute()).rejects.toThrow(/kept 365 days/);
  });
});
