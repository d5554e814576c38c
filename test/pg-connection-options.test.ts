import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.js";

/*
 * Dakiya's PostgreSQL connections plan without bitmap scans (src/db/database.ts): with statistics
 * taken while a queue was short, a claim read the whole backlog through one and sorted it.
 */

const ADMIN_URL = process.env.TEST_DATABASE_URL;

async function settingsOf(url: string, names: string[]): Promise<Record<string, string>> {
  const { db } = openDatabase(url);
  try {
    const settings: Record<string, string> = {};
    for (const name of names) {
      const { rows } = await sql<{ setting: string }>`select current_setting(${name}) as setting`.execute(db);
      settings[name] = rows[0]?.setting ?? "";
    }
    return settings;
  } finally {
    await db.destroy();
  }
}

describe.skipIf(!ADMIN_URL)("PostgreSQL connection settings", () => {
  it("turns bitmap scans off on every connection", async () => {
    expect(await settingsOf(ADMIN_URL as string, ["enable_bitmapscan"])).toEqual({
      enable_bitmapscan: "off",
    });
  });

  it("keeps the options the database URL gives, alongside its own", async () => {
    const url = new URL(ADMIN_URL as string);
    url.searchParams.set("options", "-c statement_timeout=4321 -c application_name=payments");
    expect(
      await settingsOf(url.toString(), ["enable_bitmapscan", "statement_timeout", "application_name"]),
    ).toEqual({ enable_bitmapscan: "off", statement_timeout: "4321ms", application_name: "payments" });
  });
});
