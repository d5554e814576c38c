import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * The audit log (docs/audit.md): one row per change, written in the change's own transaction.
 * Rows are never changed, and none younger than a year is deleted: the database itself refuses,
 * on both engines, so no code path (nor a mistaken hand-written statement) can edit the record.
 * The only delete is the retention sweep of rows over a year old (src/audit/retention.ts).
 * Pages are read newest first by account, which the (account_id, created_at, id) index serves.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("audit_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    // No foreign key: the record outlives what it names.
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("environment", "text")
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_id", "text")
    .addColumn("actor_label", "text")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text")
    .addColumn("client_address", "text")
    .addColumn("before", "text")
    .addColumn("after", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("audit_log_account_created")
    .on("audit_log")
    .columns(["account_id", "created_at", "id"])
    .execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function audit_log_guard() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' then
          raise exception 'audit_log rows are never changed';
        end if;
        if old.created_at > to_char(now() at time zone 'UTC' - interval '365 days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') then
          raise exception 'audit_log rows are kept 365 days';
        end if;
        return old;
      end
      $$`.execute(db);
    await sql`
      create trigger audit_log_guard before update or delete on audit_log
      for each row execute function audit_log_guard()`.execute(db);
    return;
  }
  await sql`
    create trigger audit_log_no_update before update on audit_log
    begin select raise(abort, 'audit_log rows are never changed'); end`.execute(db);
  await sql`
    create trigger audit_log_no_young_delete before delete on audit_log
    when old.created_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-365 days')
    begin select raise(abort, 'audit_log rows are kept 365 days'); end`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("audit_log").execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop function audit_log_guard()`.execute(db);
  }
}
