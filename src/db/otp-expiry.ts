import { sql, type Transaction } from "kysely";
import { rowLimit } from "./row-limit.js";
import type { Database, Dialect, OtpsTable } from "./schema.js";

/**
 * Ends up to `limit` pending OTPs whose expiry has passed, returning them. On PostgreSQL,
 * `SKIP LOCKED` lets several workers sweep side by side, each OTP ended (and its event written)
 * by one of them. `'pending'` is a literal so that both dialects can use the partial index
 * `otps_pending_expiry_idx`, which a bound parameter would not match on SQLite.
 */
export async function expirePendingOtps(
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
