import type { AppContext } from "../context.js";
import type { Channel, Environment, MessageStatus } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { listMessagesPage } from "../sms/list.js";
import { getMessage, type MessageView } from "../sms/messages.js";

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

/** One page of an environment's messages, newest first: the public list, with a channel filter. */
export async function listMessages(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  filter: MessageFilter,
): Promise<{ data: MessageView[]; has_more: boolean }> {
  const { before, ...rest } = filter;
  try {
    return await listMessagesPage(ctx, scope, { ...rest, starting_after: before });
  } catch (error) {
    if (error instanceof ApiError && error.param === "starting_after") {
      throw new ApiError("invalid_request", `No message ${before} to page from.`, "before");
    }
    throw error;
  }
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
