import { hash } from "@node-rs/argon2";
import { describe, expect, it } from "vitest";
import { verifyCredentials } from "../../src/dashboard/sign-in.js";
import { down, up } from "../../src/db/migrations/2026-11-29T0021-members.js";
import * as twoFactor from "../../src/db/migrations/2026-11-29T0025-two-factor.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";

/* Each account's sign-in becomes its owner, with the same password; down puts the password back. */

describe.each(DIALECTS)("the members migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  it("makes each existing account's sign-in its owner, who signs in with the same password", async () => {
    const ctx = await fresh.open();
    // biome-ignore lint/suspicious/noExplicitAny: the schema before this migration is not today's
    const db = ctx.db as any;
    // The later migrations that build on members go first, and come back last.
    await twoFactor.down(db);
    await down(db);
    const passwordHash = await hash(TEST_PASSWORD);
    await db
      .insertInto("accounts")
      .values({
        id: "acct_before",
        email: "before@example.com",
        password_hash: passwordHash,
        created_at: "2026-11-01T00:00:00.000Z",
      })
      .execute();
    await up(db);

    const members = await ctx.db.selectFrom("members").selectAll().execute();
    expect(members).toEqual([
      {
        id: "mbr_before",
        account_id: "acct_before",
        email: "before@example.com",
        password_hash: passwordHash,
        role: "owner",
        status: "active",
        invite_token_hash: null,
        invite_expires_at: null,
        created_at: "2026-11-01T00:00:00.000Z",
        last_sign_in_at: null,
      },
    ]);
    const columns = (await ctx.db.introspection.getTables()).find((t) => t.name === "accounts")?.columns;
    expect(columns?.map((c) => c.name)).not.toContain("password_hash");
    const signedIn = await verifyCredentials(ctx, {
      email: "before@example.com",
      password: TEST_PASSWORD,
      clientAddress: "127.0.0.1",
    });
    expect(signedIn).toEqual({
      memberId: "mbr_before",
      accountId: "acct_before",
      email: "before@example.com",
      role: "owner",
    });

    await down(db);
    const restored = await db.selectFrom("accounts").select(["id", "password_hash"]).execute();
    expect(restored).toEqual([{ id: "acct_before", password_hash: passwordHash }]);
    await up(db);
    await twoFactor.up(db);
  });
});
