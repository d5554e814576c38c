import {
  type Compilable,
  type CompiledQuery,
  type Insertable,
  type InsertQueryBuilder,
  type InsertResult,
  PostgresAdapter,
  type QueryResult,
} from "kysely";
import type { Database, DbOrTrx, Dialect } from "./schema.js";
import { runAtOnce } from "./sqlite/driver.js";

/** A value no request sends: marks where a named parameter goes in the compiled query. */
const SLOT = "\u0000dakiya-param:";

interface Compiled<R> {
  query: CompiledQuery<R>;
  /**
   * For each parameter of the compiled query, the name it takes its value from (an index, for a
   * name that is one, so an array of values is read by position), or its constant.
   */
  slots: Array<{ name: string | number } | { value: unknown }>;
}

export interface PreparedQuery<P, R> {
  /** Runs the query on `db` (the database or a transaction) with `params`. */
  execute(db: DbOrTrx, params: P): Promise<QueryResult<R>>;
  /** The query with `params` bound, for `db`'s dialect, to run later (e.g. in a one-flight transaction). */
  compile(db: DbOrTrx, params: P): CompiledQuery<R>;
}

/**
 * A hot-path query built and compiled by Kysely once per dialect rather than on every call:
 * building and compiling cost more than SQLite running a small indexed statement. `build` writes
 * the query as usual, with `param("name")` where a value of the call goes; a value may only
 * stand where Kysely makes it a bound parameter (not in a `limit` or an identifier).
 */
export function prepareQuery<P extends object, R>(
  build: (
    db: DbOrTrx,
    param: <K extends keyof P & string>(name: K) => P[K],
    dialect: Dialect,
  ) => Compilable<R>,
): PreparedQuery<P, R> {
  const byAdapter = new Map<unknown, Compiled<R>>();
  const compile = (db: DbOrTrx, params: P): CompiledQuery<R> => {
    const adapter = db.getExecutor().adapter.constructor;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      const dialect = db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
      const query = build(db, (name) => `${SLOT}${name}` as never, dialect).compile();
      const slots = query.parameters.map((value) =>
        typeof value === "string" && value.startsWith(SLOT)
          ? { name: slotName(value.slice(SLOT.length)) }
          : { value },
      );
      compiled = { query, slots };
      byAdapter.set(adapter, compiled);
    }
    const parameters = compiled.slots.map((slot) =>
      "name" in slot ? (params as Record<string | number, unknown>)[slot.name] : slot.value,
    );
    return { ...compiled.query, parameters };
  };
  return {
    compile,
    execute: (db, params) => executeCompiled(db, compile(db, params)),
  };
}

function slotName(name: string): string | number {
  const index = Number(name);
  return Number.isSafeInteger(index) && String(index) === name ? index : name;
}

/**
 * The ids of a query over a list of ids (`prepareForIds`), by their place in the list: integer
 * keys, which V8 keeps as an array's elements. Named `id0`, `id1`, … they cost a string built and
 * looked up per id and an object of as many named properties: 88 µs a list of 64, against 5–8.
 */
export type IdParams = Record<number, string>;

/**
 * A query over a list of ids (`where id in (…)`), compiled once per count of ids: `build` gets
 * the ids as parameters to put in its list, which may name an id more than once. Run it with
 * `executeForIds`, which passes power-of-two counts only, so the statements stay few.
 */
export function prepareForIds<P extends object, R>(
  build: (
    db: DbOrTrx,
    param: <K extends keyof P & string>(name: K) => P[K],
    ids: string[],
    dialect: Dialect,
  ) => Compilable<R>,
): (count: number) => PreparedQuery<P & IdParams, R> {
  const byCount = new Map<number, PreparedQuery<P & IdParams, R>>();
  return (count) => {
    let query = byCount.get(count);
    if (!query) {
      query = prepareQuery<P & IdParams, R>((db, param, dialect) =>
        build(
          db,
          param as never,
          Array.from({ length: count }, (_, index) => (param as (name: string) => string)(String(index))),
          dialect,
        ),
      );
      byCount.set(count, query);
    }
    return query;
  };
}

/**
 * Runs a query of `prepareForIds` for all of `ids`, each statement with `params`, and answers
 * the rows of all. Up to MAX_CHUNK ids go in one statement, whose list is filled up to a power of
 * two with the last id again (13 ids: one list of 16, not lists of 8, 4 and 1).
 */
export async function executeForIds<P extends object, R>(
  db: DbOrTrx,
  query: (count: number) => PreparedQuery<P & IdParams, R>,
  params: P,
  ids: readonly string[],
): Promise<R[]> {
  const rows: R[] = [];
  for (let start = 0; start < ids.length; start += MAX_CHUNK) {
    const chunk = ids.slice(start, start + MAX_CHUNK);
    const size = 2 ** Math.ceil(Math.log2(chunk.length));
    const last = chunk[chunk.length - 1] as string;
    while (chunk.length < size) chunk.push(last);
    rows.push(...(await query(chunk.length).execute(db, withIds(params, chunk))).rows);
  }
  return rows;
}

