import type { Transaction } from "kysely";
import type { AppContext } from "../context.js";
import { executeForIds, insertRows, prepareForIds, prepareQuery } from "../db/prepared.js";
import type {
  CarrierMessagesTable,
  Database,
  DbOrTrx,
  MessagesTable,
  SandboxMessagesTable,
} from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { burstsRetriedOneByOne } from "../db/write-bursts.js";
import { isoNow } from "../lib/clock.js";
import { type MessageEventType, recordMessageEvents } from "../messages/events.js";
import { applyReportedParts, recordReceipt } from "../receipts/receipts.js";
import { inboxRow } from "../sandbox/inbox.js";
import type { AcceptingRoute, CarriedPart, Receipt, SandboxInboxEntry } from "./carrier.js";
import type { ClaimedMessage } from "./claims.js";

/** The claim a worker holds on a message while it delivers it. */
export interface Lease {
  messageId: string;
  owner: string;
}

/** A carrier's acceptance of a leased message (a `SendResult` of outcome `accepted`). */
export interface Acceptance {
  /** The message as the worker claimed it. While leased, only its holder changes it. */
  message: ClaimedMessage;
  /** The worker holding the message's lease. */
  owner: string;
  carrier: string;
  /** One per part. */
  carrierMessageIds: string[];
  /** How many of the first `carrierMessageIds` were recorded already, as they were carried. */
  recordedParts?: number;
  /** Reports the carrier already knows (the sandbox's). */
  receipts?: Receipt[];
  /** The sandbox inbox entry. */
  inbox?: SandboxInboxEntry;
  route?: AcceptingRoute;
}

/**
 * The carrier took the message: record its part ids and leave the queue. Receipts the carrier
 * already knows and the sandbox inbox entry (the sandbox's) are recorded in the same
 * transaction, so a crash cannot keep the acceptance and lose them, and a lost lease adds nothing.
 */
export async function markSubmitted(
  ctx: AppContext,
  lease: Lease,
  carrier: string,
  carrierMessageIds: string[],
  receipts: Receipt[] = [],
  inbox?: SandboxInboxEntry,
  route?: AcceptingRoute,
): Promise<boolean> {
  const message = await ctx.db
    .selectFrom("messages")
    .selectAll()
    .where("id", "=", lease.messageId)
    .executeTakeFirst();
  if (!message) return false;
  const [recorded] = await recordAcceptances(ctx, [
    {
      message,
      owner: lease.owner,
      carrier,
      carrierMessageIds,
      receipts,
      ...(inbox ? { inbox } : {}),
      ...(route ? { route } : {}),
    },
  ]);
  return recorded === true;
}

/** `recordAcceptances` of the acceptances that come back together (`burstsRetriedOneByOne`). */
export function acceptancesInBursts(ctx: AppContext): (acceptance: Acceptance) => Promise<boolean> {
  return burstsRetriedOneByOne((acceptances: readonly Acceptance[]) => recordAcceptances(ctx, acceptances));
}

/**
 * `markSubmitted` for many messages in one transaction, in a few multi-row statements: what the
 * delivery worker does with the acceptances that come back together. Answers, for each, whether
 * it was recorded (not if its lease was lost). If the transaction fails, none is recorded.
 */
export function recordAcceptances(ctx: AppContext, acceptances: readonly Acceptance[]): Promise<boolean[]> {
  const now = isoNow(ctx.clock);
  return inTransaction(ctx, async (trx) => {
    // Parts carried on earlier tries may have been reported on already. Their rows are locked
    // before the messages', in the order a receipt takes them, so no report slips in unseen.
    const reported = new Set<string>();
    for (const { message, recordedParts } of acceptances) {
      if (!recordedParts) continue;
      const earlier = await lockPartsOf.execute(trx, { messageId: message.id });
      if (earlier.rows.some((part) => part.status !== "submitted")) reported.add(message.id);
    }
    const accepted = await acceptMessages(trx, acceptances, now);
    const parts: CarrierMessagesTable[] = [];
    const inbox: SandboxMessagesTable[] = [];
    const writes: AcceptedWrite[] = [];
    const recorded = acceptances.map(({ message, carrier, carrierMessageIds, route, ...known }) => {
      const row = accepted.get(message.id);
      // A message leaves the queue once: a second acceptance of it in the batch loses, as it would alone.
      if (!row) return false;
      accepted.delete(message.id);
      const status = row.status === "delivered" ? "delivered" : "submitted";
      carrierMessageIds.forEach((carrierMessageId, index) => {
        // Parts carried on earlier tries were recorded then.
        if (index < (known.recordedParts ?? 0)) return;
        parts.push({
          carrier: route?.receiptCarrier ?? carrier,
          carrier_message_id: carrierMessageId,
          message_id: row.id,
          part: index + 1,
          status,
          error_code: null,
          updated_at: now,
        });
      });
      if (known.inbox) inbox.push(inboxRow(row.id, known.inbox, now));
      if (status === "delivered") {
        // Every part was reported delivered with the acceptance: both events, as if the
        // receipts had come one by one.
        const submitted = { ...row, status: "submitted" as const, delivered_at: null };
        writes.push({
          events: [
            { type: "sms.submitted", row: submitted, carrierMessageIds },
            { type: "sms.delivered", row, carrierMessageIds },
          ],
          receipts: [],
        });
      } else {
        writes.push({
          events: [{ type: "sms.submitted", row, carrierMessageIds }],
          receipts: known.receipts ?? [],
          ...(reported.has(row.id) ? { reportedParts: { messageId: row.id, carrierMessageIds } } : {}),
        });
      }
      return true;
    });
    await insertRows(trx, "carrier_messages", parts);
    await insertRows(trx, "sandbox_messages", inbox);
    // Events in the order of the acceptances, each followed by what its reports end, as one by
    // one; the events of acceptances with no reports to apply (nearly all) share one insert.
    let events: MessageChange[] = [];
    for (const write of writes) {
      events.push(...write.events);
      if (write.receipts.length === 0 && !write.reportedParts) continue;
      await recordMessageEvents(trx, ctx, events);
      events = [];
      for (const receipt of write.receipts) await recordReceipt(trx, ctx, now, receipt);
      const { reportedParts } = write;
      if (reportedParts) {
        await applyReportedParts(trx, ctx, now, reportedParts.messageId, reportedParts.carrierMessageIds);
      }
    }
    await recordMessageEvents(trx, ctx, events);
    return recorded;
  });
}

