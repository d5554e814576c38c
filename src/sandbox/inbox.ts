import type { AppContext } from "../context.js";
import { endsWith } from "../db/ends-with.js";
import { rowLimit } from "../db/row-limit.js";
import type { SandboxMessagesTable } from "../db/schema.js";
import type { SandboxInboxEntry } from "../delivery/carrier.js";
import { codeMatches } from "../otp/codes.js";

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

/** An inbox item as the console shows it: with the passcode, when the message delivered one. */
export type InboxItemWithCode = InboxItem & { otp_code: string | null };

/**
 * The passcode in each OTP delivery's text, found by checking the text's candidates against the
 * OTP's stored hash: the code, not any number that looks like one (an order number), and the
 * digits a voice call spells out ("4, 8, 2, 9"). Null for messages that are not an OTP's.
 */
export async function withOtpCodes(ctx: AppContext, items: InboxItem[]): Promise<InboxItemWithCode[]> {
  const messageIds = items.map((item) => item.message_id);
  const otps =
    messageIds.length === 0
      ? []
      : await ctx.db
          .selectFrom("otp_deliveries as d")
          .innerJoin("otps as o", "o.id", "d.otp_id")
          .select(["d.message_id", "o.id", "o.code_hash"])
          .where("d.message_id", "in", messageIds)
          .execute();
  const byMessage = new Map(otps.map((otp) => [otp.message_id, otp]));
  return items.map((item) => {
    const otp = byMessage.get(item.message_id);
    const code = otp
      ? codeCandidates(item.text).find((candidate) =>
          codeMatches(ctx.secret, otp.id, candidate, otp.code_hash),
        )
      : undefined;
    return { ...item, otp_code: code ?? null };
  });
}

/** Runs of 4–10 digits, and 4–10 single digits read out one by one ("4, 8, 2, 9"). */
export function codeCandidates(text: string): string[] {
  const runs = text.match(/(?<!\d)\d{4,10}(?!\d)/g) ?? [];
  const spoken = (text.match(/(?<![\d,] ?)\d(?:, \d){3,9}(?![\d])/g) ?? []).map((digits) =>
    digits.replace(/, /g, ""),
  );
  return [...new Set([...runs, ...spoken])];
}
