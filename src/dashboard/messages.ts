import type { AppContext } from "../context.js";
import type { Channel, Environment, MessageStatus } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { formatInr, parseInr } from "../lib/money.js";
import { getMessage, type MessageView } from "../messages/store.js";
import { listMessagesPage } from "../sms/list.js";
import type { TimeRange } from "./date-range.js";
import type { NumberFilter } from "./number-filter.js";

export interface MessageFilter {
  status?: MessageStatus | undefined;
  channel?: Channel | undefined;
  /** One number, or the last digits of numbers (parseNumberFilter). */
  to?: NumberFilter | undefined;
  /** Messages created in this span (parseIndiaDateRange). */
  created?: TimeRange | undefined;
  /** The id of the last message of the previous page. */
  before?: string | undefined;
  limit: number;
}

export interface StatusChange {
  status: MessageStatus;
  at: string;
}

/** A charge given back: `amount` as an INR string, at the time the message failed or was cancelled. */
export interface Refund {
  amount: string;
  refunded_at: string;
}

/** A message as the dashboard shows it: the API's view, with the refund of its charge, if any. */
export type DashboardMessage = MessageView & { refund: Refund | null };

/**
 * A message that failed got its whole charge back through the ledger, in the transaction that
 * failed it (`<channel>_refund`, referencing the message; see failMessage in
 * delivery/failures.ts), so its refund is its `cost`, when it failed; a cancelled one likewise, in
 * the transaction that cancelled it (sms/cancel.ts). A long message of which the carrier took
 * only the first parts ended `undelivered` without ever being `submitted`, its `cost` lowered to
 * the parts carried (each an equal share) and the rest refunded then. No other message was
 * refunded.
 */
export function withRefund(message: MessageView): DashboardMessage {
  const cost = parseInr(message.cost) ?? 0;
  const carried = message.carrier_message_ids.length;
  let refund: Refund | null = null;
  if (message.status === "failed" && cost > 0 && message.failed_at !== null) {
    refund = { amount: message.cost, refunded_at: message.failed_at };
  } else if (message.status === "cancelled" && cost > 0 && message.cancelled_at !== null) {
    refund = { amount: message.cost, refunded_at: message.cancelled_at };
  } else if (
    message.status === "undelivered" &&
    message.submitted_at === null &&
    message.undelivered_at !== null &&
    carried > 0 &&
    carried < message.segments &&
    cost > 0
  ) {
    const amount = Math.round((cost * (message.segments - carried)) / carried);
    refund = { amount: formatInr(amount), refunded_at: message.undelivered_at };
  }
  return { ...message, refund };
}

/** A message in the dashboard's list: with the name the account gave its template, if it has one. */
export type ListedMessage = DashboardMessage & { template_name: string | null };

/**
 * One page of an environment's messages, newest first: the public list, with a channel filter
 * and the names of the templates the page's messages used (one query for the page).
 */
export async function listMessages(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  filter: MessageFilter,
): Promise<{ data: ListedMessage[]; has_more: boolean }> {
  const { before, to, created, ...rest } = filter;
  const number = to === undefined ? {} : "exact" in to ? { to: to.exact } : { to_suffix: to.suffix };
  try {
    const page = await listMessagesPage(ctx, scope, {
      ...rest,
      ...number,
      created_after: created?.after,
      created_before: created?.before,
      starting_after: before,
    });
    const names = await templateNames(
      ctx,
      scope.accountId,
      page.data.map((message) => message.template_id),
    );
    return {
      data: page.data.map((message) => ({
        ...withRefund(message),
        template_name: message.template_id === null ? null : (names.get(message.template_id) ?? null),
      })),
      has_more: page.has_more,
    };
  } catch (error) {
    if (error instanceof ApiError && error.param === "starting_after") {
      throw new ApiError("invalid_request", `No message ${before} to page from.`, "before");
    }
    throw error;
  }
}

/** The names of an account's templates by DLT template id; a template since removed has none. */
async function templateNames(
  ctx: AppContext,
  accountId: string,
  templateIds: ReadonlyArray<string | null>,
): Promise<Map<string, string>> {
  const ids = [...new Set(templateIds.filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom("templates")
    .select(["template_id", "name"])
    .where("account_id", "=", accountId)
    .where("template_id", "in", ids)
    .execute();
  return new Map(rows.map((row) => [row.template_id, row.name]));
}

/** A message with the times it moved from status to status, and how often delivery was tried. */
export async function getMessageDetail(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  id: string,
): Promise<DashboardMessage & { history: StatusChange[]; attempts: number }> {
  const message = await getMessage(ctx, scope, id);
  const row = await ctx.db
    .selectFrom("messages")
    .select("attempts")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return { ...withRefund(message), history: statusHistory(message), attempts: Number(row.attempts) };
}

/**
 * The statuses a message went through, oldest first, from the times it keeps. A message with a
 * `send_at` was `scheduled` when accepted and joined the queue at `send_at` (the release follows
 * within a second); one held back for the promotional window shows that wait the same way.
 */
function statusHistory(message: MessageView): StatusChange[] {
  const ended = message.cancelled_at ?? message.failed_at;
  const sendAt = message.send_at;
  const released =
    sendAt !== null &&
    message.status !== "scheduled" &&
    (message.submitted_at !== null || ended === null || sendAt <= ended);
  const moves: [MessageStatus, string | null][] = [
    [sendAt === null ? "queued" : "scheduled", message.created_at],
    ["queued", released ? sendAt : null],
    ["submitted", message.submitted_at],
    ["delivered", message.delivered_at],
    ["undelivered", message.undelivered_at],
    ["failed", message.failed_at],
    ["cancelled", message.cancelled_at],
  ];
  return moves
    .filter((move): move is [MessageStatus, string] => move[1] !== null)
    .map(([status, at]) => ({ status, at }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