type MessageChange = { type: MessageEventType; row: MessagesTable; carrierMessageIds: string[] };

/** What an acceptance writes after its message's row and parts: its events, then what its reports end. */
interface AcceptedWrite {
  events: MessageChange[];
  /** Reports the carrier sent with the acceptance. */
  receipts: Receipt[];
  /** Parts carried on earlier tries that were reported on already. */
  reportedParts?: { messageId: string; carrierMessageIds: string[] };
}

/**
 * The messages a delivery may change: those still queued and, where `owner` is named, leased to
 * it, so that a worker that lost its lease changes nothing.
 */
export function deliverableMessages(db: DbOrTrx, owner: string | undefined) {
  const queued = db.updateTable("messages").where("status", "=", "queued");
  return owner === undefined ? queued : queued.where("lease_owner", "=", owner);
}

/** Locks a message's parts (for `recordAcceptances`) and answers their status. */
const lockPartsOf = prepareQuery<{ messageId: string }, Pick<CarrierMessagesTable, "status">>((db, param) =>
  db
    .updateTable("carrier_messages")
    .set((eb) => ({ updated_at: eb.ref("updated_at") }))
    .where("message_id", "=", param("messageId"))
    .returning("status"),
);

/**
 * The parts of a long message the carrier accepted on earlier tries of a queued message, in
 * order, for its next try.
 */
export async function carriedPartsOf(ctx: AppContext, messageId: string): Promise<CarriedPart[]> {
  const { rows } = await carriedParts.execute(ctx.db, { messageId });
  return rows.map((row) => ({
    part: row.part,
    carrierMessageId: row.carrier_message_id,
    receiptCarrier: row.carrier,
  }));
}

export const carriedParts = prepareQuery<
  { messageId: string },
  Pick<CarrierMessagesTable, "part" | "carrier_message_id" | "carrier">
>((db, param) =>
  db
    .selectFrom("carrier_messages")
    .select(["part", "carrier_message_id", "carrier"])
    .where("message_id", "=", param("messageId"))
    .orderBy("part"),
);

/**
 * A part of a long message the carrier accepted while later parts are still to go: kept with
 * the route that took it, before the next part is sent, so that no later try sends it again.
 * Answers false, recording nothing, when the lease was lost (the message is not ours to send).
 */
export async function recordCarriedPart(
  ctx: AppContext,
  lease: Lease,
  carrier: string,
  part: CarriedPart,
  route: AcceptingRoute,
): Promise<boolean> {
  const now = isoNow(ctx.clock);
  return inTransaction(ctx, async (trx) => {
    // The message's row first, as failing or accepting it takes it: whoever comes second sees
    // what the first did.
    const held = await deliverableMessages(trx, lease.owner)
      .set({ carrier, route: route.name, updated_at: now })
      .where("id", "=", lease.messageId)
      .returning("id")
      .executeTakeFirst();
    if (!held) return false;
    await trx
      .insertInto("carrier_messages")
      .values({
        carrier: part.receiptCarrier,
        carrier_message_id: part.carrierMessageId,
        message_id: lease.messageId,
        part: part.part,
        status: "submitted",
        error_code: null,
        updated_at: now,
      })
      .execute();
    return true;
  });
}

