import type { Transaction } from "kysely";
import { applyLedgerCharges, chargeInOneFlight, chargeOf } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import { commitInLane, sendLane } from "../db/postgres/flight-lanes.js";
import { FlightRefused, statementOf } from "../db/postgres/one-flight.js";
import { insertRows } from "../db/prepared.js";
import type { Database, DbOrTrx } from "../db/schema.js";
import { type BurstRunner, burstQueue } from "../db/sqlite/transaction-bursts.js";
import { inTransaction, transactionConflictOf } from "../db/transaction.js";
import { type WriteForm, writeFormOf } from "../db/write-form.js";
import { ApiError } from "../errors.js";
import { chargeAndQueue, insertMessage } from "../messages/store.js";
import {
  claimRecipients,
  countNewRecipient,
  countNewRecipients,
  countRecipientInFlight,
  forgetRecipients,
  holdRecipientCount,
  type RecipientScope,
  uncountRecipient,
} from "./recipient-cap.js";
import type { PreparedSms } from "./types.js";

/*
 * Every SMS a request queues (POST /v2/sms/send, POST /v2/sms/batch) is written here, after its
 * checks and its price (send.ts's `prepareSms`): its recipient counted against the hourly cap
 * (recipient-cap.ts), its cost debited (src/accounts/ledger.ts), its message queued. The form of
 * the write (src/db/write-form.ts) is chosen in `queueSends` alone; every form answers what the
 * transaction form would: the same sends queued, the same refusals, the same rows.
 */

/** Each send's refusal, in order: `undefined` for a send that was queued. */
export type Refusals = Array<ApiError | undefined>;

/** The sends of one request, of one account and environment. */
export interface SmsWrite {
  scope: RecipientScope;
  sends: readonly PreparedSms[];
  /**
   * A batch: its sends commit together, in one transaction, each queued or refused on its own
   * (docs/sms-batch.md). A single send's refusal leaves nothing behind.
   */
  batch: boolean;
  /**
   * Makes the request's answer from the refusals in the sends' transaction, and stores it there
   * (an Idempotency-Key's answer, `RecordAnswer`): it commits with them or not at all.
   */
  answer?: (trx: Transaction<Database>, refusals: Refusals) => Promise<void>;
}

/**
 * Writes a request's sends in the form their request takes: the transaction when its answer is
 * made with them (a batch, an Idempotency-Key), else one flight of one round trip each on
 * PostgreSQL and the event loop turn's burst on SQLite. `form` forces one (tests drive each).
 */
export function queueSends(
  ctx: AppContext,
  write: SmsWrite,
  form: WriteForm = writeFormOf(ctx.dialect, { storesAnswer: write.batch || write.answer !== undefined }),
): Promise<Refusals> {
  switch (form) {
    case "transaction":
      return queueInTransaction(ctx, write);
    case "one_flight":
      return Promise.all(write.sends.map((sms) => queueInOneFlight(ctx, write.scope, sms)));
    case "burst":
      return Promise.all(
        write.sends.map((sms) => burstQueue(ctx, sendsInBurst).add({ scope: write.scope, sms })),
      );
  }
}

/**
 * The transaction form: the sends and the answer in one transaction, which a single send's
 * refusal rolls back.
 */
async function queueInTransaction(ctx: AppContext, write: SmsWrite): Promise<Refusals> {
  try {
    return await inTransaction(ctx, async (trx) => {
      const refusals = await countChargeAndQueue(trx, ctx, write.scope, write.sends);
      if (!write.batch) {
        const [refusal] = refusals;
        if (refusal) throw new SingleSendRefused(refusal);
      }
      await write.answer?.(trx, refusals);
      return refusals;
    });
  } catch (error) {
    if (error instanceof SingleSendRefused) return [error.refusal];
    throw error;
  }
}

/** Rolls a single send's transaction back, carrying its refusal out. */
class SingleSendRefused extends Error {
  constructor(readonly refusal: ApiError) {
    super(refusal.message);
  }
}

/**
 * The one-flight form (PostgreSQL): the send's writes in one round trip (src/db/postgres/one-flight.ts),
 * in the lane of the account's other sends (src/db/postgres/flight-lanes.ts), taking their rows in the
 * lock order (src/accounts/ledger.ts). When the cap or the balance refused, or PostgreSQL aborted
 * the flight for a conflict, it wrote nothing, and the transaction form gives the answer.
 */
