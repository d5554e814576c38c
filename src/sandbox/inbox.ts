import type { AppContext } from "../context.js";

export interface InboxItem {
  id: string;
  message_id: string;
  channel: string;
  to: string;
  text: string;
  created_at: string;
}

/** What the account's sandbox deliveries would have sent, newest first, optionally to one number. */
export async function listSandboxInbox(
  ctx: AppContext,
  accountId: string,
  options: { to?: string | undefined; limit: number },
): Promise<InboxItem[]> {
  let query = ctx.db
    .selectFrom("sandbox_messages")
    .select(["id", "message_id", "channel", "recipient as to", "text", "created_at"])
    .where("account_id", "=", accountId);
  if (options.to !== undefined) query = query.where("recipient", "=", options.to);
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(options.limit).execute();
}