/** Whether the carrier reported every part delivered along with the acceptance (the sandbox does). */
function deliveredAtOnce({ carrier, carrierMessageIds, receipts = [] }: Acceptance): boolean {
  return (
    carrierMessageIds.length > 0 &&
    carrierMessageIds.every((id) =>
      receipts.some((r) => r.carrier === carrier && r.carrierMessageId === id && r.state === "delivered"),
    )
  );
}

/**
 * The accepted messages leave the queue, `delivered` at once if every part was reported
 * delivered, else `submitted`: one update per kind of acceptance (nearly always one). Answers
 * the rows by id, as the update left them; a message whose lease was lost is not among them.
 * The update answers only ids: the rest of each row is the claimed row with the update's
 * changes, which is what the database now holds, since no one else changes a leased message.
 */
async function acceptMessages(
  trx: Transaction<Database>,
  acceptances: readonly Acceptance[],
  now: string,
): Promise<Map<string, MessagesTable>> {
  const kinds = new Map<string, { fields: AcceptedFields; claimed: Map<string, ClaimedMessage> }>();
  for (const acceptance of acceptances) {
    const delivered = deliveredAtOnce(acceptance);
    const fields: AcceptedFields = {
      owner: acceptance.owner,
      status: delivered ? "delivered" : "submitted",
      deliveredAt: delivered ? now : null,
      carrier: acceptance.carrier,
      route: acceptance.route?.name ?? null,
      now,
    };
    const kind = JSON.stringify(fields);
    const entry = kinds.get(kind) ?? { fields, claimed: new Map() };
    if (!entry.claimed.has(acceptance.message.id))
      entry.claimed.set(acceptance.message.id, acceptance.message);
    kinds.set(kind, entry);
  }
  const accepted = new Map<string, MessagesTable>();
  for (const { fields, claimed } of kinds.values()) {
    for (const { id } of await executeForIds(trx, acceptMessagesOf, fields, [...claimed.keys()])) {
      accepted.set(id, acceptedRow(claimed.get(id) as ClaimedMessage, fields));
    }
  }
  return accepted;
}

/** How a kind of acceptance leaves its messages. */
interface AcceptedFields {
  owner: string;
  status: "submitted" | "delivered";
  deliveredAt: string | null;
  carrier: string;
  route: string | null;
  now: string;
}

/**
 * The row of a claimed message as its acceptance leaves it. Written out in full: a row spread
 * from the claimed columns and grown key by key cost V8 a tenth of the worker's time.
 */
function acceptedRow(message: ClaimedMessage, fields: AcceptedFields): MessagesTable {
  const changed = acceptedColumns(fields);
  return {
    id: message.id,
    account_id: message.account_id,
    environment: message.environment,
    channel: message.channel,
    recipient: message.recipient,
    sender: message.sender,
    template_id: message.template_id,
    entity_id: message.entity_id,
    reference: message.reference,
    text: message.text,
    encoding: message.encoding,
    segments: message.segments,
    cost: message.cost,
    status: changed.status,
    error_code: changed.error_code,
    error_message: changed.error_message,
    carrier_error: changed.carrier_error,
    carrier: changed.carrier,
    route: changed.route,
    attempts: message.attempts + 1,
    next_attempt_at: changed.next_attempt_at,
    lease_until: changed.lease_until,
    lease_owner: changed.lease_owner,
    created_at: message.created_at,
    submitted_at: changed.submitted_at,
    delivered_at: changed.delivered_at,
    // It was queued until now, so it had reached no final status.
    undelivered_at: null,
    failed_at: null,
    updated_at: changed.updated_at,
    sealed: changed.sealed,
    priority: message.priority,
    category: message.category,
    expires_at: message.expires_at,
    send_at: message.send_at,
    cancelled_at: null,
    campaign_id: message.campaign_id,
  };
}

/** What an acceptance writes to its message, but for `attempts`, which goes up by one. */
function acceptedColumns(fields: AcceptedFields) {
  return {
    status: fields.status,
    delivered_at: fields.deliveredAt,
    carrier: fields.carrier,
    route: fields.route,
    sealed: null,
    submitted_at: fields.now,
    updated_at: fields.now,
    error_code: null,
    error_message: null,
    carrier_error: null,
    next_attempt_at: null,
    lease_until: null,
    lease_owner: null,
  } satisfies Partial<MessagesTable>;
}

/**
 * Leased, queued messages of a chunk leave the queue as accepted, compiled once per count; those
 * whose lease was lost are untouched.
 */
const acceptMessagesOf = prepareForIds<AcceptedFields, Pick<MessagesTable, "id">>((db, param, ids) =>
  deliverableMessages(db, param("owner"))
    .set((eb) => ({
      ...acceptedColumns({
        owner: param("owner"),
        status: param("status"),
        deliveredAt: param("deliveredAt"),
        carrier: param("carrier"),
        route: param("route"),
        now: param("now"),
      }),
      attempts: eb("attempts", "+", 1),
    }))
    .where("id", "in", ids)
    .returning("id"),
);
