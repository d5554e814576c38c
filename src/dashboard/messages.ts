import type { AppContext } from "../context.js";
import type { Channel, Environment, MessageStatus } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { getMessage, type MessageView, toMessageView } from "../sms/messages.js";

export interface MessageFilter {
  status?: MessageStatus | undefined;
  channel?: Channel | undefined;
  to?: string | undefined;
  /** The id of the last message of the previous page. */
  before?: string | undefined;
  limit: number;
}

export interface StatusChange {
  status: MessageStatus;
  at: string;
}

/** One page of an environment's messages, newest first. */
export async function listMessages(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  filter: MessageFilter,
): Promise<{ data: MessageView[]; has_more: boolean }> {
  let query = ctx.db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment);
  if (filter.status !== undefined) query = query.where("status", "=", filter.status);
  if (filter.channel !== undefined) query = query.where("channel", "=", filter.channel);
  if (filter.to !== undefined) query = query.where("recipient", "=", filter.to);
  if (filter.before !== undefined) {
    const cursor = await ctx.db
      .selectFrom("messages")
      .select(["id", "created_at"])
      .where("id", "=", filter.before)
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .executeTakeFirst();
    if (!cursor) throw new ApiError("invalid_request", `No message ${filter.before} to page from.`, "before");
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
    .limit(filter.limit + 1)
    .execute();
  return {
    data: rows.slice(0, filter.limit).map((row) => toMessageView(row)),
    has_more: rows.length > filter.limit,
  };
}

/** A message with the times it moved from status to status, and how often delivery was tried. */
export async function getMessageDetail(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  id: string,
): Promise<MessageView & { history: StatusChange[]; attempts: number }> {
  const message = await getMessage(ctx, scope, id);
  const row = await ctx.db
    .selectFrom("messages")
    .select("attempts")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  const moves: [MessageStatus, string | null][] = [
    ["queued", message.created_at],
    ["submitted", message.submitted_at],
    ["delivered", message.delivered_at],
    ["undelivered", message.undelivered_at],
    ["failed", message.failed_at],
  ];
  const history = moves
    .filter((move): move is [MessageStatus, string] => move[1] !== null)
    .map(([status, at]) => ({ status, at }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return { ...message, history, attempts: Number(row.attempts) };
}
