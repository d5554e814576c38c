import type { AppContext } from "../context.js";
import { rowLimit } from "../db/row-limit.js";
import type { WebhookAttemptsTable } from "../db/schema.js";
import { ApiError } from "../errors.js";
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
  return (await listAttemptsPage(ctx, scope, endpointId, { limit })).data;
}

/**
 * One page of an endpoint's attempts, newest first: those older than the attempt `before` (the
 * last one of the previous page), and whether more follow.
 */
export async function listAttemptsPage(
  ctx: AppContext,
  scope: EndpointScope,
  endpointId: string,
  page: { limit: number; before?: string | undefined },
): Promise<{ data: WebhookAttempt[]; has_more: boolean }> {
  const endpoint = await findEndpoint(ctx.db, scope, endpointId);
  let query = ctx.db.selectFrom("webhook_attempts").selectAll().where("endpoint_id", "=", endpoint.id);
  if (page.before !== undefined) {
    const cursor = await ctx.db
      .selectFrom("webhook_attempts")
      .select(["created_at", "id"])
      .where("endpoint_id", "=", endpoint.id)
      .where("id", "=", page.before)
      .executeTakeFirst();
    if (!cursor) throw new ApiError("invalid_request", `No attempt ${page.before} to page from.`, "before");
    query = query.where((eb) =>
      eb.or([
        eb("created_at", "<", cursor.created_at),
        eb.and([eb("created_at", "=", cursor.created_at), eb("id", "<", cursor.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(rowLimit(page.limit + 1))
    .execute();
  return { data: rows.slice(0, page.limit).map(toAttempt), has_more: rows.length > page.limit };
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
