import { sql, type Transaction } from "kysely";
import type { AppContext } from "../context.js";
import { executeForIds, insertRows, prepareForIds } from "../db/prepared.js";
import type { Database, WebhookAttemptsTable, WebhookDisabledReason } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { ClaimedDelivery } from "./deliveries.js";
import { giveUpPendingDeliveries } from "./endpoints.js";
import type { PostResult } from "./http-client.js";
import { compareLockOrder, lockingRows, lockOrder } from "./locks.js";

/** An endpoint that has failed every attempt for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;
export const GONE_STATUS = 410;
/** Outcomes written per transaction at most. */
const MAX_BATCH = 500;
/**
 * How long outcomes wait for others before they are written. An endpoint's request slot is free
 * once it has answered, so the wait holds up no request; it only makes the transactions fewer and
 * larger. The dispatcher alone (30,000 deliveries to one endpoint) went from 166–171 to 125–161
 * µs of CPU a delivery; 10 ms did no better than 3.
 */
export const OUTCOME_GATHER_MS = 3;

/** What an attempt at a claimed delivery came to. */
export interface Outcome {
  delivery: Pick<ClaimedDelivery, "id" | "endpoint_id" | "event_id" | "attempts" | "type" | "failing_since">;
  /**
   * The lease its claim wrote (`lease_owner`): the worker's id and the claim's number. Only while
   * the delivery is still held under it does the outcome move it: a replay may have given the
   * delivery back and a later claim of the same worker taken it again, and an answer that came
   * before the replay must not stand for the delivery the replay asked for.
   */
  lease: string;
  result: PostResult;
}

export function succeeded(result: PostResult): boolean {
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
}

/**
 * Writes outcomes many to a transaction: those that arrive within `gatherMs` of the first, or
 * while one is being written, go together. Each call resolves once its outcome is committed.
 */
export function createOutcomeWriter(
  ctx: AppContext,
  gatherMs = OUTCOME_GATHER_MS,
): (outcome: Outcome) => Promise<void> {
  const waiting: Array<{ outcome: Outcome; resolve: () => void; reject: (error: unknown) => void }> = [];
  let busy = false;
  let scheduled = false;

  const schedule = () => {
    if (busy || scheduled || waiting.length === 0) return;
    scheduled = true;
    setTimeout(writeNext, gatherMs);
  };

  const writeNext = () => {
    scheduled = false;
    if (busy || waiting.length === 0) return;
    busy = true;
    const batch = waiting.splice(0, MAX_BATCH);
    recordOutcomes(
      ctx,
      batch.map((entry) => entry.outcome),
    )
      .then(
        () => {
          for (const entry of batch) entry.resolve();
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        busy = false;
        schedule();
      });
  };

  return (outcome) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ outcome, resolve, reject });
      schedule();
    });
}

/**
 * Logs attempts and moves their deliveries on, in one transaction: succeeded; or due again after
 * the retry schedule's next delay; or, with the schedule used up, given up. Each endpoint's run
 * of failures is tracked too: a 410 answer, or 5 days of nothing but failures, disables it. Only
 * the holder of a delivery's lease moves it (a replay or a disable may have taken it back). An
 * endpoint deleted since the claim took its deliveries and attempts with it: its outcomes are
 * dropped, as there is nothing left to record them on.
 */
