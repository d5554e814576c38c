import type { CompiledQuery } from "kysely";
import { postgresPoolOf } from "./database.js";
import { statementConfig } from "./postgres/statements.js";
import { executeCompiled } from "./prepared.js";
import type { Db, Dialect } from "./schema.js";

/** The rows of each query of `queries`, in order. */
export type RowsOf<Q extends readonly CompiledQuery<unknown>[]> = {
  -readonly [K in keyof Q]: Q[K] extends CompiledQuery<infer Row> ? Row[] : never;
};

/**
 * Runs independent reads together: on PostgreSQL on one connection, sent at once (one round
 * trip); on SQLite one after the other (no round trips there), each at once when the connection
 * is free (`executeCompiled`).
 */
export async function readTogether<const Q extends readonly CompiledQuery<unknown>[]>(
  database: { db: Db; dialect: Dialect },
  queries: Q,
): Promise<RowsOf<Q>> {
  const { db, dialect } = database;
  if (dialect !== "postgres") {
    const rows: unknown[][] = [];
    for (const query of queries) rows.push((await executeCompiled(db, query)).rows as unknown[]);
    return rows as RowsOf<Q>;
  }
  const client = await postgresPoolOf(db).connect();
  let broken: Error | undefined;
  try {
    // All answered before the client goes back to the pool, even when one failed.
    const answers = await Promise.allSettled(
      queries.map((query) => client.query(statementConfig(query.sql, query.parameters))),
    );
    return answers.map((answer) => {
      if (answer.status === "fulfilled") return answer.value.rows;
      const error = answer.reason as Error & { code?: string };
      if (error.code === undefined) broken = error;
      throw error;
    }) as RowsOf<Q>;
  } finally {
    client.release(broken);
  }
}
