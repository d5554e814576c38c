import type { CompiledQuery } from "kysely";
import { postgresPoolOf } from "../database.js";
import type { Db } from "../schema.js";
import { statementConfig } from "./statements.js";

/*
 * PostgreSQL: a transaction whose statements all go out at once and whose COMMIT follows them
 * on the wire, so the whole transaction costs one round trip and holds its row locks (a balance,
 * an account's counter) only while the server runs it, never while a reply travels back to Node.
 * The pool's clients are in pg's pipeline mode (database.ts), which writes queries issued together
 * without waiting for the answers in between.
 *
 * A statement cannot look at the answer of the one before it, so a check that must hold (a
 * counter under its limit, a balance that covers a charge) is written as a guard: a statement
 * that fails when the row it guards was not written. Plain SQL has no RAISE, so the guard fails a
 * cast of its reason to an integer; that aborts the transaction, every statement after it is
 * ignored and the COMMIT rolls back. The caller then learns which guard refused.
 */

/** A statement of a one-flight transaction; with `refusal`, a guard (see `guarded`). */
export interface FlightStatement {
  sql: string;
  parameters: readonly unknown[];
}

/** A guard of the flight refused: nothing of the transaction was written. */
export class FlightRefused extends Error {
  constructor(readonly reason: string) {
    super(`refused: ${reason}`);
  }
}

const REFUSAL_PREFIX = "dakiya refused: ";
const REFUSAL = /invalid input syntax for type integer: "dakiya refused: ([a-z_]+):\d+"/;
const IN_FAILED_TRANSACTION = "25P02";

/**
 * `query` (which must return the rows it wrote, e.g. an upsert's RETURNING) as a guard: the
 * flight fails with `FlightRefused(reason)` when it returns none.
 */
export function guarded(query: CompiledQuery, reason: string): FlightStatement {
  return guardedAfter("", query.sql, query.parameters, reason);
}

/**
 * A guard over `written` (a statement returning the rows it wrote), after the common table
 * expressions of `before` (each `name as (…)`, ending in a comma) which it may read.
 */
export function guardedAfter(
  before: string,
  written: string,
  parameters: readonly unknown[],
  reason: string,
): FlightStatement {
  const reasonParameter = `$${parameters.length + 1}`;
  return {
    // The count makes the cast's argument depend on the rows, so the planner cannot fold it (and
    // fail) before the statement has run.
    sql: `with ${before} guarded as (${written})
      select cast(${reasonParameter} || (select count(*) from guarded) as integer) as refused
      where not exists (select 1 from guarded)`,
    parameters: [...parameters, `${REFUSAL_PREFIX}${reason}:`],
  };
}

export function statementOf(query: CompiledQuery): FlightStatement {
  return { sql: query.sql, parameters: query.parameters };
}

/**
 * Runs `statements` as one transaction in one round trip (PostgreSQL only). Throws
 * `FlightRefused` when a guard refused, the statement's own error when one failed (a unique
 * violation, say); either way nothing was written.
 */
export async function commitInOneFlight(db: Db, statements: readonly FlightStatement[]): Promise<void> {
  const client = await postgresPoolOf(db).connect();
  let broken: Error | undefined;
  try {
    const answers = await Promise.allSettled([
      client.query("begin"),
      ...statements.map((statement) => client.query(statementConfig(statement.sql, statement.parameters))),
      // Answered ROLLBACK, without an error, when a statement before it failed.
      client.query("commit"),
    ]);
    const failure = answers.find(
      (answer): answer is PromiseRejectedResult =>
        answer.status === "rejected" && (answer.reason as { code?: string }).code !== IN_FAILED_TRANSACTION,
    );
    if (!failure) return;
    const error = failure.reason as Error & { code?: string };
    if (error.code === undefined) broken = error; // not from the server: the connection is suspect
    const refusal = REFUSAL.exec(error.message)?.[1];
    throw refusal ? new FlightRefused(refusal) : error;
  } finally {
    client.release(broken);
  }
}
