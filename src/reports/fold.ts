import { sql } from "kysely";
import type { AppContext } from "../context.js";
import type { Db } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { runPeriodically } from "../lib/periodic.js";

/** Deltas moved per statement: each batch is a short transaction of its own. */
export const FOLD_BATCH = 10_000;
/** How often the server folds: a report reads the deltas left meanwhile, so this bounds their number. */
const FOLD_INTERVAL_MS = 10_000;

interface Fold {
  /** The deltas table and the daily table it is folded into. */
  deltas: "message_report_deltas" | "otp_report_deltas";
  days: "message_report_days" | "otp_report_days";
  key: readonly string[];
  sums: readonly string[];
}

const FOLDS: readonly Fold[] = [
  {
    deltas: "message_report_deltas",
    days: "message_report_days",
    key: ["account_id", "environment", "day", "channel", "template_id", "sender", "status"],
    sums: ["messages", "segments", "cost"],
  },
  {
    deltas: "otp_report_deltas",
    days: "otp_report_days",
    key: ["account_id", "environment", "day", "channel", "seconds_to_verify"],
    sums: ["otps"],
  },
];

/**
 * Moves every report delta into the daily totals, a batch at a time; returns how many it moved.
 * Safe to run in several processes at once: each batch moves its deltas and adds them up in one
 * transaction, and on PostgreSQL skips the deltas another fold has taken.
 */
export async function foldReportDeltas(ctx: Pick<AppContext, "db" | "dialect" | "metrics">): Promise<number> {
  let moved = 0;
  for (const fold of FOLDS) {
    for (;;) {
      const batch =
        ctx.dialect === "postgres" ? await foldOnPostgres(ctx.db, fold) : await foldOnSqlite(ctx, fold);
      moved += batch;
      if (batch < FOLD_BATCH) break;
    }
  }
  return moved;
}

/** Folds now and every 10 seconds; returns a function that stops it and waits for a fold under way. */
export function startReportFolds(ctx: AppContext): () => Promise<void> {
  return runPeriodically(
    FOLD_INTERVAL_MS,
    () => foldReportDeltas(ctx),
    (error) => ctx.log.error({ err: error }, "report fold failed"),
  );
}

/**
 * One statement: delete a batch of deltas no other fold holds, and add them up into the daily
 * rows in key order, so two folds that meet on the same rows wait for each other, never in a cycle.
 */
async function foldOnPostgres(db: Db, fold: Fold): Promise<number> {
  const key = fold.key.join(", ");
  const columns = sql.raw([...fold.key, ...fold.sums].join(", "));
  const sums = sql.raw(fold.sums.map((column) => `sum(${column})`).join(", "));
  const additions = sql.raw(
    fold.sums.map((column) => `${column} = ${fold.days}.${column} + excluded.${column}`).join(", "),
  );
  const { rows } = await sql<{ moved: number | string }>`
    with moved as (
      delete from ${sql.table(fold.deltas)}
      where id in (select id from ${sql.table(fold.deltas)} order by id limit ${FOLD_BATCH} for update skip locked)
      returning ${columns}
    ), added as (
      insert into ${sql.table(fold.days)} (${columns})
      select ${sql.raw(key)}, ${sums} from moved group by ${sql.raw(key)} order by ${sql.raw(key)}
      on conflict (${sql.raw(key)}) do update set ${additions}
      returning 1
    )
    select count(*) as moved from moved`.execute(db);
  return Number(rows[0]?.moved ?? 0);
}

/** SQLite writes one transaction at a time: add up the oldest batch, then delete it. */
async function foldOnSqlite(ctx: Pick<AppContext, "db" | "metrics">, fold: Fold): Promise<number> {
  const key = sql.raw(fold.key.join(", "));
  const columns = sql.raw([...fold.key, ...fold.sums].join(", "));
  const sums = sql.raw(fold.sums.map((column) => `sum(${column})`).join(", "));
  const additions = sql.raw(
    fold.sums.map((column) => `${column} = ${fold.days}.${column} + excluded.${column}`).join(", "),
  );
  return inTransaction(ctx, async (trx) => {
    const { rows } = await sql<{ last: number | null; moved: number }>`
      select max(id) as last, count(*) as moved
      from (select id from ${sql.table(fold.deltas)} order by id limit ${FOLD_BATCH}) as batch`.execute(trx);
    const batch = rows[0];
    if (!batch || batch.last === null) return 0;
    await sql`
      insert into ${sql.table(fold.days)} (${columns})
      select ${key}, ${sums} from ${sql.table(fold.deltas)} where id <= ${batch.last} group by ${key}
      on conflict (${key}) do update set ${additions}`.execute(trx);
    await sql`delete from ${sql.table(fold.deltas)} where id <= ${batch.last}`.execute(trx);
    return Number(batch.moved);
  });
}
