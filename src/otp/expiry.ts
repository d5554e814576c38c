import { sql, type Transaction } from "kysely";
import type { AppContext } from "../context.js";
import { rowLimit } from "../db/row-limit.js";
import type { Database, Dialect, OtpsTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { isoNow } from "../lib/clock.js";
import { runPeriodically } from "../lib/periodic.js";
import { recordOtpEvents } from "./events.js";

/** How often a worker ends expired OTPs: `otp.failed` (reason `expired`) follows expiry by at most this. */
export const OTP_EXPIRY_SWEEP_MS = 5_000;
const SWEEP_BATCH = 200;

/**
 * Ends every pending OTP past its expiry, each with its `otp.failed` event in the same
 * transaction, in batches. Returns how many it ended.
 */
export async function expireDueOtps(ctx: AppContext): Promise<number> {
  let total = 0;
  for (;;) {
    const now = isoNow(ctx.clock);
    const ended = await inTransaction(ctx, async (trx) => {
      const rows = await expirePendingOtps(trx, ctx.dialect, { now, limit: SWEEP_BATCH });
      await recordOtpEvents(trx, ctx, "otp.failed", rows);
      return rows.length;
    });
    total += ended;
    if (ended < SWEEP_BATCH) return total;
  }
}

/** Runs `expireDueOtps` every `intervalMs` until the returned function is called (it waits for a sweep in progress). */
export function startOtpExpirySweep(ctx: AppContext, intervalMs = OTP_EXPIRY_SWEEP_MS): () => Promise<void> {
  return runPeriodically(
    intervalMs,
    () => expireDueOtps(ctx),
    (error) => ctx.log.error({ err: error }, "ending expired OTPs failed"),
  );
}

/**
 * Ends up to `limit` pending OTPs whose expiry has passed, returning them. On PostgreSQL,
 * `SKIP LOCKED` lets several workers sweep side by side, each OTP ended (and its event written)
 * by one of them. `'pending'` is a literal so that both dialects can use the partial index
 * `otps_pending_expiry_idx`, which a bound parameter would not match on SQLite.
 */
async function expirePendingOtps(
  trx: Transaction<Database>,
  dialect: Dialect,
  sweep: { now: string; limit: number },
): Promise<OtpsTable[]> {
  const lock = dialect === "postgres" ? sql`for update skip locked` : sql``;
  const result = await sql<OtpsTable>`
    update otps
    set status = 'expired', code_sealed = null, fallback_due_at = null, updated_at = ${sweep.now}
    where id in (
      select id from otps
      where status = 'pending' and expires_at <= ${sweep.now}
      order by expires_at
      limit ${rowLimit(sweep.limit)}
      ${lock}
    )
      and status = 'pending'
    returning *`.execute(trx);
  return result.rows;
}
