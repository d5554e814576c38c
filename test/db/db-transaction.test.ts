import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import {
  type ConflictOutcome,
  inTransaction,
  MAX_TRANSACTION_RUNS,
  type TransactionConflict,
  type TransactionContext,
} from "../../src/db/transaction.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";

/** `ctx`'s database, with the conflicts it counts kept for the test to read. */
function countingConflicts(ctx: AppContext): {
  tx: TransactionContext;
  counted: Array<[TransactionConflict, ConflictOutcome]>;
} {
  const counted: Array<[TransactionConflict, ConflictOutcome]> = [];
  return {
    counted,
    tx: {
      db: ctx.db,
      metrics: { transactionConflict: (conflict, outcome) => counted.push([conflict, outcome]) },
    },
  };
}

describe.each(DIALECTS)("transactions on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url);
    await sql`create table pairs (id integer primary key, n integer not null)`.execute(ctx.db);
    await sql`insert into pairs (id, n) values (1, 0), (2, 0)`.execute(ctx.db);
  });

  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  it("gives a conflict that keeps coming back up after a bounded number of runs, counted", async () => {
    const { tx, counted } = countingConflicts(ctx);
    let runs = 0;
    const conflict = Object.assign(new Error("could not serialize access"), { code: "40001" });
    await expect(
      inTransaction(tx, async () => {
        runs++;
        throw conflict;
      }),
    ).rejects.toBe(conflict);
    expect(runs).toBe(MAX_TRANSACTION_RUNS);
    expect(counted.filter(([, outcome]) => outcome === "retried")).toHaveLength(MAX_TRANSACTION_RUNS - 1);
    expect(counted.at(-1)).toEqual(["serialization_failure", "gave_up"]);
  });

  it("runs other errors once and lets them through", async () => {
    const { tx, counted } = countingConflicts(ctx);
    let runs = 0;
    await expect(
      inTransaction(tx, async (trx) => {
        runs++;
        await sql`update pairs set n = n + 1 where id = 1`.execute(trx);
        throw new Error("not a conflict");
      }),
    ).rejects.toThrow("not a conflict");
    expect(runs).toBe(1);
    expect(counted).toEqual([]);
    const { rows } = await sql<{ n: number }>`select n from pairs where id = 1`.execute(ctx.db);
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it.runIf(dialect === "postgres")(
    "runs again the side PostgreSQL aborted in a deadlock, so both transactions commit once",
    async () => {
      const { tx, counted } = countingConflicts(ctx);
      const other = await openTestContext(database.url);
      try {
        // Each takes its first row, waits until the other holds its own, then asks for the other's:
        // a deadlock on their first run. Runs after the first go straight through.
        let holding = 0;
        let bothHold: () => void = () => {};
        const barrier = new Promise<void>((resolve) => {
          bothHold = resolve;
        });
        const runs: [number, number] = [0, 0];
        const crossing = (context: TransactionContext, side: 0 | 1, first: number, second: number) =>
          inTransaction(context, async (trx) => {
            runs[side] += 1;
            await sql`update pairs set n = n + 1 where id = ${first}`.execute(trx);
            if (runs[side] === 1) {
              if (++holding === 2) bothHold();
              await barrier;
            }
            await sql`update pairs set n = n + 1 where id = ${second}`.execute(trx);
          });
        await Promise.all([crossing(tx, 0, 1, 2), crossing({ db: other.db, metrics: tx.metrics }, 1, 2, 1)]);
        const { rows } = await sql<{ n: number }>`select n from pairs order by id`.execute(ctx.db);
        expect(rows.map((row) => Number(row.n))).toEqual([2, 2]);
        expect(runs[0] + runs[1]).toBe(3);
        expect(counted).toEqual([["deadlock", "retried"]]);
      } finally {
        await other.close();
      }
    },
  );
});
