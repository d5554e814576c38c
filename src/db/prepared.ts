import type { Compilable, CompiledQuery, QueryResult } from "kysely";
import type { DbOrTrx } from "./schema.js";

/** A value no request sends: marks where a named parameter goes in the compiled query. */
const SLOT = "\u0000dakiya-param:";

interface Compiled<R> {
  query: CompiledQuery<R>;
  /** For each parameter of the compiled query, the name it takes its value from, or its constant. */
  slots: Array<{ name: string } | { value: unknown }>;
}

export interface PreparedQuery<P, R> {
  /** Runs the query on `db` (the database or a transaction) with `params`. */
  execute(db: DbOrTrx, params: P): Promise<QueryResult<R>>;
}

/**
 * A hot-path query built and compiled by Kysely once per dialect rather than on every call:
 * building and compiling cost more than SQLite running a small indexed statement. `build` writes
 * the query as usual, with `param("name")` where a value of the call goes; a value may only
 * stand where Kysely makes it a bound parameter (not in a `limit` or an identifier).
 */
export function prepareQuery<P extends object, R>(
  build: (db: DbOrTrx, param: <K extends keyof P & string>(name: K) => P[K]) => Compilable<R>,
): PreparedQuery<P, R> {
  const byAdapter = new Map<unknown, Compiled<R>>();
  return {
    execute(db, params) {
      const adapter = db.getExecutor().adapter.constructor;
      let compiled = byAdapter.get(adapter);
      if (!compiled) {
        const query = build(db, (name) => `${SLOT}${name}` as never).compile();
        const slots = query.parameters.map((value) =>
          typeof value === "string" && value.startsWith(SLOT)
            ? { name: value.slice(SLOT.length) }
            : { value },
        );
        compiled = { query, slots };
        byAdapter.set(adapter, compiled);
      }
      const parameters = compiled.slots.map((slot) =>
        "name" in slot ? (params as Record<string, unknown>)[slot.name] : slot.value,
      );
      return db.executeQuery<R>({ ...compiled.query, parameters });
    },
  };
}
