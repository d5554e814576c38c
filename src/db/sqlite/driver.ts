/**
 * Kysely's SQLite driver, with group commit. SQLite has one writer, and much of a write
 * transaction's cost is its COMMIT (writing the changed pages to the WAL). So a transaction that
 * finishes does not commit at once: it releases its savepoint and leaves the SQLite transaction
 * open, and the transactions that come next (waiting for the connection already, or arriving
 * before the event loop turns) run in the same SQLite transaction, each in a savepoint of its
 * own. The group commits once the connection is idle and no sync of the log is running (its
 * transactions would wait for the next sync anyway), or when it is large or old enough. A
 * transaction's commit resolves only when its group's COMMIT has, so nothing is reported done
 * before it is durable.
 *
 * - A transaction that fails rolls back to its savepoint: the others of its group are untouched.
 * - If the group's COMMIT fails, every transaction of the group fails with it.
 * - A statement that writes outside a transaction joins the group as a transaction of its own,
 *   and is answered once the group has committed, like any transaction; through
 *   `writeAheadOfCommit`, as soon as it ran.
 * - A plain read may run inside an open group and see its transactions' work, which is committed
 *   unless the COMMIT itself fails (a disk error), when every writer of the group is told so.
 * - Plain reads while no group is open share a read transaction until the event loop's turn ends
 *   or a write begins: they see the database as the turn's first read found it.
 */

import { resolve } from "node:path";
import type SqliteDatabase from "better-sqlite3";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
} from "kysely";
import { readRows } from "./rows.js";
import { FALLBACK_AUTOCHECKPOINT_PAGES, WalCheckpointer } from "./wal-checkpointer.js";
import { type CommitWaiter, WalSync } from "./wal-sync.js";

export interface SqliteDriverOptions {
  /** Checkpoint the log on a thread of its own (wal-checkpointer.ts), telling `onFailure` of failures. */
  backgroundCheckpoints?: { onFailure: (message: string) => void };
}

/** A group commits once it holds this many transactions... */
const MAX_GROUP_TRANSACTIONS = 64;
/** ...or once it has been open this long, so no transaction waits long for its commit. */
const MAX_GROUP_MS = 20;

interface Group {
  openedAt: number;
  committed: CommitWaiter[];
}

/**
 * One holder of the connection at a time, in arrival order, except that those who ask with
 * priority go before all who do not.
 */
class FifoMutex {
  #locked = false;
  readonly #queue: Array<() => void> = [];
  readonly #priorityQueue: Array<() => void> = [];

  get waiting(): number {
    return this.#queue.length + this.#priorityQueue.length;
  }

  /** Takes the lock if it is free, at once. */
  tryLock(): boolean {
    if (this.#locked) return false;
    this.#locked = true;
    return true;
  }

  lock(priority = false): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => (priority ? this.#priorityQueue : this.#queue).push(resolve));
  }

  unlock(): void {
    const next = this.#priorityQueue.shift() ?? this.#queue.shift();
    if (next) next();
    else this.#locked = false;
  }
}

/** One turn on the connection; it ends at the end of a transaction, or when Kysely releases it. */
class Lease implements DatabaseConnection {
  ended = false;

  constructor(readonly driver: GroupCommitSqliteDriver) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, compiledQuery);
  }

  // biome-ignore lint/correctness/useYield: streaming is not supported; Kysely requires the method
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not supported on SQLite here");
  }
}

/** The driver behind each Kysely adapter of a group-commit SQLite database (`runAtOnce`). */
const driversByAdapter = new WeakMap<object, GroupCommitSqliteDriver>();

/** Makes `runAtOnce` find `driver` for the Kysely instance whose adapter is `adapter`. */
export function registerAdapter(adapter: object, driver: GroupCommitSqliteDriver): void {
  driversByAdapter.set(adapter, driver);
}

export function startBackgroundCheckpoints(db: { getExecutor(): { adapter: object } }): void {
  driversByAdapter.get(db.getExecutor().adapter)?.startBackgroundCheckpoints();
}

