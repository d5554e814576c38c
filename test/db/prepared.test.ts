import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { executeForIds, inChunks, insertRows, prepareForIds } from "../../src/db/prepared.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";

describe("inChunks", () => {
  it("splits any list into power-of-two chunks of at most 128, largest first, keeping the order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 1_500 }), (items) => {
        const chunks = inChunks(items);
        expect(chunks.flat()).toEqual(items);
        const sizes = chunks.map((chunk) => chunk.length);
        for (const size of sizes) {
          expect(size).toBeLessThanOrEqual(128);
          expect(Number.isInteger(Math.log2(size))).toBe(true);
        }
        expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
        // So a table sees at most eight statement shapes, whatever the counts.
        expect(new Set(sizes).size).toBeLessThanOrEqual(8);
      }),
    );
    expect(inChunks([]).length).toBe(0);
    expect(inChunks(Array.from({ length: 97 }, (_, i) => i)).map((chunk) => chunk.length)).toEqual([
      64, 32, 1,
    ]);
  });
});

describe.each(DIALECTS)("insertRows on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url);
  });

  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  it("inserts every row with its own values, however many, in statements compiled once", async () => {
    for (const count of [1, 2, 97, 300]) {
      const rows = Array.from({ length: count }, (_, index) => ({
        key: `insert-rows:${count}:${index}`,
        window_start: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
        count: index * 7 + count,
        expires_at: new Date(Date.UTC(2027, 0, 1)).toISOString(),
      }));
      await ctx.db.transaction().execute((trx) => insertRows(trx, "rate_limit_counters", rows));
      const stored = await ctx.db
        .selectFrom("rate_limit_counters")
        .selectAll()
        .where("key", "like", `insert-rows:${count}:%`)
        .execute();
      expect(stored.map((row) => ({ ...row, count: Number(row.count) })).sort(byKey)).toEqual(
        [...rows].sort(byKey),
      );
    }
  });

  it("runs a query for ids in lists of power-of-two sizes, filled with the last id, and answers all their rows", async () => {
    const keys = Array.from({ length: 300 }, (_, index) => `for-ids:${index}`);
    const expiresAt = new Date(Date.UTC(2027, 0, 1)).toISOString();
    const rows = keys.map((key) => ({
      key,
      window_start: "2026-01-01T00:00:00.000Z",
      count: 1,
      expires_at: expiresAt,
    }));
    await ctx.db.transaction().execute((trx) => insertRows(trx, "rate_limit_counters", rows));
    const countersWithKeys = prepareForIds<{ expiresAt: string }, { key: string }>((db, param, ids) =>
      db
        .selectFrom("rate_limit_counters")
        .select("key")
        .where("key", "in", ids)
        .where("expires_at", "=", param("expiresAt")),
    );
    const counts: number[] = [];
    const counted = (count: number) => {
      counts.push(count);
      return countersWithKeys(count);
    };
    const asked = [...keys.slice(0, 297), "for-ids:none"];
    const found = await executeForIds(ctx.db, counted, { expiresAt }, asked);
    expect(found.map((row) => row.key).sort()).toEqual(keys.slice(0, 297).sort());
    // 298 ids: two full lists and one of 42 filled up to 64, its last id repeated, which adds no row.
    expect(counts).toEqual([128, 128, 64]);
    counts.length = 0;
    const thirteen = await executeForIds(ctx.db, counted, { expiresAt }, keys.slice(0, 13));
    expect(thirteen.map((row) => row.key).sort()).toEqual(keys.slice(0, 13).sort());
    expect(counts).toEqual([16]);
    expect(await executeForIds(ctx.db, countersWithKeys, { expiresAt: "another" }, keys)).toEqual([]);
  });

  it("leaves out the rows whose unique value is taken, with skipConflictsOn, and inserts the others", async () => {
    const account = (id: string, email: string) => ({
      id,
      email,
      created_at: "2026-01-01T00:00:00.000Z",
    });
    await ctx.db
      .transaction()
      .execute((trx) => insertRows(trx, "accounts", [account("acct_taken", "first@example.com")]));
    const rows = [account("acct_taken", "second@example.com"), account("acct_new", "third@example.com")];
    await ctx.db.transaction().execute((trx) => insertRows(trx, "accounts", rows, { skipConflictsOn: "id" }));
    const stored = await ctx.db
      .selectFrom("accounts")
      .select(["id", "email"])
      .where("id", "in", ["acct_taken", "acct_new"])
      .orderBy("id")
      .execute();
    expect(stored).toEqual([
      { id: "acct_new", email: "third@example.com" },
      { id: "acct_taken", email: "first@example.com" },
    ]);
    // Without it, the taken id fails the insert.
    await expect(
      ctx.db
        .transaction()
        .execute((trx) => insertRows(trx, "accounts", [account("acct_taken", "x@example.com")])),
    ).rejects.toThrow();
  });
});

function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : 1;
}
