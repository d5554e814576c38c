import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.js";
import { commitInLane, type Lane } from "../src/db/flight-lanes.js";
import {
  commitInOneFlight,
  FlightRefused,
  type FlightStatement,
  guardedAfter,
} from "../src/db/one-flight.js";
import type { Db } from "../src/db/schema.js";
import { createTestDatabase, type TestDatabase } from "./helpers/database.js";

/*
 * One account's sends take a lane (src/db/flight-lanes.ts): those that arrive while its flight is
 * in the air board the next one together. Each call here inserts one row; `xmin` tells which
 * transaction wrote it.
 */

const LIVE = process.env.TEST_DATABASE_URL !== undefined;

describe.skipIf(!LIVE)("flight lanes on PostgreSQL", () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    db = openDatabase(database.url).db;
    await sql`create table lane_rows (n serial primary key, name text not null unique)`.execute(db);
  });

  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  beforeEach(async () => {
    await sql`truncate lane_rows`.execute(db);
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
    await Promise.all(names.map((name) => commitInLane(db, lane(name), { own: [insert(name)], shared: [] })));
    const written = [...(await transactions()).values()];
    expect(written).toEqual([["m0"], ["m1", "m3", "m5", "m7", "m9"]]);
  });

  it("lanes of different accounts do not wait for each other", async () => {
    await Promise.all([
      commitInLane(db, lane("a", "acc_1:live"), { own: [insert("a1")], shared: [] }),
      commitInLane(db, lane("a", "acc_2:live"), { own: [insert("a2")], shared: [] }),
      commitInLane(db, lane("a", "acc_1:sandbox"), { own: [insert("a3")], shared: [] }),
    ]);
    expect((await transactions()).size).toBe(3);
  });

  it("a refused send fails alone: the others of its flight are written, it is not", async () => {
    const outcomes = await Promise.allSettled([
      commitInLane(db, lane("0"), { own: [insert("first")], shared: [] }),
      commitInLane(db, lane("1"), { own: [insert("kept-1")], shared: [] }),
      commitInLane(db, lane("2"), { own: [insert("refused"), refused], shared: [] }),
      commitInLane(db, lane("3"), { own: [insert("kept-3")], shared: [] }),
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
    await commitInLane(db, lane("x"), { own: [insert("taken")], shared: [] });
    const outcomes = await Promise.allSettled([
      commitInLane(db, lane("0"), { own: [insert("first")], shared: [] }),
      commitInLane(db, lane("1"), { own: [insert("taken")], shared: [] }),
      commitInLane(db, lane("2"), { own: [insert("kept")], shared: [] }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(((outcomes[1] as PromiseRejectedResult).reason as { code?: string }).code).toBe("23505");
    expect([...(await transactions()).values()].flat().sort()).toEqual(["first", "kept", "taken"]);
  });

  it("two sends to one recipient never share a flight", async () => {
    await Promise.all([
      commitInLane(db, lane("first"), { own: [insert("first")], shared: [] }),
      commitInLane(db, lane("same"), { own: [insert("same-1")], shared: [] }),
      commitInLane(db, lane("same"), { own: [insert("same-2")], shared: [] }),
      commitInLane(db, lane("other"), { own: [insert("other")], shared: [] }),
    ]);
    const written = [...(await transactions()).values()];
    expect(written).toEqual([["first"], ["other", "same-1"], ["same-2"]]);
  });

  it("a shared flight runs every member's own statements, then every member's shared ones", async () => {
    const send = (name: string) =>
      commitInLane(db, lane(name), { own: [insert(`own-${name}`)], shared: [insert(`shared-${name}`)] });
    await Promise.all(["a", "c", "b"].map(send));
    const written = [...(await transactions()).values()];
    expect(written).toEqual([
      ["own-a", "shared-a"],
      ["own-b", "own-c", "shared-b", "shared-c"],
    ]);
  });

  it("a flight that waits for a row another transaction holds does not hold the lane", async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("insert into lane_rows (name) values ('held')");
      let stalledLanded = false;
      const stalled = commitInLane(db, lane("held"), { own: [insert("held")], shared: [] }).then(
        () => (stalledLanded = true),
        (error: unknown) => {
          stalledLanded = true;
          throw error;
        },
      );
      await Promise.all(
        ["a", "b", "c"].map((name) => commitInLane(db, lane(name), { own: [insert(name)], shared: [] })),
      );
      expect(stalledLanded).toBe(false);
      await holder.query("rollback");
      await stalled;
    } finally {
      await holder.end();
    }
    expect([...(await transactions()).values()].flat().sort()).toEqual(["a", "b", "c", "held"]);
  });

  it("statements that run again are prepared on their connection, to be planned once there", async () => {
    const preparedHere: FlightStatement = {
      sql: `insert into lane_rows (name)
        select 'prepared ' || count(*) from pg_prepared_statements where statement = $1`,
      parameters: [insert("").sql],
    };
    // A text is named from its second run on (src/db/pg-statements.ts).
    await commitInOneFlight(db, [insert("first")]);
    await commitInOneFlight(db, [insert("second"), preparedHere]);
    const names = [...(await transactions()).values()].flat();
    expect(names).toEqual(["first", "second", "prepared 1"]);
  });

  it("the lane is free again once its flights have landed", async () => {
    await Promise.all(
      ["a", "b", "c"].map((name) => commitInLane(db, lane(name), { own: [insert(name)], shared: [] })),
    );
    await commitInLane(db, lane("d"), { own: [insert("d")], shared: [] });
    const written = [...(await transactions()).values()];
    expect(written).toEqual([["a"], ["b", "c"], ["d"]]);
  });
});
