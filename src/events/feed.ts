import type { AppContext } from "../context.js";
import { rowLimit } from "../db/row-limit.js";
import type { Environment, EventType } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { lookAtEventWriters, settledEventsOnly } from "./event-order.js";
import { type EventView, toEventView } from "./outbox.js";

export interface EventFilter {
  type?: EventType | undefined;
  /** The id of the last event already read: the page starts after it. */
  after?: string | undefined;
  limit: number;
}

/**
 * One page of an environment's events, oldest first, in an order later commits can never
 * sort into the part already read (src/events/event-order.ts): paging with `after` sees every
 * event exactly once, however many transactions write at the same time.
 */
export async function listEvents(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  filter: EventFilter,
): Promise<{ data: EventView[]; has_more: boolean }> {
  const writers = await lookAtEventWriters(ctx.db, ctx.dialect);
  let query = ctx.db
    .selectFrom("events")
    .select(["id", "type", "created_at", "environment", "data"])
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment);
  if (filter.type !== undefined) query = query.where("type", "=", filter.type);
  if (filter.after !== undefined) {
    const cursor = await ctx.db
      .selectFrom("events")
      .select(["txid", "seq"])
      .where("id", "=", filter.after)
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .executeTakeFirst();
    if (!cursor) throw new ApiError("not_found", `No event ${filter.after} to page from.`, "after");
    query = query.where((eb) => eb(eb.refTuple("txid", "seq"), ">", eb.tuple(cursor.txid, cursor.seq)));
  }
  const settled = settledEventsOnly(writers);
  if (settled) query = query.where(settled);
  const rows = await query
    .orderBy("txid")
    .orderBy("seq")
    .limit(rowLimit(filter.limit + 1))
    .execute();
  return { data: rows.slice(0, filter.limit).map(toEventView), has_more: rows.length > filter.limit };
}
