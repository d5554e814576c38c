import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, linkSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { ConfigError } from "../errors.js";

export interface BackupResult {
  /** The database that was copied. */
  source: string;
  /** The copy, an absolute path. */
  path: string;
  bytes: number;
}

/** As many pages as SQLite takes in one step: the whole database in one read transaction. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the SQLite database of `databaseUrl` to `out` while servers and workers keep writing
 * to it, through SQLite's online backup API. The copy is taken in one step, inside one read
 * transaction: it holds exactly the transactions committed when the step began (in WAL mode
 * the writers go on meanwhile), where a copy in small steps would restart at every write of
 * another process. It is written beside `out` under a temporary name and moved into place once
 * complete, so `out` is never a half copy; an existing `out` is replaced only with `force`.
 */
export async function backupSqlite(
  databaseUrl: string,
  out: string,
  options: { force: boolean },
): Promise<BackupResult> {
  if (!databaseUrl.startsWith("sqlite:")) {
    throw new ConfigError(
      "dakiya backup copies a SQLite database; on PostgreSQL use pg_dump (docs/operations.md, Backups)",
    );
  }
  const source = databaseUrl.slice("sqlite:".length);
  if (source === "" || source === ":memory:") {
    throw new ConfigError("DATABASE_URL names no SQLite file to back up");
  }
  if (!existsSync(source)) throw new ConfigError(`no SQLite database at ${source}`);
  const path = resolve(out);
  if (resolve(source) === path) throw new ConfigError("--out must not be the database itself");
  if (!existsSync(dirname(path)))
    throw new ConfigError(`the folder of --out does not exist: ${dirname(path)}`);
  if (!options.force && existsSync(path)) {
    throw new ConfigError(`${path} exists; choose another --out, or add --force to replace it`);
  }

  const partial = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.partial`);
  const database = new SqliteDatabase(source, { fileMustExist: true });
  try {
    // Servers and workers hold the write lock briefly and often; the copy only reads.
    database.pragma("busy_timeout = 5000");
    await database.backup(partial, { progress: () => ALL_PAGES });
    // The copy holds what the database does (key hashes, sealed secrets): its owner's alone.
    chmodSync(partial, 0o600);
  } catch (error) {
    removeDatabaseFiles(partial);
    throw error;
  } finally {
    database.close();
  }

  try {
    if (options.force) {
      // A stale -wal beside the old file would be replayed over the new one when it is opened.
      removeDatabaseFiles(path);
      renameSync(partial, path);
    } else {
      // A link fails if `out` appeared meanwhile: it is never overwritten without --force.
      linkSync(partial, path);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new ConfigError(`${path} exists; choose another --out, or add --force to replace it`);
    }
    throw error;
  } finally {
    removeDatabaseFiles(partial);
  }
  return { source: resolve(source), path, bytes: statSync(path).size };
}

function removeDatabaseFiles(path: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
}
