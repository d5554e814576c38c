import { CompiledQuery } from "kysely";
import { describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { down, up } from "../../src/db/migrations/2026-11-26T0012-webhook-endpoint-due-index.js";
import { anotherEndpointWithDueDeliveries } from "../../src/webhooks/claims.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS, indexDefinition } from "../helpers/database.js";

/*
 * An endpoint's deliveries are indexed by endpoint, then next attempt, so the dispatcher's look
 * for another endpoint's due deliveries probes each endpoint; down restores the old index.
 */

describe.each(DIALECTS)("the webhook endpoint due-index migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  /** The index's columns, as `(a,b,…)`. */
  async function columnsOf(db: AppContext["db"]): Promise<string> {
    const definition = (await indexDefinition(db, dialect, "webhook_deliveries_endpoint_idx")).replace(
      / /g,
      "",
    );
    return definition.slice(definition.lastIndexOf("("));
  }

  /** SQLite's plan for the dispatcher's look past its busy endpoints. */
  async function planOfTheLookPastBusyEndpoints(db: AppContext["db"]): Promise<string> {
    const look = anotherEndpointWithDueDeliveries(db, new Date().toISOString(), ["wh_busy"]).compile();
    const { rows } = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${look.sql}`, [...look.parameters]),
    );
    return rows.map((row) => row.detail).join("; ");
  }

  it("indexes deliveries by endpoint and next attempt, and down drops the next attempt again", async () => {
    const ctx = await fresh.open();
    const { db } = ctx;
    expect(await columnsOf(db)).toBe("(endpoint_id,next_attempt_at)");
    if (dialect === "sqlite") {
      expect(await planOfTheLookPastBusyEndpoints(db)).toContain(
        "webhook_deliveries_endpoint_idx (endpoint_id=? AND next_attempt_at<?)",
      );
    }
    await down(db);
    expect(await columnsOf(db)).toBe("(endpoint_id)");
    await up(db);
    expect(await columnsOf(db)).toBe("(endpoint_id,next_attempt_at)");
  });
});