async function queueInOneFlight(
  ctx: AppContext,
  scope: RecipientScope,
  sms: PreparedSms,
): Promise<ApiError | undefined> {
  const { row } = sms;
  const recipient = countRecipientInFlight(ctx, scope, row.recipient);
  const debit = row.cost > 0 ? chargeInOneFlight(ctx.db, scope, chargeOf(row), row.created_at) : undefined;
  try {
    await commitInLane(ctx, sendLane(scope, row.recipient), {
      own: [statementOf(insertMessage.compile(ctx.db, row)), recipient.claim],
      counters: [recipient.count],
      debit,
    });
    return undefined;
  } catch (error) {
    if (!(error instanceof FlightRefused || transactionConflictOf(error))) throw error;
  }
  const [refusal] = await queueInTransaction(ctx, { scope, sends: [sms], batch: false });
  return refusal;
}

interface BurstSend {
  scope: RecipientScope;
  sms: PreparedSms;
}

/**
 * The burst form (SQLite): the sends that arrive in one turn of the event loop go in one
 * transaction (src/db/sqlite/transaction-bursts.ts, whose failure fails them all), each account and
 * environment's as a batch's items go, in arrival order; each is answered once it has committed.
 */
function sendsInBurst(ctx: AppContext): BurstRunner<BurstSend, ApiError | undefined> {
  return {
    groupOf: ({ scope }) => `${scope.accountId} ${scope.environment}`,
    run: (trx, sends) =>
      countChargeAndQueue(
        trx,
        ctx,
        (sends[0] as BurstSend).scope,
        sends.map((send) => send.sms),
      ),
  };
}

/**
 * Counts, charges and queues sends of one account and environment in the caller's transaction,
 * in order, each as if it came alone: a refused send (past the cap, or a balance that no longer
 * covers it) leaves nothing behind and does not stop the others. When nothing is refused, as
 * nearly always, they are counted, charged and queued together, in a handful of statements
 * (five for one send, as many for a hundred).
 */
async function countChargeAndQueue(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  sends: readonly PreparedSms[],
): Promise<Refusals> {
  // All the numbers first, in one statement and in sorted order, then the count, then the balance:
  // the lock order of every transaction that sends (src/accounts/ledger.ts).
  const fresh = await claimRecipients(
    trx,
    ctx,
    scope,
    sends.map((send) => send.row.recipient),
  );
  if (await chargeAndQueueAll(trx, ctx, scope, sends, fresh)) return sends.map(() => undefined);
  const { refusals, counted } = await chargeAndQueueEach(trx, ctx, scope, sends, fresh);
  await forgetRecipients(trx, ctx, scope, fresh, counted);
  return refusals;
}

/**
 * Every send at once, when the cap takes all the new numbers and the balance covers every send:
 * one guarded count, one guarded debit, and the ledger entries and messages in multi-row
 * inserts, as the sends would have left them one by one. `false`, with nothing changed, when
 * either refuses: the sends then go one by one (`chargeAndQueueEach`).
 */
async function chargeAndQueueAll(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  sends: readonly PreparedSms[],
  fresh: ReadonlySet<string>,
): Promise<boolean> {
  if (!(await countNewRecipients(trx, ctx, scope, fresh.size))) return false;
  const rows = sends.map((send) => send.row);
  const charges = rows.filter((row) => row.cost > 0).map(chargeOf);
  if (!(await applyLedgerCharges(trx, ctx.clock, scope, charges))) {
    await uncountRecipient(trx, ctx, scope, fresh.size);
    return false;
  }
  await insertRows(trx, "messages", rows);
  return true;
}

/**
 * Each send on its own, in order: the numbers past the cap and the sends the balance no longer
 * covers are refused. Answers the refusals and the new numbers counted.
 */
async function chargeAndQueueEach(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: RecipientScope,
  sends: readonly PreparedSms[],
  fresh: ReadonlySet<string>,
): Promise<{ refusals: Refusals; counted: Set<string> }> {
  const refusals: Refusals = [];
  const counted = new Set<string>();
  // A send charged here may come before a new number counted after it: the count is taken first.
  if (fresh.size > 0) await holdRecipientCount(trx, ctx, scope);
  for (const { row } of sends) {
    const to = row.recipient;
    const counts = fresh.has(to) && !counted.has(to);
    try {
      if (counts) await countNewRecipient(trx, ctx, scope);
      try {
        await chargeAndQueue(trx, ctx, row);
      } catch (error) {
        // The guarded debit refused it and wrote nothing (ledger.ts): only the count is undone.
        if (counts && error instanceof ApiError) await uncountRecipient(trx, ctx, scope);
        throw error;
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refusals.push(error);
      continue;
    }
    refusals.push(undefined);
    if (counts) counted.add(to);
  }
  return { refusals, counted };
}