/** `params` with `ids` by their place, for a query of `prepareForIds`. */
function withIds<P extends object>(params: P, ids: readonly string[]): P & IdParams {
  const bound: Record<string | number, unknown> = { ...(params as Record<string, unknown>) };
  ids.forEach((id, index) => {
    bound[index] = id;
  });
  return bound as P & IdParams;
}

/** Runs a compiled query on `db`: on SQLite at once where it can (`runAtOnce`), else through Kysely. */
export function executeCompiled<R>(db: DbOrTrx, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  let result: QueryResult<R> | undefined;
  try {
    result = runAtOnce(db, query);
  } catch (error) {
    return Promise.reject(error);
  }
  return result ? Promise.resolve(result) : db.executeQuery<R>(query);
}

type TableName = keyof Database & string;

/**
 * Inserts of whole rows into `table`, compiled once per dialect and set of columns: building a
 * wide insert through Kysely on every call costs more than SQLite storing the row. A row with an
 * `undefined` value (a column left out) goes through Kysely as usual.
 */
export function preparedInsert<T extends TableName>(table: T) {
  const byColumns = new Map<string, PreparedQuery<Record<string, unknown>, never>>();
  const compile = (db: DbOrTrx, row: Insertable<Database[T]>): CompiledQuery<never> => {
    const values = row as Record<string, unknown>;
    const columns = Object.keys(values);
    if (columns.some((column) => values[column] === undefined)) {
      return db
        .insertInto(table)
        .values(row as never)
        .compile() as CompiledQuery<never>;
    }
    const key = columns.join(",");
    let query = byColumns.get(key);
    if (!query) {
      query = prepareQuery<Record<string, unknown>, never>((db, param) =>
        db.insertInto(table).values(Object.fromEntries(columns.map((c) => [c, param(c)])) as never),
      );
      byColumns.set(key, query);
    }
    return query.compile(db, values);
  };
  return {
    compile,
    execute: async (db: DbOrTrx, row: Insertable<Database[T]>): Promise<void> => {
      await executeCompiled(db, compile(db, row));
    },
  };
}

/** The most rows or ids one multi-row statement takes: well under either database's parameter limit. */
const MAX_CHUNK = 128;

/**
 * `items` in chunks of power-of-two sizes, largest first (97 → 64, 32, 1): a multi-row statement
 * of each size has one text, so SQLite prepares a few statements per table once, rather than a
 * statement of tens of kilobytes for each count it sees.
 */
export function inChunks<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let start = 0;
  while (start < items.length) {
    const left = items.length - start;
    const size = Math.min(MAX_CHUNK, 2 ** Math.floor(Math.log2(left)));
    chunks.push(items.slice(start, start + size));
    start += size;
  }
  return chunks;
}

/**
 * The multi-row inserts of each table, compiled once per dialect, row count and set of columns;
 * their parameters are the rows' values one after another, row by row, as an array.
 */
const multiRowInserts = new Map<string, PreparedQuery<unknown[], never>>();

/**
 * Inserts `rows` into `table` in a few multi-row statements (`inChunks`), each compiled once
 * (see `preparedInsert`). Rows whose columns differ, or leave one `undefined`, go through Kysely.
 * With `skipConflictsOn`, a row whose value of that unique column is already taken is left out.
 */
export async function insertRows<T extends TableName>(
  db: DbOrTrx,
  table: T,
  rows: ReadonlyArray<Insertable<Database[T]>>,
  options: { skipConflictsOn?: keyof Database[T] & string } = {},
): Promise<void> {
  const { skipConflictsOn } = options;
  const onConflict = (insert: InsertQueryBuilder<Database, T, InsertResult>) =>
    skipConflictsOn === undefined
      ? insert
      : insert.onConflict((oc) => oc.column(skipConflictsOn as never).doNothing());
  for (const chunk of inChunks(rows as ReadonlyArray<Record<string, unknown>>)) {
    const columns = Object.keys(chunk[0] ?? {});
    const uniform = chunk.every((row) => hasExactly(row, columns));
    if (!uniform) {
      await onConflict(db.insertInto(table).values(chunk as never)).execute();
      continue;
    }
    const key = `${table}:${chunk.length}:${columns.join(",")}:${skipConflictsOn ?? ""}`;
    let insert = multiRowInserts.get(key);
    if (!insert) {
      const width = columns.length;
      insert = prepareQuery<unknown[], never>((db, param) =>
        onConflict(
          db
            .insertInto(table)
            .values(
              chunk.map((_, row) =>
                Object.fromEntries(
                  columns.map((column, i) => [column, param(String(row * width + i) as never)]),
                ),
              ) as never,
            ),
        ),
      );
      multiRowInserts.set(key, insert);
    }
    const values: unknown[] = new Array(chunk.length * columns.length);
    let index = 0;
    for (const row of chunk) for (const column of columns) values[index++] = row[column];
    await insert.execute(db, values);
  }
}

/** Whether `row` has a defined value for each of `columns` and no other key (without listing its keys). */
function hasExactly(row: Record<string, unknown>, columns: readonly string[]): boolean {
  let keys = 0;
  for (const _ in row) keys++;
  return keys === columns.length && columns.every((column) => row[column] !== undefined);
}
