import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import type { Database, Dialect } from "../../src/db/schema.js";

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL points at a server (CI sets it). */
export const DIALECTS: Dialect[] = process.env.TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database: a new SQLite file, or a new PostgreSQL database on the test server. */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const name = `dakiya_test_${randomBytes(6).toString("hex")}`;
  if (dialect === "sqlite") {
    const path = join(tmpdir(), `${name}.db`);
    return {
      url: `sqlite:${path}`,
      drop: async () => {
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      },
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  return createPostgresDatabase(adminUrl, name);
}

/** A new, empty database on the PostgreSQL server of `adminUrl` (the benchmark uses it too). */
export async function createPostgresDatabase(adminUrl: string, name: string): Promise<TestDatabase> {
  await withAdmin(adminUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin(adminUrl, (client) => dropWhenClosed(client, name)),
  };
}

async function withAdmin(url: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A closed pool's connections take a moment to leave the server. Dropping `with (force)` would
 * kill them mid-goodbye and surface as unhandled errors in the test run, so wait for them instead.
 */
async function dropWhenClosed(client: pg.Client, name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(`drop database if exists ${name}`);
      return;
    } catch (error) {
      const objectInUse = (error as { code?: string }).code === "55006";
      if (!objectInUse || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * An index's definition as the database keeps it, lower case, with quotes and whitespace runs
 * made single spaces: SQLite's `CREATE INDEX` text, PostgreSQL's `indexdef`. Empty when absent.
 */
export async function indexDefinition(
  db: Kysely<Database>,
  dialect: Dialect,
  index: string,
): Promise<string> {
  const { rows } =
    dialect === "sqlite"
      ? await sql<{
          sql: string;
        }>`select sql from sqlite_master where type = 'index' and name = ${index}`.execute(db)
      : await sql<{ sql: string }>`select indexdef as sql from pg_indexes where indexname = ${index}`.execute(
          db,
        );
  return (rows[0]?.sql ?? "").toLowerCase().replace(/["\s]+/g, " ");
}
