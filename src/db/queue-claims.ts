import { sql } from "kysely";
import type { Db, Dialect, MessagesTable } from "./schema.js";

/**
 * Leases up to `limit` due messages to `owner` in one statement. On PostgreSQL, `FOR UPDATE
 * SKIP LOCKED` lets workers on several machines claim side by side without waiting on or
 * taking each other's rows; SQLite has one writer at a time, so the statement alone is atomic.
 * A message whose lease has run out (its worker died) is due again.
 */
export async function claimDueMessages(
  db: Db,
  dialect: Dialect,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
): Promise<MessagesTable[]> {
  const lock = dialect === "postgres" ? sql`for update skip locked` : sql``;
  const result = await sql<MessagesTable>`
    update messages
    set lease_owner = ${claim.owner}, lease_until = ${claim.leaseUntil}
    where id in (
      select id from messages
      where status = 'queued'
        and next_attempt_at <= ${claim.now}
        and (lease_until is null or lease_until < ${claim.now})
      order by next_attempt_at
      limit ${claim.limit}
      ${lock}
    )
    returning *`.execute(db);
  return result.rows;
}
