import type { AppContext } from "../context.js";
import { endsWith } from "../db/ends-with.js";
import { rowLimit } from "../db/row-limit.js";
import type { SandboxMessagesTable } from "../db/schema.js";
import type { SandboxInboxEntry } from "../delivery/carrier.js";

export interface InboxItem {
  id: string;
  message_id: string;
  channel: string;
  to: string;
  text: string;
  created_at: string;
}

/**
 * What the account's sandbox deliveries would have sent, newest first, optionally to one number
 * or to the numbers ending in some digits.
 */
export async function listSandboxInbox(
  ctx: AppContext,
  accountId: string,
  options: { to?: string | undefined; toSuffix?: string | undefined; limit: number },
): Promise<InboxItem[]> {
  let query = ctx.db
    .selectFrom("sandbox_messages")
    .select(["id", "message_id", "channel", "recipient as to", "text", "created_at"])
    .where("account_id", "=", accountId);
  if (options.to !== undefined) query = query.where("recipient", "=", options.to);
  if (options.toSuffix !== undefined) query = query.where(endsWith("recipient", options.toSuffix));
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(rowLimit(options.limit)).execute();
}

/** A sandbox delivery's inbox entry as stored, with the transaction that records the acceptance. */
export function inboxRow(messageId: string, entry: SandboxInboxEntry, now: string): SandboxMessagesTable {
  return {
    id: entry.id,
    account_id: entry.accountId,
    message_id: messageId,
    channel: entry.channel,
    recipient: entry.to,
    text: entry.text,
    created_at: now,
  };
}
