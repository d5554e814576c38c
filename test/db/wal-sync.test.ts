import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it, vi } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { type CommitWaiter, WalSync } from "../../src/db/sqlite/wal-sync.js";

/* Commits on SQLite are answered only after the WAL is synced, which runs off the event loop. */

const dir = mkdtempSync(join(tmpdir(), "dakiya-wal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function waiter(log: string[], name: string): CommitWaiter {
  return { resolve: () => log.push(`${name} ok`), reject: (error) => log.push(`${name} ${String(error)}`) };
}

describe("WalSync", () => {
  it("answers every waiter after a sync that began after its commit, batching those that arrive meanwhile", async () => {
    const wal = join(dir, "a.db-wal");
    writeFileSync(wal, "frames");
    const sync = new WalSync(wal);
    const log: string[] = [];
    sync.afterCommit([waiter(log, "first")]);
    sync.afterCommit([waiter(log, "second"), waiter(log, "third")]);
    await sync.close();
    expect(log).toEqual(["first ok", "second ok", "third ok"]);
  });

  it("fails the waiters when the WAL cannot be synced, and goes on with later commits", async () => {
    const wal = join(dir, "missing.db-wal");
    const sync = new WalSync(wal);
    const log: string[] = [];
    sync.afterCommit([waiter(log, "lost")]);
    await sync.close();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^lost Error: ENOENT/);
    writeFileSync(wal, "frames");
    sync.afterCommit([waiter(log, "later")]);
    await sync.close();
    expect(log[1]).toBe("later ok");
  });
});

describe("the SQLite database", () => {
  it("runs with synchronous=NORMAL and the driver's WAL sync, and a committed write is in the file", async () => {
    const path = join(dir, "b.db");
    const { db } = await openDatabase(`sqlite:${path}`);
    // NORMAL (1): COMMIT does not sync, so the driver must; and it does, once the WAL has a commit.
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
    expect(rows).toEqual([{ synchronous: 1 }]);
    const synced = vi.spyOn(WalSync.prototype, "afterCommit");
    await db.schema.createTable("t").addColumn("v", "integer").execute();
    await db.transaction().execute((trx) =>
      trx
        .insertInto("t" as never)
        .values({ v: 1 } as never)
        .execute(),
    );
    expect(synced).toHaveBeenCalled();
    synced.mockRestore();
    const other = new SqliteDatabase(path, { readonly: true });
    expect(other.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(other.prepare("select v from t").all()).toEqual([{ v: 1 }]);
    other.close();
    await db.destroy();
    const reopened = new SqliteDatabase(path);
    expect(reopened.prepare("select v from t").all()).toEqual([{ v: 1 }]);
    reopened.close();
  });

  it("commits no group while the log is being synced, and answers every transaction once it is on disk", async () => {
    const path = join(dir, "c.db");
    const { db } = await openDatabase(`sqlite:${path}`);
    await db.schema.createTable("t").addColumn("v", "integer").execute();
    // A commit while an earlier one's transactions are still unanswered is a commit during a sync.
    let commits = 0;
    let commitsWhileSyncing = 0;
    let unanswered = 0;
    const afterCommit = WalSync.prototype.afterCommit;
    const spy = vi.spyOn(WalSync.prototype, "afterCommit").mockImplementation(function (
      this: WalSync,
      waiters,
    ) {
      commits += 1;
      if (unanswered > 0) commitsWhileSyncing += 1;
      unanswered += waiters.length;
      const answered = (waiter: CommitWaiter): CommitWaiter => ({
        resolve: () => {
          unanswered -= 1;
          waiter.resolve();
        },
        reject: (error) => {
          unanswered -= 1;
          waiter.reject(error);
        },
      });
      afterCommit.call(this, waiters.map(answered));
    });
    // A transaction a turn of the event loop, none waiting for the one before: under the old
    // rule (commit whenever the connection is idle), each committed on its own, most during a sync.
    const written: Array<Promise<unknown>> = [];
    for (let v = 0; v < 200; v++) {
      written.push(
        db.transaction().execute((trx) =>
          trx
            .insertInto("t" as never)
            .values({ v } as never)
            .execute(),
        ),
      );
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(written);
    spy.mockRestore();
    // None here; a disk whose syncs take longer than a group may stay open (20 ms), as on a loaded
    // machine, closes a few on age (3 of 11 were seen). The old rule committed 93 of 100 groups
    // during a sync, far above half.
    expect(commitsWhileSyncing).toBeLessThanOrEqual(Math.max(3, commits / 2));
    expect(commits).toBeGreaterThan(1);
    expect(commits).toBeLessThan(200);
    await db.destroy();
    const reopened = new SqliteDatabase(path);
    expect(reopened.prepare("select count(*) as n from t").get()).toEqual({ n: 200 });
    reopened.close();
  });
});
