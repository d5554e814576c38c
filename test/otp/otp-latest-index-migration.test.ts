import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { down, up } from "../../src/db/migrations/2026-11-26T0011-otp-latest-index.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS, indexDefinition } from "../helpers/database.js";

/* A number's OTPs are indexed in the order a verification looks for the latest; down restores the old index. */

const LATEST_OTP = `select * from otps where account_id = ? and environment = ? and recipient = ?
  order by created_at desc, id desc limit 1`;

describe.each(DIALECTS)("the OTP latest-index migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  /** The index's columns, as `(a,b,…)`. */
  async function columnsOf(db: AppContext["db"]): Promise<string> {
    const definition = (await indexDefinition(db, dialect, "otps_recipient_idx")).replace(/ /g, "");
    return definition.slice(definition.lastIndexOf("("));
  }

  /** SQLite's plan for the latest OTP of a number: whether it sorts, or reads the index in order. */
  async function sortsForLatest(db: AppContext["db"]): Promise<boolean> {
    const query = LATEST_OTP.replace(/\?/g, "'x'");
    const { rows } = await sql<{ detail: string }>`explain query plan ${sql.raw(query)}`.execute(db);
    return rows.some((row) => row.detail.includes("TEMP B-TREE"));
  }

  it("indexes a number's OTPs by creation time, then id, and down drops the id again", async () => {
    const ctx = await fresh.open();
    const { db } = ctx;
    expect(await columnsOf(db)).toBe("(account_id,environment,recipient,created_at,id)");
    if (dialect === "sqlite") expect(await sortsForLatest(db)).toBe(false);

    await down(db);
    expect(await columnsOf(db)).toBe("(account_id,environment,recipient,created_at)");
    if (dialect === "sqlite") expect(await sortsForLatest(db)).toBe(true);

    await up(db);
    expect(await columnsOf(db)).toBe("(account_id,environment,recipient,created_at,id)");
  });
});