/**
 * Runs a compiled statement on SQLite at once, without Kysely's executor (a chain of promises
 * per statement that cost more than a small indexed statement itself), where that is what the
 * executor would do: a statement of the transaction holding the connection, or a read while no
 * one holds it. Otherwise, and on PostgreSQL, `undefined`: the caller goes through Kysely.
 */
export function runAtOnce<R>(
  db: { getExecutor(): { adapter: object }; isTransaction: boolean },
  query: CompiledQuery<R>,
): QueryResult<R> | undefined {
  return driversByAdapter.get(db.getExecutor().adapter)?.runAtOnce(query, db.isTransaction);
}

/**
 * Runs a write outside any transaction and answers it as soon as it ran; it commits with its
 * group all the same. For a lease on queued work, which need not be on disk before the work
 * starts: if its COMMIT is lost (a crash, a disk error), the lease goes with it and the work is
 * due again, as it is anyway when a crash leaves a lease to run out. Until the COMMIT, this
 * process holds SQLite's write lock, so no other process can claim the same rows meanwhile.
 * Waiting for the commit and the sync of the log took a claim 4 ms, while the worker sat idle.
 * `undefined` on PostgreSQL (and inside a transaction): the caller runs the statement as usual.
 */
export function writeAheadOfCommit<R>(
  db: {
    getExecutor(): {
      adapter: object;
      provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T>;
    };
    isTransaction: boolean;
  },
  query: CompiledQuery<R>,
): Promise<QueryResult<R>> | undefined {
  const executor = db.getExecutor();
  const driver = driversByAdapter.get(executor.adapter);
  if (!driver || db.isTransaction) return undefined;
  return executor.provideConnection((connection) => driver.writeAheadOfCommit<R>(connection as Lease, query));
}

export class GroupCommitSqliteDriver implements Driver {
  readonly #open: () => SqliteDatabase.Database;
  readonly #mutex = new FifoMutex();
  #db: SqliteDatabase.Database | undefined;
  #group: Group | undefined;
  #inTransaction = false;
  #idleCommitScheduled = false;
  /** A sync ended while the connection was held: the group commits at the end of this turn. */
  #commitDue = false;
  /** A read transaction is open (`#readOutsideTransaction`). */
  #readOpen = false;
  #walSync: WalSync | undefined;
  readonly #options: SqliteDriverOptions;
  #checkpointer: WalCheckpointer | undefined;

  #initialised: Promise<void> | undefined;

  constructor(open: () => SqliteDatabase.Database, options: SqliteDriverOptions = {}) {
    this.#open = open;
    this.#options = options;
  }

  /** Opens the connection once, however many Kysely instances share this driver (`priorityLane`). */
  init(): Promise<void> {
    this.#initialised ??= this.#initialise();
    return this.#initialised;
  }

  /**
   * This driver, for a second Kysely instance whose statements and transactions take the
   * connection before any that were waiting without priority. The delivery worker's work goes
   * through it: under a burst of sends, the API's transactions queue up by the dozen, and a
   * delivery that waited behind all of them each time would move a few hundred messages a second.
   * Closing stays with the instance that owns the driver.
   */
  priorityLane(): Driver {
    return {
      init: () => this.init(),
      acquireConnection: () => this.#acquire(true),
      beginTransaction: () => this.beginTransaction(),
      commitTransaction: (connection) => this.commitTransaction(connection),
      rollbackTransaction: (connection) => this.rollbackTransaction(connection),
      releaseConnection: (connection) => this.releaseConnection(connection),
      destroy: async () => {},
    };
  }

