import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import SqliteDatabase from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, priorityLaneOf } from "../../src/db/database.js";
import { prepareQuery } from "../../src/db/prepared.js";
import { writeAheadOfCommit } from "../../src/db/sqlite/driver.js";

interface Tables {
  items: { id: number; label: string };
  children: { id: number; parent_id: number };
}

describe("SQLite group commit", () => {
  let folder: string;
  let path: string;
  let db: Kysely<Tables>;
  /** A second connection, as another process has: it sees only what is committed. */
  let outside: SqliteDatabase.Database;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "dakiya-driver-"));
    path = join(folder, "test.db");
    db = (await openDatabase(`sqlite:${path}`)).db as unknown as Kysely<Tables>;
    await sql`create table items (id integer primary key, label text not null)`.execute(db);
    await sql`create table children (
      id integer primary key,
      parent_id integer not null references items (id) deferrable initially deferred
    )`.execute(db);
    outside = new SqliteDatabase(path, { readonly: true });
  });

  afterAll(async () => {
    outside?.close();
    await db?.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  const committedIds = (table: "items" | "children") =>
    (outside.prepare(`select id from ${table} order by id`).all() as { id: number }[]).map((row) => row.id);

  it("resolves each of many concurrent transactions only once its work is committed", async () => {
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    await Promise.all(
      ids.map((id) =>
        db
          .transaction()
          .execute((trx) =>
            trx
              .insertInto("items")
              .values({ id, label: `item ${id}` })
              .execute(),
          )
          .then(() => {
            // Another connection sees the row the moment the transaction has resolved.
            expect(outside.prepare("select id from items where id = ?").get(id)).toEqual({ id });
          }),
      ),
    );
    expect(committedIds("items")).toEqual(ids);
  });

  it("rolls back a failing transaction alone; the others of its group commit", async () => {
    const results = await Promise.allSettled(
      [1001, 1002, 1003, 1004].map((id) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto("items").values({ id, label: "grouped" }).execute();
          if (id === 1002) throw new Error("this one fails");
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(committedIds("items").filter((id) => id > 1000)).toEqual([1001, 1003, 1004]);
  });

  it("fails every transaction of a group whose COMMIT fails, and keeps none of their work", async () => {
    // A deferred foreign key is checked at COMMIT: one bad row fails the whole group's COMMIT.
    const results = await Promise.allSettled(
      [2001, 2002, 2003].map((id) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto("items").values({ id, label: "doomed group" }).execute();
          await trx
            .insertInto("children")
            .values({ id, parent_id: id === 2002 ? 999_999 : id })
            .execute();
        }),
      ),
    );
    expect(results.every((r) => r.status === "rejected")).toBe(true);
    expect(committedIds("items").filter((id) => id > 2000)).toEqual([]);
    expect(committedIds("children")).toEqual([]);

    // The connection is usable again afterwards.
    await db
      .transaction()
      .execute((trx) => trx.insertInto("items").values({ id: 2100, label: "after" }).execute());
    expect(committedIds("items")).toContain(2100);
  });

  it("answers a write outside a transaction once it is committed, in a group like any other", async () => {
    const grouped = db
      .transaction()
      .execute((trx) => trx.insertInto("items").values({ id: 3001, label: "grouped" }).execute());
    const plain = db.updateTable("items").set({ label: "plain write" }).where("id", "=", 1).execute();
    await plain;
    expect(outside.prepare("select label from items where id = 1").get()).toEqual({ label: "plain write" });
    await grouped;
    expect(committedIds("items")).toContain(3001);
  });

  it("answers a write ahead of its commit when asked, and commits it with its group", async () => {
    const query = sql<{ id: number }>`update items set label = 'leased' where id = 1 returning id`.compile(
      db,
    );
    const answer = writeAheadOfCommit(priorityLaneOf(db as never), query);
    expect(answer).toBeDefined();
    expect((await answer)?.rows).toEqual([{ id: 1 }]);
    // Answered, and not yet committed: another process does not see it...
    expect(outside.prepare("select label from items where id = 1").get()).toEqual({ label: "plain write" });
    // ...until the group commits, once the turn is over.
    await new Promise((resolve) => setImmediate(resolve));
    expect(outside.prepare("select label from items where id = 1").get()).toEqual({ label: "leased" });
    await db.updateTable("items").set({ label: "plain write" }).where("id", "=", 1).execute();
    // Inside a transaction it does not apply: the transaction's own commit decides.
    await db.transaction().execute(async (trx) => {
      expect(writeAheadOfCommit(trx, query)).toBeUndefined();
    });
  });

  it("fails a refused write alone, leaving the rest of its group", async () => {
    const results = await Promise.allSettled([
      db
        .transaction()
        .execute((trx) => trx.insertInto("items").values({ id: 4001, label: "in a group" }).execute()),
      db.insertInto("items").values({ id: 1, label: "a duplicate id" }).execute(),
      db.insertInto("items").values({ id: 4002, label: "on its own" }).execute(),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(committedIds("items").filter((id) => id > 4000)).toEqual([4001, 4002]);
    expect(outside.prepare("select label from items where id = 1").get()).toEqual({ label: "plain write" });
  });

  it("runs the priority lane's transactions before those that were waiting without priority, sharing their commits", async () => {
    const priority = priorityLaneOf(db as never) as unknown as Kysely<Tables>;
    const order: string[] = [];
    const holds = (label: string, id: number, lane: Kysely<Tables>) =>
      lane.transaction().execute(async (trx) => {
        await trx.insertInto("items").values({ id, label }).execute();
        // Yield inside the transaction, as a request does between statements, so others queue up.
        await new Promise((resolve) => setImmediate(resolve));
        order.push(label);
      });
    const normal = Array.from({ length: 10 }, (_, i) => holds(`api ${i}`, 500 + i, db));
    const urgent = holds("worker", 600, priority);
    await Promise.all([...normal, urgent]);
    // The first normal transaction held the connection when the worker's arrived; it went next.
    expect(order.slice(0, 2)).toEqual(["api 0", "worker"]);
    expect(committedIds("items")).toEqual(expect.arrayContaining([500, 509, 600]));
    // The same connection and data: what one lane wrote, the other reads.
    const { rows } = await sql<{
      n: number;
    }>`select count(*) as n from items where id between 500 and 600`.execute(priority);
    expect(rows).toEqual([{ n: 11 }]);
  });

  it("runs compiled statements at once only where Kysely would: a read never sees another transaction's unfinished work", async () => {
    const labelOf = prepareQuery<{ id: number }, { label: string }>((kysely, param) =>
      (kysely as unknown as Kysely<Tables>).selectFrom("items").select("label").where("id", "=", param("id")),
    );
    const seen: string[] = [];
    let read: Promise<unknown> = Promise.resolve();
    const failing = db.transaction().execute(async (trx) => {
      await trx.insertInto("items").values({ id: 700, label: "rolled back" }).execute();
      // Another request reads while this transaction holds the connection, half done.
      read = labelOf.execute(db as never, { id: 700 }).then((result) => {
        seen.push(...result.rows.map((row) => row.label));
      });
      await new Promise((resolve) => setImmediate(resolve));
      // Inside the transaction the same statement runs at once and sees its own write.
      const own = await labelOf.execute(trx as never, { id: 700 });
      expect(own.rows).toEqual([{ label: "rolled back" }]);
      throw new Error("roll back");
    });
    await expect(failing).rejects.toThrow("roll back");
    await read;
    expect(seen).toEqual([]);
  });

  describe("reads outside a transaction", () => {
    /** A connection of another process, which writes. */
    let other: SqliteDatabase.Database;
    beforeAll(() => {
      other = new SqliteDatabase(path, { timeout: 5000 });
    });
    afterAll(() => other?.close());

    const labelsFrom = async (first: number) =>
      (
        await db
          .selectFrom("items")
          .select("label")
          .where("id", ">=", first)
          .where("id", "<", first + 10)
          .orderBy("id")
          .execute()
      ).map((row) => row.label);
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

    it("share one snapshot within a turn of the event loop, and see other processes' commits from the next", async () => {
      await nextTurn();
      expect(await labelsFrom(90800)).toEqual([]);
      other.prepare("insert into items (id, label) values (90800, 'from another process')").run();
      // The turn's reads share one read transaction (one set of locks), so they see one snapshot.
      expect(await labelsFrom(90800)).toEqual([]);
      await nextTurn();
      expect(await labelsFrom(90800)).toEqual(["from another process"]);
    });

    it("give way to a write in the same turn, even when another process has committed since they read", async () => {
      await nextTurn();
      expect(await labelsFrom(90810)).toEqual([]);
      other.prepare("insert into items (id, label) values (90810, 'from another process')").run();
      // The write cannot run in the read's snapshot, which is older than the other's commit.
      await db.insertInto("items").values({ id: 90811, label: "after a read" }).execute();
      expect(committedIds("items")).toEqual(expect.arrayContaining([90810, 90811]));
      expect(await labelsFrom(90810)).toEqual(["from another process", "after a read"]);
    });
  });
});

describe("opening a SQLite file", () => {
  /**
   * Another connection, on a thread of its own as another process would be, writes to `path`
   * for `holdMs`; resolves once it holds the write lock.
   */
  async function writerHoldingLock(path: string, holdMs: number): Promise<Worker> {
    const worker = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       const Database = require(workerData.driver);
       const db = new Database(workerData.path);
       db.exec("begin immediate");
       db.exec("insert into items (label) values ('from the other writer')");
       parentPort.postMessage("locked");
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
       db.exec("commit");
       db.close();`,
      {
        eval: true,
        workerData: { path, holdMs, driver: createRequire(import.meta.url).resolve("better-sqlite3") },
      },
    );
    await new Promise((resolve, reject) => worker.once("message", resolve).once("error", reject));
    return worker;
  }

  it("waits for another writer's lock while switching a file to WAL mode, as for any other lock", async () => {
    const folder = mkdtempSync(join(tmpdir(), "dakiya-open-"));
    const path = join(folder, "new.db");
    // A file in SQLite's default journal mode, as a first process leaves it before switching.
    const plain = new SqliteDatabase(path);
    plain.exec("create table items (id integer primary key, label text not null)");
    plain.close();
    const other = writerHoldingLock(path, 300);
    const exited = other.then((worker) => new Promise((resolve) => worker.once("exit", resolve)));
    await other;
    const { db } = await openDatabase(`sqlite:${path}`);
    try {
      // SQLite alone answers SQLITE_BUSY here at once, whatever its busy timeout.
      const { rows } = await sql<{ label: string }>`select label from items`.execute(db);
      expect(rows).toEqual([{ label: "from the other writer" }]);
      const { rows: mode } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
      expect(mode).toEqual([{ journal_mode: "wal" }]);
    } finally {
      await exited;
      await db.destroy();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
