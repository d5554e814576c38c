import type { AppContext } from "../context.js";
import { rowLimit } from "../db/row-limit.js";
import type { WebhookAttemptsTable } from "../db/schema.js";
import { type EndpointScope, findEndpoint } from "./endpoints.js";

/** An attempt as `GET /v2/webhooks/{id}/attempts` shows it. */
export interface WebhookAttempt {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

export async function listAttempts(
  ctx: AppContext,
  scope: EndpointScope,
  endpointId: string,
  limit: number,
): Promise<WebhookAttempt[]> {
  const endpoint = await findEndpoint(ctx.db, scope, endpointId);
  const rows = await ctx.db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("endpoint_id", "=", endpoint.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(rowLimit(limit))
    .execute();
  return rows.map(toAttempt);
}

function toAttempt(row: WebhookAttemptsTable): WebhookAttempt {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    status_code: row.status_code,
    error: row.error,
    duration_ms: row.duration_ms,
    created_at: row.created_at,
  };
}
