import { sql, type Transaction } from "kysely";
import type { Database, Dialect } from "./schema.js";

/**
 * Serialises transactions that share `key` until they commit. SQLite needs nothing: its write
 * transactions (`BEGIN IMMEDIATE`) already run one at a time. PostgreSQL takes a transaction-level
 * advisory lock on the key's hash.
 */
export async function lockForUpdate(
  trx: Transaction<Database>,
  dialect: Dialect,
  key: string,
): Promise<void> {
  if (dialect === "postgres") await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
}