export async function recordOutcomes(ctx: AppContext, outcomes: Outcome[]): Promise<void> {
  const now = isoNow(ctx.clock);
  const recorded = await inTransaction(ctx, async (trx) => {
    // Locks in the order of locks.ts: the endpoints this batch changes, then all its endpoints
    // (which also tells the ones deleted meanwhile), then the deliveries still leased to this worker.
    const changed = outcomes.filter((outcome) => changesEndpoint(outcome, now));
    if (changed.length > 0 && ctx.dialect === "postgres") {
      await executeForIds(trx, endpointsToChange, {}, endpointIdsOf(changed));
    }
    const present = new Set(
      (await executeForIds(trx, endpointsToRecordOn, {}, endpointIdsOf(outcomes))).map(({ id }) => id),
    );
    const kept = outcomes
      .filter(({ delivery }) => present.has(delivery.endpoint_id))
      .sort((a, b) => compareLockOrder(a.delivery.id, b.delivery.id));
    if (kept.length === 0) return { kept, disabled: [] };
    await insertRows(trx, "webhook_attempts", kept.map(attemptRow(now)));
    if (ctx.dialect === "postgres") {
      for (const [lease, held] of byLease(kept)) {
        await executeForIds(trx, deliveriesStillHeld, { owner: lease }, held);
      }
    }
    const successes = kept.filter(({ result }) => succeeded(result));
    for (const [lease, ids] of byLease(successes)) {
      await executeForIds(trx, markSucceeded, { owner: lease, now }, ids);
    }
    // One success ends an endpoint's run of failures.
    const recovered = new Set(
      successes
        .filter(({ delivery }) => delivery.failing_since !== null)
        .map(({ delivery }) => delivery.endpoint_id),
    );
    if (recovered.size > 0) {
      await trx
        .updateTable("webhook_endpoints")
        .set({ failing_since: null })
        .where("id", "in", [...recovered])
        .execute();
    }
    const disabled: EndpointDisabled[] = [];
    for (const failure of kept) {
      if (succeeded(failure.result)) continue;
      const disabling = await recordFailure(ctx, trx, failure, now);
      if (disabling) disabled.push(disabling);
    }
    return { kept, disabled };
  });
  // Logged once committed: a transaction that ran again would have logged it twice.
  for (const { webhook_id, reason } of recorded.disabled) {
    ctx.log.warn({ webhook_id, reason }, "webhook endpoint disabled");
  }
  const failures = recorded.kept.filter(({ result }) => !succeeded(result));
  const retrying = failures.filter(({ delivery }) => retryDelayAfter(ctx, delivery) !== undefined).length;
  ctx.metrics.webhookAttempts("delivered", recorded.kept.length - failures.length);
  ctx.metrics.webhookAttempts("retrying", retrying);
  ctx.metrics.webhookAttempts("gave_up", failures.length - retrying);
}

function attemptRow(now: string): (outcome: Outcome) => WebhookAttemptsTable {
  return ({ delivery, result }) => ({
    id: newId("wat"),
    endpoint_id: delivery.endpoint_id,
    event_id: delivery.event_id,
    event_type: delivery.type,
    attempt: delivery.attempts + 1,
    status_code: result.statusCode,
    error: result.error,
    duration_ms: result.durationMs,
    created_at: now,
  });
}

/** The endpoints of `outcomes`, each once, in lock order. */
function endpointIdsOf(outcomes: Outcome[]): string[] {
  return [...new Set(outcomes.map(({ delivery }) => delivery.endpoint_id))].sort(compareLockOrder);
}

/** Whether an outcome changes its endpoint: ends its run of failures, starts one, or disables it. */
function changesEndpoint(outcome: Outcome, now: string): boolean {
  const { delivery, result } = outcome;
  if (succeeded(result)) return delivery.failing_since !== null;
  return delivery.failing_since === null || disablingReason(outcome, now) !== undefined;
}

/** Why a failed attempt disables its endpoint: it answered 410, or it has failed for 5 days. */
function disablingReason(
  { delivery, result }: Pick<Outcome, "delivery" | "result">,
  now: string,
): "gone" | "failing" | undefined {
  if (result.statusCode === GONE_STATUS) return "gone";
  const failingSince = delivery.failing_since ?? now;
  return Date.parse(now) - Date.parse(failingSince) >= DISABLE_AFTER_FAILING_MS ? "failing" : undefined;
}

/** Endpoints whose run of failures or status a batch changes, locked for it (PostgreSQL). */
const endpointsToChange = prepareForIds<object, { id: string }>((db, _param, ids, dialect) =>
  lockingRows(
    db.selectFrom("webhook_endpoints").select("id").where("id", "in", ids).orderBy(lockOrder(dialect)),
    dialect,
    "no key update",
  ),
);

