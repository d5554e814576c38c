import { randomInt } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Transaction } from "kysely";
import type { Database, Db } from "./schema.js";

/** Why PostgreSQL aborted a transaction that would succeed if run again. */
export type TransactionConflict = "deadlock" | "serialization_failure";
/** What came of a conflict: the transaction ran again, or the tries ran out and its error went up. */
export type ConflictOutcome = "retried" | "gave_up";

export interface TransactionContext {
  db: Db;
  metrics: { transactionConflict(conflict: TransactionConflict, outcome: ConflictOutcome): void };
}

/** Runs of one transaction at most, the first included. */
export const MAX_TRANSACTION_RUNS = 5;

/**
 * Runs `work` in a transaction. When PostgreSQL aborts it to break a deadlock or a serialization
 * conflict, nothing of it was written, so it runs again from the start, after a short random
 * pause that lets the other transaction finish, up to MAX_TRANSACTION_RUNS times. `work` must
 * therefore do nothing but database work that it can do twice: effects outside the database
 * (answers, metrics, wake-ups) belong after this returns. SQLite never needs it: its write
 * transactions run one at a time.
 */
export async function inTransaction<T>(
  ctx: TransactionContext,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await ctx.db.transaction().execute(work);
    } catch (error) {
      const conflict = transactionConflictOf(error);
      if (conflict === undefined) throw error;
      if (run >= MAX_TRANSACTION_RUNS) {
        ctx.metrics.transactionConflict(conflict, "gave_up");
        throw error;
      }
      ctx.metrics.transactionConflict(conflict, "retried");
      await sleep(retryPauseMs(run));
    }
  }
}

/** Up to 2, 4, 8, 16 ms: random, so two transactions that deadlocked do not meet again in step. */
export function retryPauseMs(run: number): number {
  return randomInt(1, 2 ** run + 1);
}

/** The conflict PostgreSQL aborted a statement for (SQLSTATE 40P01, 40001), if that is what `error` is. */
export function transactionConflictOf(error: unknown): TransactionConflict | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "40P01") return "deadlock";
  if (code === "40001") return "serialization_failure";
  return undefined;
}
