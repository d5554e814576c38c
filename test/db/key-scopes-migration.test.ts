import { describe, expect, it } from "vitest";
import { down, up } from "../../src/db/migrations/2026-11-29T0023-key-scopes.js";
import { listKeys } from "../../src/keys/keys.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { createAccountWithKey } from "../helpers/fixtures.js";

/* Keys of before keep every power they had: scope full, any address; down removes both columns. */

describe.each(DIALECTS)("the key-scopes migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  it("makes existing keys full from anywhere, allows only the three scopes, and down drops the columns", async () => {
    const ctx = await fresh.open();
    const { db } = ctx;
    const { accountId, keyId } = await createAccountWithKey(ctx);
    await down(db);
    const columns = async () =>
      ((await db.introspection.getTables()).find((t) => t.name === "api_keys")?.columns ?? []).map(
        (c) => c.name,
      );
    expect(await columns()).not.toContain("scope");
    expect(await columns()).not.toContain("allowed_ips");

    await up(db);
    expect(await listKeys(ctx, accountId)).toEqual([
      expect.objectContaining({ id: keyId, scope: "full", allowed_ips: null }),
    ]);
    for (const scope of [null, "admin"]) {
      await expect(
        db
          .updateTable("api_keys")
          .set({ scope: scope as "full" })
          .where("id", "=", keyId)
          .execute(),
        String(scope),
      ).rejects.toThrow();
    }
  });
});
