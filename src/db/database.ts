import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type SqliteDatabase from "better-sqlite3";
import { type Driver, Kysely, PostgresDialect, SqliteAdapter, SqliteDialect } from "kysely";
import type pg from "pg";
import { ConfigError } from "../errors.js";
import { RecentMap } from "../lib/recent-map.js";
import type { Database, Db, Dialect } from "./schema.js";
import { GroupCommitSqliteDriver, registerAdapter, type SqliteDriverOptions } from "./sqlite/driver.js";

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** Folder for files that belong with the data (the generated secret); `undefined` for in-memory SQLite. */
  dataDir: string | undefined;
}

const INT8_OID = 20;

// Each engine's driver is loaded by the first database opened on it: a process on SQLite never
// loads pg (nor Node's net and tls with it), one on PostgreSQL never loads the SQLite addon.
let pgModule: Promise<typeof pg> | undefined;
function loadPg(): Promise<typeof pg> {
  pgModule ??= import("pg").then(({ default: pg }) => {
    pg.types.setTypeParser(INT8_OID, (value) => {
      const n = Number(value);
      if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} is beyond a safe integer`);
      return n;
    });
    return pg;
  });
  return pgModule;
}

type SqliteModule = typeof SqliteDatabase;
let sqliteModule: Promise<SqliteModule> | undefined;
function loadSqlite(): Promise<SqliteModule> {
  sqliteModule ??= import("better-sqlite3").then((module) => module.default);
  return sqliteModule;
}

const postgresPools = new WeakMap<Db, pg.Pool>();
const priorityLanes = new WeakMap<Db, Db>();

/**
 * `db`, for work that goes before the requests waiting for SQLite's one connection: the delivery
 * worker's (GroupCommitSqliteDriver.priorityLane). PostgreSQL has a pool and no such queue: `db` itself.
 */
export function priorityLaneOf(db: Db): Db {
  return priorityLanes.get(db) ?? db;
}

/** The pg pool behind a PostgreSQL database opened by `openDatabase`. */
export function postgresPoolOf(db: Db): pg.Pool {
  const pool = postgresPools.get(db);
  if (!pool) throw new Error("not a PostgreSQL database opened by openDatabase");
  return pool;
}

/**
 * Every statement of Dakiya reads by key or in an index's order, but the queues' partial indexes
 * (messages, webhook deliveries) grow and shrink by thousands of rows a second, far faster than
 * autovacuum analyzes them. From statistics taken while a queue was short, PostgreSQL planned each
 * claim as a bitmap scan of the whole backlog and a sort, 5–15 ms a claim under load, where the
 * index read in order takes the oldest few in well under one: a backlog of 120,000 messages
 * drained at 1,400 a second instead of 4,900. So each connection turns bitmap scans off as it
 * opens. A SET, not the startup `options`, which PgBouncer refuses for settings it does not track.
 */
export const POSTGRES_SESSION_SETTINGS = "set enable_bitmapscan = off";

/** `sqlite` applies to SQLite databases only. */
export interface OpenOptions {
  sqlite?: SqliteDriverOptions;
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<DatabaseHandle> {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const pg = await loadPg();
    // Pipeline mode: statements issued together go out together (one round trip, src/db/postgres/one-flight.ts);
    // one at a time, as Kysely issues them, they run as without it.
    const pool = new pg.Pool({ connectionString: url, max: 10, pipeline: true });
    // Queued on the new connection before anything else runs on it.
    pool.on("connect", (client) => {
      client.query(POSTGRES_SESSION_SETTINGS).catch(() => {
        // The connection is broken: the query that follows on it fails and reports it.
      });
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    postgresPools.set(db, pool);
    return { db, dialect: "postgres", dataDir: resolve("data") };
  }
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length);
    if (path === "")
      throw new ConfigError("DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/dakiya.db");
    const inMemory = path === ":memory:";
    if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
    const Sqlite = await loadSqlite();
    const driver = new GroupCommitSqliteDriver(() => openSqlite(Sqlite, path), options.sqlite);
    const db = new Kysely<Database>({ dialect: new GroupCommitSqliteDialect(driver, driver) });
    priorityLanes.set(
      db,
      new Kysely<Database>({ dialect: new GroupCommitSqliteDialect(driver.priorityLane(), driver) }),
    );
    return {
      db,
      dialect: "sqlite",
      dataDir: inMemory ? undefined : dirname(resolve(path)),
    };
  }
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got "${url.split(":")[0]}:…"`);
}

/** How long opening waits for another process's lock (SQLite's `busy_timeout`). */
const BUSY_TIMEOUT_MS = 5000;
const PAGE_CACHE_KIB = 8192;

function openSqlite(Sqlite: SqliteModule, path: string): SqliteDatabase.Database {
  // Other processes (the CLI, a second server) write to the same file: wait for their lock.
  const sqlite = new Sqlite(path, { timeout: BUSY_TIMEOUT_MS });
  switchToWal(Sqlite, sqlite);
  // NORMAL writes the WAL at COMMIT without syncing it; the driver then syncs the WAL on a
  // background thread and answers only after that (sqlite/wal-sync.ts), so an answered request survives
  // a power cut as under FULL, while the event loop never waits on the disk.
  sqlite.pragma("synchronous = NORMAL");
  // Each transaction of a commit group runs in a savepoint, whose sub-journal would otherwise be
  // a temporary file: dozens of write calls per request. Memory is enough for a request's pages.
  sqlite.pragma("temp_store = MEMORY");
  // 8 MiB of page cache, not better-sqlite3's 16: in the bench the server's peak memory is 8 MB
  // lower at the same CPU a request (4 MiB cost CPU; docs/performance.md). A page that drops out
  // is read again from the system's file cache.
  sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  sqlite.pragma("foreign_keys = ON");
  cachePreparedStatements(sqlite);
  return sqlite;
}

/**
 * Puts a file in WAL mode. Switching a file that is not yet in WAL mode (a new one) reads it and
 * then writes it; when another process does the same at that moment, SQLite refuses the write at
 * once rather than wait on `busy_timeout`, as waiting while holding the read could deadlock.
 * So wait and try again here, for as long as `busy_timeout` would have waited.
 */
function switchToWal(Sqlite: SqliteModule, sqlite: SqliteDatabase.Database): void {
  const giveUpAt = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      sqlite.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      const busy = error instanceof Sqlite.SqliteError && error.code.startsWith("SQLITE_BUSY");
      if (!busy || Date.now() >= giveUpAt) throw error;
      // Opening is synchronous (the driver opens on first use) and happens once per connection.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew, and preparing was a sixth of the server's CPU under load.
 * Statements are reusable (Kysely runs them to completion with `all`/`run`), so keep the most
 * recent ones by their SQL text.
 */
function cachePreparedStatements(sqlite: SqliteDatabase.Database): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new RecentMap<string, SqliteDatabase.Statement>(STATEMENT_CACHE_SIZE);
  sqlite.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      cache.set(source, statement);
    }
    return statement;
  }) as typeof sqlite.prepare;
}

/** SQLite through the group-commit driver (`sqlite/driver.ts`). */
class GroupCommitSqliteDialect extends SqliteDialect {
  readonly #driver: Driver;
  readonly #owner: GroupCommitSqliteDriver;

  /** `driver` is `owner` or a lane of it (`priorityLane`). */
  constructor(driver: Driver, owner: GroupCommitSqliteDriver) {
    super({
      database: async () => {
        throw new Error("the group-commit driver opens its own connection");
      },
    });
    this.#driver = driver;
    this.#owner = owner;
  }

  override createDriver(): Driver {
    return this.#driver;
  }

  override createAdapter(): SqliteAdapter {
    const adapter = new TransactionalDdlSqliteAdapter();
    registerAdapter(adapter, this.#owner);
    return adapter;
  }
}

/**
 * SQLite runs DDL in transactions, but Kysely's adapter says it does not, so its migrator would
 * run without one and without a lock: two processes starting at once (a server and the CLI)
 * would both apply the same migration. Inside a transaction (`BEGIN IMMEDIATE`, in sqlite/driver.ts) the
 * second waits for the first and then finds nothing left to do.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
