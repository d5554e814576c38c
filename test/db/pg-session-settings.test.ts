import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";

/*
 * Dakiya's PostgreSQL connections plan without bitmap scans (src/db/database.ts): with statistics
 * taken while a queue was short, a claim read the whole backlog through one and sorted it.
 */

const ADMIN_URL = process.env.TEST_DATABASE_URL;

interface SessionSettings {
  pid: number;
  enable_bitmapscan: string;
  application_name: string;
  statement_timeout: string;
}

/** The settings of `connections` sessions of one pool, read at once so that each is its own. */
async function sessionsOf(url: string, connections: number): Promise<SessionSettings[]> {
  const { db } = await openDatabase(url);
  try {
    const reads = Array.from({ length: connections }, () =>
      sql<SessionSettings>`select pg_backend_pid() as pid,
          current_setting('enable_bitmapscan') as enable_bitmapscan,
          current_setting('application_name') as application_name,
          current_setting('statement_timeout') as statement_timeout,
          pg_sleep(0.1)`.execute(db),
    );
    return (await Promise.all(reads)).map(({ rows: [row] }) => row as SessionSettings);
  } finally {
    await db.destroy();
  }
}

describe.skipIf(!ADMIN_URL)("PostgreSQL session settings", () => {
  it("turns bitmap scans off on every connection of the pool", async () => {
    const sessions = await sessionsOf(ADMIN_URL as string, 6);
    expect(new Set(sessions.map((session) => session.pid)).size).toBe(6);
    expect(sessions.map((session) => session.enable_bitmapscan)).toEqual(Array(6).fill("off"));
  });

  it("keeps the options the database URL gives", async () => {
    const url = new URL(ADMIN_URL as string);
    url.searchParams.set("options", "-c statement_timeout=4321 -c application_name=payments");
    const [session] = await sessionsOf(url.toString(), 1);
    expect(session).toMatchObject({
      enable_bitmapscan: "off",
      statement_timeout: "4321ms",
      application_name: "payments",
    });
  });
});
