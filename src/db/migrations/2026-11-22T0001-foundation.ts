import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("balances")
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("balance", "bigint", (c) => c.notNull().check(sql`balance >= 0`))
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("balances_pk", ["account_id", "environment"])
    .execute();

  await db.schema
    .createTable("ledger_entries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("balance_after", "bigint", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("reference", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("ledger_entries_account_idx")
    .on("ledger_entries")
    .columns(["account_id", "environment", "created_at"])
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("label", "text")
    .addColumn("prefix", "text", (c) => c.notNull())
    .addColumn("secret_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("expires_at", "text")
    .execute();
  await db.schema.createIndex("api_keys_account_idx").on("api_keys").column("account_id").execute();

  await db.schema
    .createTable("idempotency_keys")
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("request_fingerprint", "text", (c) => c.notNull())
    .addColumn("locked_until", "text")
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["account_id", "environment", "key"])
    .execute();
  await db.schema
    .createIndex("idempotency_keys_created_idx")
    .on("idempotency_keys")
    .column("created_at")
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["idempotency_keys", "api_keys", "ledger_entries", "balances", "accounts"]) {
    await db.schema.dropTable(table).execute();
  }
}
