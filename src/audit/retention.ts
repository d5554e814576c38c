import { sql } from "kysely";
import type { Db, Dialect } from "../db/schema.js";

/** Audit rows are kept a year (docs/audit.md); the database refuses to delete younger ones. */
export const AUDIT_RETENTION_DAYS = 365;

/**
 * Deletes the audit rows older than the retention period; returns how many. A row must be over a
 * year old by both clocks, the server's and the database's (which the refusing trigger reads),
 * so a clock a little ahead of the database's never makes the sweep fail.
 */
export async function purgeOldAuditRows(db: Db, dialect: Dialect, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - AUDIT_RETENTION_DAYS * 86_400_000).toISOString();
  const databaseCutoff =
    dialect === "postgres"
      ? sql<string>`to_char(now() at time zone 'UTC' - interval '365 days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-365 days')`;
  const deleted = await db
    .deleteFrom("audit_log")
    .where("created_at", "<", cutoff)
    .where("created_at", "<=", databaseCutoff)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
