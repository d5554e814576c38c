import { sql } from "kysely";
import type { AppContext } from "../context.js";
import type { WebhookEndpointsTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { type EventView, recordEvent } from "../events/outbox.js";
import { isoNow } from "../lib/clock.js";
import { ALL_EVENTS, type EndpointScope, findEndpoint } from "./endpoints.js";
import { lockOrder } from "./locks.js";
import { deliveryId, pendingDelivery } from "./relay.js";

/**
 * A `webhook.test` event `{"webhook_id": …}` for one endpoint. It is an event of the account like
 * any other (the feed lists it), but it is made with its one delivery, to that endpoint only,
 * and marked relayed so no other endpoint receives it.
 */
export async function sendTestEvent(
  ctx: AppContext,
  scope: EndpointScope,
  endpointId: string,
): Promise<EventView> {
  return inTransaction(ctx, async (trx) => {
    // Held until the commit: a DELETE meanwhile makes this a 404, a disable waits or comes first.
    const endpoint = requireEnabled(
      await findEndpoint(trx, scope, endpointId, { dialect: ctx.dialect, lock: "share" }),
    );
    const now = isoNow(ctx.clock);
    const event = await recordEvent(trx, ctx, {
      accountId: endpoint.account_id,
      environment: endpoint.environment,
      type: "webhook.test",
      data: { webhook_id: endpoint.id },
    });
    await trx.updateTable("events").set({ fanned_out_at: now }).where("id", "=", event.id).execute();
    await trx
      .insertInto("webhook_deliveries")
      .values(pendingDelivery(endpoint.id, event.id, now))
      .execute();
    return event;
  });
}

/**
 * Delivers again, to one endpoint, every event of its account and environment created at or after
 * `since` that it subscribes to, with the event's own id as `webhook-id`: receivers that saw it
 * before recognise it. A delivery already waiting starts over. Returns how many were queued.
 */
export async function replayEvents(
  ctx: AppContext,
  scope: EndpointScope,
  endpointId: string,
  since: string,
): Promise<number> {
  const sinceTime = Date.parse(since);
  if (Number.isNaN(sinceTime)) {
    throw new ApiError("invalid_request", "since must be an RFC 3339 time.", "since");
  }
  return inTransaction(ctx, async (trx) => {
    // Held until the commit: a DELETE meanwhile makes this a 404, and a disable either waits for
    // the replay (and gives its deliveries up with the others) or comes first (and it is refused).
    const endpoint = requireEnabled(
      await findEndpoint(trx, scope, endpointId, { dialect: ctx.dialect, lock: "share" }),
    );
    const events = JSON.parse(endpoint.events) as string[];
    const now = isoNow(ctx.clock);
    const typeFilter = events.includes(ALL_EVENTS) ? sql`` : sql`and type in (${sql.join(events)})`;
    // In lock order (locks.ts): the deliveries' ids are the endpoint's id and the events' ids.
    const inLockOrder = ctx.dialect === "postgres" ? sql`order by ${lockOrder(ctx.dialect)}` : sql``;
    const result = await sql`
      insert into webhook_deliveries
        (id, endpoint_id, event_id, state, attempts, next_attempt_at, lease_owner, lease_until, created_at, updated_at)
      select ${deliveryId(endpoint.id, "")} || id, cast(${endpoint.id} as text), id, 'pending', 0,
        cast(${now} as text), null, null, cast(${now} as text), cast(${now} as text)
      from events
      where account_id = ${endpoint.account_id}
        and environment = ${endpoint.environment}
        and created_at >= ${new Date(sinceTime).toISOString()}
        and type <> 'webhook.test'
        ${typeFilter}
      ${inLockOrder}
      on conflict (id) do update set
        state = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at,
        lease_owner = null, lease_until = null,
        created_at = excluded.created_at, updated_at = excluded.updated_at`.execute(trx);
    return Number(result.numAffectedRows ?? 0n);
  });
}

function requireEnabled(endpoint: WebhookEndpointsTable): WebhookEndpointsTable {
  if (endpoint.status !== "enabled") {
    throw new ApiError("invalid_request", `Webhook endpoint ${endpoint.id} is disabled; enable it first.`);
  }
  return endpoint;
}