  async #initialise(): Promise<void> {
    const db = this.#open();
    this.#db = db;
    const journal = db.pragma("journal_mode", { simple: true });
    const synchronous = db.pragma("synchronous", { simple: true });
    // NORMAL (1) leaves the WAL unsynced at COMMIT: the driver syncs it before answering.
    if (!db.memory && journal === "wal" && synchronous === 1) {
      this.#walSync = new WalSync(`${resolve(db.name)}-wal`, () => this.#commitAfterSync());
    }
  }

  /**
   * Starts checkpointing on a thread of its own (wal-checkpointer.ts), if the options ask for it.
   * Called once the schema is up to date, so that processes starting together on a new file
   * create and migrate it exactly as they would without the thread.
   */
  startBackgroundCheckpoints(): void {
    const background = this.#options.backgroundCheckpoints;
    const db = this.#db;
    if (!db || db.memory || !background || this.#checkpointer) return;
    if (db.pragma("journal_mode", { simple: true }) !== "wal") return;
    this.#checkpointer = new WalCheckpointer(resolve(db.name), background.onFailure);
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.#acquire(false);
  }

  async #acquire(priority: boolean): Promise<DatabaseConnection> {
    await this.#mutex.lock(priority);
    return new Lease(this);
  }

  async beginTransaction(): Promise<void> {
    this.#openGroup();
    this.#exec("savepoint grouped_transaction");
    this.#inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const group = this.#requireGroup();
    this.#exec("release grouped_transaction");
    this.#inTransaction = false;
    const committed = new Promise<void>((resolve, reject) => group.committed.push({ resolve, reject }));
    this.#endTurn(connection as Lease);
    return committed;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#exec("rollback to grouped_transaction");
    this.#exec("release grouped_transaction");
    this.#inTransaction = false;
    this.#endTurn(connection as Lease);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.ended) return; // its transaction ended the turn already
    if (this.#inTransaction) {
      // Only if a commit or rollback itself failed: undo what is left of the transaction.
      this.#exec("rollback to grouped_transaction");
      this.#exec("release grouped_transaction");
      this.#inTransaction = false;
    }
    this.#endTurn(lease);
  }

  async destroy(): Promise<void> {
    this.#endRead();
    if (this.#group) this.#commitGroup();
    await this.#walSync?.close();
    await this.#checkpointer?.close();
    this.#db?.close();
  }

  /** See the function `runAtOnce`. */
  runAtOnce<R>(query: CompiledQuery<R>, inTransaction: boolean): QueryResult<R> | undefined {
    // Only the holder of the connection runs statements in the open transaction: others wait
    // for the connection before they begin.
    if (inTransaction) return this.#inTransaction ? this.#run<R>(query) : undefined;
    if (!SelectQueryNode.is(query.query) || !this.#mutex.tryLock()) return undefined;
    try {
      return this.#readOutsideTransaction<R>(query);
    } finally {
      this.#mutex.unlock();
    }
  }

  /** Runs one statement for the holder of `lease`. */
  async execute<R>(lease: Lease, compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (lease.ended) throw new Error("a statement after its connection was released");
    if (this.#inTransaction) return this.#run<R>(compiledQuery);
    if (SelectQueryNode.is(compiledQuery.query)) return this.#readOutsideTransaction<R>(compiledQuery);
    const { result, committed } = this.#writeAlone<R>(lease, compiledQuery);
    await committed;
    return result;
  }

  /** See the function `writeAheadOfCommit`. */
  async writeAheadOfCommit<R>(lease: Lease, compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (lease.ended) throw new Error("a statement after its connection was released");
    if (this.#inTransaction) throw new Error("writeAheadOfCommit inside a transaction");
    const { result, committed } = this.#writeAlone<R>(lease, compiledQuery);
    // A failed COMMIT fails the group's transactions; this write's lease is simply gone.
    committed.catch(() => {});
    return result;
  }

  /** A write on its own: a transaction of one statement, in the group like any other. */
  #writeAlone<R>(
    lease: Lease,
    compiledQuery: CompiledQuery,
  ): { result: QueryResult<R>; committed: Promise<void> } {
    this.#openGroup();
    this.#exec("savepoint grouped_transaction");
    let result: QueryResult<R>;
    try {
      result = this.#run<R>(compiledQuery);
    } catch (error) {
      this.#exec("rollback to grouped_transaction");
      this.#exec("release grouped_transaction");
      throw error;
    }
    this.#exec("release grouped_transaction");
    const group = this.#requireGroup();
    const committed = new Promise<void>((resolve, reject) => group.committed.push({ resolve, reject }));
    this.#endTurn(lease);
    return { result, committed };
  }

  #run<R>(compiledQuery: CompiledQuery): QueryResult<R> {
    const { sql, parameters } = compiledQuery;
    const statement = this.#database().prepare(sql);
    if (statement.reader) return { rows: readRows<R>(statement, parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  /**
   * A read outside the transactions. On its own, each read would take and drop SQLite's read
   * locks, system calls on the file and its shared memory that cost more than a small indexed
   * read; so the first read of a turn of the event loop opens a read transaction, which the reads
   * after it share until the turn ends or a write begins. No snapshot is older than one turn.
   */
  #readOutsideTransaction<R>(query: CompiledQuery): QueryResult<R> {
    if (!this.#group && !this.#readOpen) {
      this.#exec("begin");
      this.#readOpen = true;
      setImmediate(() => this.#endRead());
    }
    return this.#run<R>(query);
  }

  #endRead(): void {
    if (!this.#readOpen) return;
    this.#readOpen = false;
    this.#exec("commit");
  }

  #openGroup(): void {
    if (this.#group) return;
    this.#endRead();
    // IMMEDIATE takes the write lock up front: other processes wait on busy_timeout instead
    // of failing with SQLITE_BUSY when a read turns into a write.
    this.#exec("begin immediate");
    this.#group = { openedAt: Date.now(), committed: [] };
  }

  /**
   * Passes the connection on (to the next in line, if any). An open group commits now if it is
   * full or old, or if a sync ended while the connection was busy; else once the connection is
   * idle: after the event loop's current turn.
   */
  #endTurn(lease: Lease): void {
    lease.ended = true;
    const group = this.#group;
    if (
      group &&
      (this.#commitDue ||
        group.committed.length >= MAX_GROUP_TRANSACTIONS ||
        Date.now() - group.openedAt >= MAX_GROUP_MS)
    ) {
      this.#commitGroup();
      if (this.#mutex.waiting > 0) {
        // The connection passes from holder to holder in microtasks, so a queue of transactions
        // would run end to end without the event loop reading a socket. After each full group,
        // the next holder waits one turn: replies from carriers get read, and the delivery
        // worker's transactions they start (the priority lane) go first.
        setImmediate(() => this.#handOn());
        return;
      }
    }
    this.#handOn();
  }

  #handOn(): void {
    this.#mutex.unlock();
    if (this.#group && !this.#idleCommitScheduled) {
      this.#idleCommitScheduled = true;
      setImmediate(() => this.#commitIfIdle());
    }
  }

  #commitIfIdle(): void {
    this.#idleCommitScheduled = false;
    // While the log is being synced, a commit would wait for the next sync anyway: the group
    // stays open, gathering more transactions for one COMMIT, until the sync ends (or it is full
    // or old). Its transactions are answered no later than they would have been.
    if (this.#walSync?.syncing) return;
    // Held by someone: the group goes on, and their turn's end looks again.
    if (!this.#group || !this.#mutex.tryLock()) return;
    this.#commitHeld();
  }

  /** The sync ended: the open group commits now, or when the turn holding the connection ends. */
  #commitAfterSync(): void {
    if (!this.#group) return;
    if (this.#mutex.tryLock()) this.#commitHeld();
    else this.#commitDue = true;
  }

  /** Commits the open group; the caller has just taken the connection. */
  #commitHeld(): void {
    try {
      this.#commitGroup();
    } finally {
      this.#mutex.unlock();
    }
  }

  #commitGroup(): void {
    const group = this.#requireGroup();
    this.#group = undefined;
    this.#commitDue = false;
    try {
      this.#exec("commit");
    } catch (error) {
      if (this.#database().inTransaction) this.#exec("rollback");
      for (const waiter of group.committed) waiter.reject(error);
      return;
    }
    if (this.#walSync) this.#walSync.afterCommit(group.committed);
    else for (const waiter of group.committed) waiter.resolve();
  }

  #requireGroup(): Group {
    if (!this.#group) throw new Error("no transaction is open");
    return this.#group;
  }

  #exec(sql: string): void {
    this.#database().prepare(sql).run();
  }

  #database(): SqliteDatabase.Database {
    if (!this.#db) throw new Error("the SQLite driver is not initialised");
    return this.#db;
  }
}
