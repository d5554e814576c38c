import type { AppContext } from "../context.js";
import { endsWith } from "../db/ends-with.js";
import { rowLimit } from "../db/row-limit.js";
import type { Channel, Environment, MessageStatus } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { type MessageView, toMessageView } from "../messages/store.js";

export interface MessageListFilter {
  status?: MessageStatus | undefined;
  channel?: Channel | undefined;
  to?: string | undefined;
  /** The last digits of the number (the dashboard's search); LIKE's wildcards in it are escaped. */
  to_suffix?: string | undefined;
  reference?: string | undefined;
  /** RFC 3339; messages created at or after it. */
  created_after?: string | undefined;
  /** RFC 3339; messages created before it. */
  created_before?: string | undefined;
  /** The id of the last message of the previous page. */
  starting_after?: string | undefined;
  limit: number;
}

/**
 * One page of the environment's messages, newest first (GET /v2/sms), ordered by
 * (created_at, id) so that messages of the same millisecond page without gaps or repeats.
 * Each item is the message as `GET /v2/sms/{id}` shows it.
 */
export async function listMessagesPage(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  filter: MessageListFilter,
): Promise<{ data: MessageView[]; has_more: boolean }> {
  let query = ctx.db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment);
  if (filter.status !== undefined) query = query.where("status", "=", filter.status);
  if (filter.channel !== undefined) query = query.where("channel", "=", filter.channel);
  if (filter.to !== undefined) query = query.where("recipient", "=", filter.to);
  // No index serves an ends-with match: the page is read newest first along the account's
  // (created_at, id) index, and stops once it has its rows.
  if (filter.to_suffix !== undefined) query = query.where(endsWith("recipient", filter.to_suffix));
  if (filter.reference !== undefined) query = query.where("reference", "=", filter.reference);
  if (filter.created_after !== undefined) {
    query = query.where("created_at", ">=", utc(filter.created_after, "created_after"));
  }
  if (filter.created_before !== undefined) {
    query = query.where("created_at", "<", utc(filter.created_before, "created_before"));
  }
  if (filter.starting_after !== undefined) {
    const cursor = await ctx.db
      .selectFrom("messages")
      .select(["created_at", "id"])
      .where("id", "=", filter.starting_after)
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .executeTakeFirst();
    if (!cursor) {
      throw new ApiError("not_found", `No message ${filter.starting_after} to page from.`, "starting_after");
    }
    query = query.where((eb) =>
      eb(eb.refTuple("created_at", "id"), "<", eb.tuple(cursor.created_at, cursor.id)),
    );
  }
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(rowLimit(filter.limit + 1))
    .execute();
  const page = rows.slice(0, filter.limit);
  const parts =
    page.length === 0
      ? []
      : await ctx.db
          .selectFrom("carrier_messages")
          .select(["message_id", "carrier_message_id"])
          .where(
            "message_id",
            "in",
            page.map((row) => row.id),
          )
          .orderBy("message_id")
          .orderBy("part")
          .execute();
  const partsOf = new Map<string, typeof parts>();
  for (const part of parts) partsOf.set(part.message_id, [...(partsOf.get(part.message_id) ?? []), part]);
  return {
    data: page.map((row) =>
      toMessageView(
        row,
        (partsOf.get(row.id) ?? []).map((part) => part.carrier_message_id),
      ),
    ),
    has_more: rows.length > filter.limit,
  };
}

/** Stored times are UTC with milliseconds and compare as text: bring any RFC 3339 offset to that form. */
function utc(value: string, param: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new ApiError("invalid_request", `${param} must be an RFC 3339 time.`, param);
  return new Date(time).toISOString();
}
