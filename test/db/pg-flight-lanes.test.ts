import { sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { commitInLane, type Lane } from "../../src/db/postgres/flight-lanes.js";
import {
  commitInOneFlight,
  FlightRefused,
  type FlightStatement,
  guardedAfter,
} from "../../src/db/postgres/one-flight.js";
import type { Db } from "../../src/db/schema.js";
import type { TransactionContext } from "../../src/db/transaction.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";

/*
 * One account's sends take a lane (src/db/postgres/flight-lanes.ts): those that arrive while its flight is
 * in the air board the next one together. Each call here inserts one row; `xmin` tells which
 * transaction wrote it.
 */

const LIVE = process.env.TEST_DATABASE_URL !== undefined;

describe.skipIf(!LIVE)("flight lanes on PostgreSQL", () => {
  let database: TestDatabase;
  let db: Db;
  /** The database the lanes write to, and the conflicts they count (none expected here). */
  let lanes: TransactionContext;
  const conflicts: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    db = (await openDatabase(database.url)).db;
    lanes = {
      db,
      metrics: { transactionConflict: (conflict, outcome) => conflicts.push(`${conflict} ${outcome}`) },
    };
    await sql`create table lane_rows (n serial primary key, name text not null unique)`.execute(db);
  });

  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  beforeEach(async () => {
    await sql`truncate lane_rows`.execute(db);
  });

  afterEach(() => {
    expect(conflicts).toEqual([]);
  });

  const insert = (name: string): FlightStatement => ({
    sql: "insert into lane_rows (name) values ($1)",
    parameters: [name],
  });
  /** A guard that refuses, as a limit or a balance would. */
  const refused: FlightStatement = guardedAfter("", "select 1 where false", [], "test_refusal");
  const lane = (order: string, key = "acc_1:live"): Lane => ({ key, order });

  async function transactions(): Promise<Map<string, string[]>> {
    const { rows } = await sql<{ name: string; tx: string }>`
      select name, xmin::text as tx from lane_rows order by n`.execute(db);
    const byTransaction = new Map<string, string[]>();
    for (const row of rows) byTransaction.set(row.tx, [...(byTransaction.get(row.tx) ?? []), row.name]);
    return byTransaction;
  }

  it("sends that wait for the lane's flight go together in the next one, in their recipients' order", async () => {
    const names = ["m0", "m9", "m3", "m7", "m1", "m5"];
    await Promise.all(names.map((name) => commitInLane(lanes, lane(name), { own: [insert(name)] })));
    const written = [...(await transactions()).values()];
    expect(written).toEqual([["m0"], ["m1", "m3", "m5", "m7", "m9"]]);
  });

  it("lanes of different accounts do not wait for each other", async () => {
    await Promise.all([
      commitInLane(lanes, lane("a", "acc_1:live"), { own: [insert("a1")] }),
      commitInLane(lanes, lane("a", "acc_2:live"), { own: [insert("a2")] }),
      commitInLane(lanes, lane("a", "acc_1:sandbox"), { own: [insert("a3")] }),
    ]);
    expect((await transactions()).size).toBe(3);
  });

  it("a refused send fails alone: the others of its flight are written, it is not", async () => {
    const outcomes = await Promise.allSettled([
      commitInLane(lanes, lane("0"), { own: [insert("first")] }),
      commitInLane(lanes, lane("1"), { own: [insert("kept-1")] }),
      commitInLane(lanes, lane("2"), { own: [insert("refused"), refused] }),
      commitInLane(lanes, lane("3"), { own: [insert("kept-3")] }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    const failure = outcomes[2] as PromiseRejectedResult;
    expect(failure.reason).toBeInstanceOf(FlightRefused);
    expect((failure.reason as FlightRefused).reason).toBe("test_refusal");
    const names = [...(await transactions()).values()].flat().sort();
    expect(names).toEqual(["first", "kept-1", "kept-3"]);
  });

  it("a send whose statement fails gets its own error, and the others are written", async () => {
    await commitInLane(lanes, lane("x"), { own: [insert("taken")] });
    const outcomes = await Promise.allSettled([
      commitInLane(lanes, lane("0"), { own: [insert("first")] }),
      commitInLane(lanes, lane("1"), { own: [insert("taken")] }),
      commitInLane(lanes, lane("2"), { own: [insert("kept")] }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(((outcomes[1] as PromiseRejectedResult).reason as { code?: string }).code).toBe("23505");
    expect([...(await transactions()).values()].flat().sort()).toEqual(["first", "kept", "taken"]);
  });

  it("two sends to one recipient never share a flight", async () => {
    await Promise.all([
      commitInLane(lanes, lane("first"), { own: [insert("first")] }),
      commitInLane(lanes, lane("same"), { own: [insert("same-1")] }),
      commitInLane(lanes, lane("same"), { own: [insert("same-2")] }),
      commitInLane(lanes, lane("other"), { own: [insert("other")] }),
    ]);
    const written = [...(await transactions()).values()];
    expect(written).toEqual([["first"], ["other", "same-1"], ["same-2"]]);
  });

  it("a shared flight runs every member's own statements, then the counters by key, then the debits", async () => {
    const send = (name: string, counter: string) =>
      commitInLane(lanes, lane(name), {
        own: [insert(`own-${name}`)],
        counters: [{ ...insert(`${counter}-${name}`), counter }],
        debit: insert(`debit-${name}`),
      });
    await Promise.all([
      send("a", "x"),
      send("d", "counter-y"),
      send("c", "counter-z"),
      send("b", "counter-y"),
    ]);
    const written = [...(await transactions()).values()];
    expect(written).toEqual([
      ["own-a", "x-a", "debit-a"],
      [
        "own-b",
        "own-c",
        "own-d",
        "counter-y-b",
        "counter-y-d",
        "counter-z-c",
        "debit-b",
        "debit-c",
        "debit-d",
      ],
    ]);
  });

  it("a flight that waits for a row another transaction holds does not hold the lane", async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("insert into lane_rows (name) values ('held')");
      let stalledLanded = false;
      const stalled = commitInLane(lanes, lane("held"), { own: [insert("held")] }).then(
        () => (stalledLanded = true),
        (error: unknown) => {
          stalledLanded = true;
          throw error;
        },
      );
      await Promise.all(
        ["a", "b", "c"].map((name) => commitInLane(lanes, lane(name), { own: [insert(name)] })),
      );
      expect(stalledLanded).toBe(false);
      await holder.query("rollback");
      await stalled;
    } finally {
      await holder.end();
    }
    expect([...(await transactions()).values()].flat().sort()).toEqual(["a", "b", "c", "held"]);
  });

  it("a flight PostgreSQL aborts for a deadlock is counted as run again, and wrote nothing", async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("insert into lane_rows (name) values ('held')");
      const flight = commitInLane(lanes, lane("x"), { own: [insert("mine"), insert("held")] }).then(
        () => undefined,
        (error: { code?: string }) => error.code,
      );
      // The flight holds 'mine' and waits for 'held'; the holder then waits for 'mine'. The flight
      // waited first, so it is the one PostgreSQL aborts.
      for (let waited = 0; ; waited += 20) {
        const { rows } = await sql<{ waiting: string }>`
          select count(*) as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
        if (Number(rows[0]?.waiting) > 0) break;
        if (waited > 10_000) throw new Error("the flight never waited");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const holderInsert = holder.query("insert into lane_rows (name) values ('mine')");
      expect(await flight).toBe("40P01");
      await holderInsert;
      await holder.query("commit");
    } finally {
      await holder.end();
    }
    expect(conflicts.splice(0)).toEqual(["deadlock retried"]);
    expect([...(await transactions()).values()]).toEqual([["held", "mine"]]);
  });

  it("statements that run again are prepared on their connection, to be planned once there", async () => {
    const preparedHere: FlightStatement = {
      sql: `insert into lane_rows (name)
        select 'prepared ' || count(*) from pg_prepared_statements where statement = $1`,
      parameters: [insert("").sql],
    };
    // A text is named from its second run on (src/db/postgres/statements.ts).
    await commitInOneFlight(db, [insert("first")]);
    await commitInOneFlight(db, [insert("second"), preparedHere]);
    const names = [...(await transactions()).values()].flat();
    expect(names).toEqual(["first", "second", "prepared 1"]);
  });

  it("the lane is free again once its flights have landed", async () => {
    await Promise.all(
      ["a", "b", "c"].map((name) => commitInLane(lanes, lane(name), { own: [insert(name)] })),
    );
    await commitInLane(lanes, lane("d"), { own: [insert("d")] });
    const written = [...(await transactions()).values()];
    expect(written).toEqual([["a"], ["b", "c"], ["d"]]);
  });
});
