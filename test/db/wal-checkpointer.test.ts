import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { startBackgroundCheckpoints } from "../../src/db/sqlite/driver.js";

/*
 * `serve` and `worker` checkpoint SQLite's write-ahead log on a thread of their own, so the copy
 * into the database file and its fsyncs never stop the event loop.
 */

const dir = mkdtempSync(join(tmpdir(), "dakiya-checkpoint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Rows {
  t: { body: string };
}

/** About 1.2 MB of rows: some 300 pages, under SQLite's own threshold of 1,000. */
async function writeRows(db: Kysely<Rows>): Promise<void> {
  await db.schema.createTable("t").ifNotExists().addColumn("body", "text").execute();
  for (let batch = 0; batch < 10; batch++) {
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 30; i++) {
        await trx
          .insertInto("t")
          .values({ body: `${batch}.${i}`.padEnd(4000, "x") })
          .execute();
      }
    });
  }
}

async function open(name: string, background: boolean) {
  const path = join(dir, name);
  const failures: string[] = [];
  const { db } = await openDatabase(`sqlite:${path}`, {
    sqlite: background ? { backgroundCheckpoints: { onFailure: (failure) => failures.push(failure) } } : {},
  });
  return { db: db as unknown as Kysely<Rows>, path, failures };
}

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}

/** Frames in the log now, from a connection of the test's own (a PASSIVE checkpoint reports them). */
function framesInLog(path: string): number {
  const reader = new SqliteDatabase(path);
  try {
    const [result] = reader.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
    return result?.log ?? -1;
  } finally {
    reader.close();
  }
}

describe("background checkpoints", () => {
  it("copy committed pages into the database file without the serving connection checkpointing", async () => {
    const { db, path, failures } = await open("background.db", true);
    await writeRows(db);
    // As `serve` does once the schema is up to date.
    startBackgroundCheckpoints(db);
    // The serving connection's threshold is 16,384 pages; only the thread can have copied these.
    expect(await waitFor(() => statSync(path).size > 1_000_000, 3_000)).toBe(true);
    const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
    expect(rows).toEqual([{ n: 300 }]);
    await db.destroy();
    expect(failures).toEqual([]);
  });

  it("let the log start over once it has been copied, and stop with the database", async () => {
    const { db, path, failures } = await open("restart.db", true);
    await writeRows(db);
    startBackgroundCheckpoints(db);
    expect(await waitFor(() => statSync(path).size > 1_200_000, 3_000)).toBe(true);
    // The checkpoint that copied them has finished well within three of its intervals.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A write that finds the whole log copied starts it over from its first frame.
    await db.insertInto("t").values({ body: "after" }).execute();
    expect(framesInLog(path)).toBeLessThan(10);
    await db.destroy();
    expect(failures).toEqual([]);
    // Nothing holds the file after destroy: another connection checkpoints and truncates it.
    const other = new SqliteDatabase(path);
    expect(other.pragma("wal_checkpoint(TRUNCATE)")).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    other.close();
  });

  it("are off unless asked for: the same writes stay in the log", async () => {
    const { db, path } = await open("foreground.db", false);
    await writeRows(db);
    startBackgroundCheckpoints(db);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(statSync(path).size).toBeLessThan(100_000);
    expect(framesInLog(path)).toBeGreaterThan(250);
    await db.destroy();
  });
});
