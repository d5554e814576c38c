import type { AppContext } from "../context.js";
import { executeForIds, insertRows, prepareForIds, prepareQuery } from "../db/prepared.js";
import { rowLimit } from "../db/row-limit.js";
import type { WebhookDeliveriesTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { isoNow } from "../lib/clock.js";
import { claimEventsToFanOut } from "./claims.js";
import { subscribesTo } from "./endpoints.js";
import { compareLockOrder, lockingRows, lockOrder } from "./locks.js";

/** The id of the one delivery of `eventId` to `endpointId`. */
export function deliveryId(endpointId: string, eventId: string): string {
  return `${endpointId}:${eventId}`;
}

/**
 * Fans events out: for up to `limit` events not yet relayed, a pending delivery to every enabled
 * endpoint of the event's account and environment that subscribes to its type, and the events
 * marked relayed, all in one transaction. A crash before the commit leaves the events to relay
 * again; after it, the deliveries are in the queue. Returns how many events it relayed.
 */
export async function relayEvents(ctx: AppContext, limit: number): Promise<number> {
  // Most polls find nothing: a plain read keeps them from opening a write transaction.
  const [waiting] = (await anEventToRelay.execute(ctx.db, {})).rows;
  if (!waiting) return 0;

  return inTransaction(ctx, async (trx) => {
    const events = await claimEventsToFanOut(trx, ctx.dialect, limit);
    if (events.length === 0) return 0;
    const now = isoNow(ctx.clock);
    const accounts = [...new Set(events.map((event) => event.account_id))];
    // Held until the commit, so none is deleted before its deliveries are in (locks.ts).
    const endpoints = await lockingRows(
      trx
        .selectFrom("webhook_endpoints")
        .select(["id", "account_id", "environment", "events"])
        .where("account_id", "in", accounts)
        .where("status", "=", "enabled")
        .orderBy(lockOrder(ctx.dialect)),
      ctx.dialect,
      "key share",
    ).execute();
    const subscriptions = endpoints.map((endpoint) => ({
      ...endpoint,
      events: JSON.parse(endpoint.events) as string[],
    }));
    const deliveries: WebhookDeliveriesTable[] = [];
    for (const event of events) {
      // A test event is made with its one delivery already (sendTestEvent).
      if (event.type === "webhook.test") continue;
      for (const endpoint of subscriptions) {
        if (endpoint.account_id !== event.account_id || endpoint.environment !== event.environment) continue;
        if (!subscribesTo(endpoint.events, event.type)) continue;
        deliveries.push(pendingDelivery(endpoint.id, event.id, now));
      }
    }
    // In lock order: a replay may be inserting some of them too.
    deliveries.sort((a, b) => compareLockOrder(a.id, b.id));
    await insertRows(trx, "webhook_deliveries", deliveries, { skipConflictsOn: "id" });
    await executeForIds(
      trx,
      markRelayed,
      { now },
      events.map((event) => event.id),
    );
    return events.length;
  });
}

const anEventToRelay = prepareQuery<object, { id: string }>((db) =>
  db.selectFrom("events").select("id").where("fanned_out_at", "is", null).limit(rowLimit(1)),
);

const markRelayed = prepareForIds<{ now: string }, never>((db, param, ids) =>
  db
    .updateTable("events")
    .set({ fanned_out_at: param("now") })
    .where("id", "in", ids),
);

export function pendingDelivery(endpointId: string, eventId: string, now: string): WebhookDeliveriesTable {
  return {
    id: deliveryId(endpointId, eventId),
    endpoint_id: endpointId,
    event_id: eventId,
    state: "pending",
    attempts: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
    created_at: now,
    updated_at: now,
  };
}
