import { applyLedgerChange, chargeOf } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import { preparedInsert } from "../db/prepared.js";
import type { DbOrTrx, Environment, MessagesTable } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { newId } from "../lib/ids.js";
import { formatInr } from "../lib/money.js";
import { type MessagePriority, priorityOfLane } from "./traffic.js";

/** A message as the API shows it (docs/sms.md). */
export interface MessageView {
  id: string;
  status: MessagesTable["status"];
  environment: Environment;
  channel: MessagesTable["channel"];
  to: string;
  sender: string | null;
  template_id: string | null;
  reference: string | null;
  text: string;
  encoding: MessagesTable["encoding"];
  segments: number;
  cost: string;
  currency: "INR";
  error_code: string | null;
  error_message: string | null;
  /** The carrier's own code for a refusal or non-delivery, for support (docs/dlt-compliance.md). */
  carrier_error: string | null;
  carrier_message_ids: string[];
  /** The carrier route that took the message (live SMS); null before, and on other channels. */
  route: string | null;
  priority: MessagePriority;
  expires_at: string | null;
  send_at: string | null;
  created_at: string;
  submitted_at: string | null;
  delivered_at: string | null;
  undelivered_at: string | null;
  failed_at: string | null;
  cancelled_at: string | null;
  /** The campaign it was sent for (docs/campaigns.md); null for other messages. */
  campaign_id: string | null;
}

export function toMessageView(row: MessagesTable, carrierMessageIds: string[] = []): MessageView {
  return {
    id: row.id,
    status: row.status,
    environment: row.environment,
    channel: row.channel,
    to: row.recipient,
    sender: row.sender,
    template_id: row.template_id,
    reference: row.reference,
    text: row.text,
    encoding: row.encoding,
    segments: row.segments,
    cost: formatInr(Number(row.cost)),
    currency: "INR",
    error_code: row.error_code,
    error_message: row.error_message,
    carrier_error: row.carrier_error,
    carrier_message_ids: carrierMessageIds,
    route: row.route,
    priority: priorityOfLane(row.priority),
    expires_at: row.expires_at,
    send_at: row.send_at,
    created_at: row.created_at,
    submitted_at: row.submitted_at,
    delivered_at: row.delivered_at,
    undelivered_at: row.undelivered_at,
    failed_at: row.failed_at,
    cancelled_at: row.cancelled_at,
    campaign_id: row.campaign_id,
  };
}

/** A message of this account and environment; anything else is `not_found`, never a hint that it exists. */
export async function getMessage(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  id: string,
): Promise<MessageView> {
  const row = await ctx.db
    .selectFrom("messages")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", `No message ${id}.`, "id");
  const parts = await ctx.db
    .selectFrom("carrier_messages")
    .select("carrier_message_id")
    .where("message_id", "=", id)
    .orderBy("part")
    .execute();
  return toMessageView(
    row,
    parts.map((p) => p.carrier_message_id),
  );
}

/** The fields that make a message; the rest start the same for every new one. */
export type NewMessage = Pick<
  MessagesTable,
  | "account_id"
  | "environment"
  | "channel"
  | "recipient"
  | "sender"
  | "template_id"
  | "entity_id"
  | "reference"
  | "text"
  | "encoding"
  | "segments"
  | "cost"
  | "sealed"
  | "priority"
  | "category"
  | "expires_at"
  | "send_at"
>;

/** A new message: queued and due at once, or scheduled for its `send_at`. */
export function queuedMessage(now: string, fields: NewMessage): MessagesTable {
  return {
    id: newId("msg"),
    ...fields,
    status: fields.send_at === null ? "queued" : "scheduled",
    error_code: null,
    error_message: null,
    carrier_error: null,
    carrier: null,
    route: null,
    attempts: 0,
    next_attempt_at: fields.send_at ?? now,
    lease_until: null,
    lease_owner: null,
    created_at: now,
    submitted_at: null,
    delivered_at: null,
    undelivered_at: null,
    failed_at: null,
    cancelled_at: null,
    updated_at: now,
    campaign_id: null,
  };
}

/** A message row's insert, compiled once (see `preparedInsert`). */
export const insertMessage = preparedInsert("messages");

/** Debits a message's cost through the ledger and puts it in the queue, in the caller's transaction. */
export async function chargeAndQueue(trx: DbOrTrx, ctx: AppContext, row: MessagesTable): Promise<void> {
  if (row.cost > 0) {
    await applyLedgerChange(trx, ctx.clock, {
      accountId: row.account_id,
      environment: row.environment,
      ...chargeOf(row),
    });
  }
  await insertMessage.execute(trx, row);
}
