import { type Kysely, sql } from "kysely";

/**
 * Members (docs/team.md): the people who sign in to an account's console, each with a role. The
 * sign-in of each existing account becomes its owner, with the same email and password hash, and
 * the password moves from `accounts` to `members`. A member's email signs in to one account, so it
 * is unique across the installation. Sessions now belong to a member: sessions of before end
 * (their users sign in again once), and removing a member ends theirs with it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("members")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text")
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("invite_token_hash", "text", (c) => c.unique())
    .addColumn("invite_expires_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_sign_in_at", "text")
    .execute();
  await db.schema
    .createIndex("members_account")
    .on("members")
    .columns(["account_id", "created_at"])
    .execute();
  await sql`
    insert into members (id, account_id, email, password_hash, role, status, created_at)
    select 'mbr_' || substr(id, 6), id, email, password_hash, 'owner', 'active', created_at from accounts
  `.execute(db);
  await db.schema.alterTable("accounts").dropColumn("password_hash").execute();

  await db.schema.dropTable("dashboard_sessions").execute();
  await db.schema
    .createTable("dashboard_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("member_id", "text", (c) => c.notNull().references("members.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("dashboard_sessions_expires_at")
    .on("dashboard_sessions")
    .column("expires_at")
    .execute();
  await db.schema
    .createIndex("dashboard_sessions_member")
    .on("dashboard_sessions")
    .column("member_id")
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("dashboard_sessions").execute();
  await db.schema.alterTable("accounts").addColumn("password_hash", "text").execute();
  await sql`
    update accounts set password_hash = (
      select password_hash from members where members.account_id = accounts.id and role = 'owner'
      order by created_at limit 1)
  `.execute(db);
  await db.schema.dropTable("members").execute();
  await db.schema
    .createTable("dashboard_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("dashboard_sessions_expires_at")
    .on("dashboard_sessions")
    .column("expires_at")
    .execute();
}
