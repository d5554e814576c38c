import { sql } from "kysely";
import type { AppContext } from "../context.js";
import { executeForIds, prepareForIds } from "../db/prepared.js";
import type { Db, Environment, WebhookEndpointStatus } from "../db/schema.js";
import { isoNow } from "../lib/clock.js";

/** A leased delivery with its event and its endpoint: all an attempt needs. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  type: string;
  data: string;
  created_at: string;
  environment: Environment;
  url: string;
  status: WebhookEndpointStatus;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
}

export async function loadDeliveries(db: Db, ids: string[]): Promise<Map<string, ClaimedDelivery>> {
  const rows = await executeForIds(db, deliveriesWithIds, {}, ids);
  return new Map(rows.map((row) => [row.id, row]));
}

const deliveriesWithIds = prepareForIds<object, ClaimedDelivery>((db, _param, ids) =>
  db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("events as e", "e.id", "d.event_id")
    .innerJoin("webhook_endpoints as w", "w.id", "d.endpoint_id")
    .select([
      "d.id",
      "d.endpoint_id",
      "d.event_id",
      "d.attempts",
      "e.type",
      "e.data",
      "e.created_at",
      "e.environment",
      "w.url",
      "w.status",
      "w.secret_sealed",
      "w.previous_secret_sealed",
      "w.previous_secret_expires_at",
      "w.failing_since",
    ])
    .where("d.id", "in", ids),
);

/** Ends a claimed delivery without sending it (its endpoint was disabled meanwhile), if still held under `lease`. */
export async function endUnsent(ctx: AppContext, id: string, lease: string): Promise<void> {
  await ctx.db
    .updateTable("webhook_deliveries")
    .set({
      state: "failed",
      next_attempt_at: null,
      lease_owner: null,
      lease_until: null,
      updated_at: isoNow(ctx.clock),
    })
    .where("id", "=", id)
    .where("lease_owner", "=", lease)
    .where("state", "=", sql.lit("pending"))
    .execute();
}
