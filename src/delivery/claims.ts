import { sql } from "kysely";
import { rowLimit } from "../db/row-limit.js";
import type { Db, Dialect, MessagesTable } from "../db/schema.js";
import { writeAheadOfCommit } from "../db/sqlite/driver.js";

/**
 * The columns of a claimed message that its delivery and its events read. The rest of a queued
 * message's row is known without reading it: the dates of a final status are unset, and the
 * acceptance writes every other column (`acceptedColumns` in status.ts). Each column
 * returned costs a value built per row, and claims return thousands of rows a second.
 */
const CLAIMED_COLUMNS = [
  "id",
  "account_id",
  "environment",
  "channel",
  "recipient",
  "sender",
  "template_id",
  "entity_id",
  "reference",
  "text",
  "encoding",
  "segments",
  "cost",
  "sealed",
  "attempts",
  "created_at",
  "priority",
  "category",
  "expires_at",
  "send_at",
] as const satisfies ReadonlyArray<keyof MessagesTable>;

export type ClaimedMessage = Pick<MessagesTable, (typeof CLAIMED_COLUMNS)[number]>;

/**
 * Leases up to `limit` due messages to `owner` in one statement. On PostgreSQL, `FOR UPDATE
 * SKIP LOCKED` lets workers on several machines claim side by side without waiting on or
 * taking each other's rows; SQLite has one writer at a time, so the statement alone is atomic.
 * A message whose lease has run out (its worker died) is due again. On SQLite the claim is
 * answered before its COMMIT (`writeAheadOfCommit`): a lease need not be durable.
 */
export async function claimDueMessages(
  db: Db,
  dialect: Dialect,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
): Promise<ClaimedMessage[]> {
  const lock = dialect === "postgres" ? sql`for update skip locked` : sql``;
  const query = sql<ClaimedMessage>`
    update messages
    set lease_owner = ${claim.owner}, lease_until = ${claim.leaseUntil}
    where id in (
      select id from messages
      where status = 'queued'
        and next_attempt_at <= ${claim.now}
        and (lease_until is null or lease_until < ${claim.now})
      order by next_attempt_at
      limit ${rowLimit(claim.limit)}
      ${lock}
    )
    returning ${sql.join(CLAIMED_COLUMNS.map((column) => sql.ref(column)))}`.compile(db);
  const result = (await writeAheadOfCommit(db, query)) ?? (await db.executeQuery(query));
  return result.rows;
}