/** The endpoints of a batch that still exist, kept from being deleted until its attempts are in. */
const endpointsToRecordOn = prepareForIds<object, { id: string }>((db, _param, ids, dialect) =>
  lockingRows(
    db.selectFrom("webhook_endpoints").select("id").where("id", "in", ids).orderBy(lockOrder(dialect)),
    dialect,
    "key share",
  ),
);

/** Of a batch's deliveries, those still leased to the worker, locked in lock order (PostgreSQL). */
const deliveriesStillHeld = prepareForIds<{ owner: string }, { id: string }>((db, param, ids, dialect) =>
  lockingRows(
    db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("id", "in", ids)
      .where("lease_owner", "=", param("owner"))
      .where("state", "=", sql.lit("pending"))
      .orderBy(lockOrder(dialect)),
    dialect,
    "no key update",
  ),
);

/** Deliveries that succeeded, of those the worker (`owner`) still holds, by id. */
const markSucceeded = prepareForIds<{ owner: string; now: string }, never>((db, param, ids) =>
  db
    .updateTable("webhook_deliveries")
    .set({
      state: "succeeded",
      attempts: sql`attempts + 1`,
      next_attempt_at: null,
      lease_owner: null,
      lease_until: null,
      updated_at: param("now"),
    })
    .where("id", "in", ids)
    .where("lease_owner", "=", param("owner"))
    .where("state", "=", sql.lit("pending")),
);

/** The ids of outcomes' deliveries by the lease they were claimed under, in the order given (most batches have one). */
function byLease(outcomes: readonly Outcome[]): Map<string, string[]> {
  const ids = new Map<string, string[]>();
  for (const { delivery, lease } of outcomes) ids.set(lease, [...(ids.get(lease) ?? []), delivery.id]);
  return ids;
}

/** Seconds until the next attempt after a failed one, or `undefined` when the schedule is used up. */
function retryDelayAfter(ctx: AppContext, delivery: Outcome["delivery"]): number | undefined {
  return ctx.outboundWebhooks.retrySchedule[delivery.attempts];
}

/** An endpoint a failure disabled, and why. */
interface EndpointDisabled {
  webhook_id: string;
  reason: WebhookDisabledReason;
}

/** Records a failed attempt; answers the endpoint it disabled, if it disabled one. */
async function recordFailure(
  ctx: AppContext,
  trx: Transaction<Database>,
  { delivery, lease, result }: Outcome,
  now: string,
): Promise<EndpointDisabled | undefined> {
  const retryDelay = retryDelayAfter(ctx, delivery);
  const nextAttemptAt =
    retryDelay === undefined ? null : new Date(Date.parse(now) + retryDelay * 1000).toISOString();
  await trx
    .updateTable("webhook_deliveries")
    .set({
      state: nextAttemptAt === null ? "failed" : "pending",
      attempts: delivery.attempts + 1,
      next_attempt_at: nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      updated_at: now,
    })
    .where("id", "=", delivery.id)
    .where("lease_owner", "=", lease)
    .where("state", "=", sql.lit("pending"))
    .execute();

  const failingSince = delivery.failing_since ?? now;
  const reason = disablingReason({ delivery, result }, now);
  if (reason !== undefined) {
    const disabled = await trx
      .updateTable("webhook_endpoints")
      .set({ status: "disabled", disabled_reason: reason, failing_since: failingSince, updated_at: now })
      .where("id", "=", delivery.endpoint_id)
      .where("status", "=", "enabled")
      .executeTakeFirst();
    if (disabled.numUpdatedRows > 0n) {
      await giveUpPendingDeliveries(trx, ctx.dialect, delivery.endpoint_id, now);
      return { webhook_id: delivery.endpoint_id, reason };
    }
  } else if (delivery.failing_since === null) {
    await trx
      .updateTable("webhook_endpoints")
      .set({ failing_since: now })
      .where("id", "=", delivery.endpoint_id)
      .where("failing_since", "is", null)
      .execute();
  }
  return undefined;
}
