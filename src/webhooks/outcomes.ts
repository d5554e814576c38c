import { sql, type Transaction } from "kysely";
import { isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import { executeForIds, insertRows, prepareForIds } from "../db/prepared.js";
import type { Database, WebhookAttemptsTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { newId } from "../ids.js";
import type { ClaimedDelivery } from "./deliveries.js";
import { giveUpPendingDeliveries } from "./endpoints.js";
import type { PostResult } from "./http-client.js";
import { lockingRows } from "./locks.js";

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
  owner: string,
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
      owner,
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
export async function recordOutcomes(ctx: AppContext, owner: string, outcomes: Outcome[]): Promise<void> {
  const now = isoNow(ctx.clock);
  const recorded = await inTransaction(ctx, async (trx) => {
    const endpointIds = [...new Set(outcomes.map(({ delivery }) => delivery.endpoint_id))];
    const present = new Set(
      (await executeForIds(trx, endpointsToRecordOn, {}, endpointIds)).map(({ id }) => id),
    );
    const kept = outcomes.filter(({ delivery }) => present.has(delivery.endpoint_id));
    if (kept.length === 0) return kept;
    await insertRows(trx, "webhook_attempts", kept.map(attemptRow(now)));
    const successes = kept.filter(({ result }) => succeeded(result));
    await executeForIds(
      trx,
      markSucceeded,
      { owner, now },
      successes.map(({ delivery }) => delivery.id),
    );
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
    for (const failure of kept) {
      if (!succeeded(failure.result)) await recordFailure(ctx, trx, owner, failure, now);
    }
    return kept;
  });
  const failures = recorded.filter(({ result }) => !succeeded(result));
  const retrying = failures.filter(({ delivery }) => retryDelayAfter(ctx, delivery) !== undefined).length;
  ctx.metrics.webhookAttempts("delivered", recorded.length - failures.length);
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

/**
 * The endpoints of a batch that still exist, held (KEY SHARE, locks.ts) until its attempts are
 * in, so none is deleted before.
 */
const endpointsToRecordOn = prepareForIds<object, { id: string }>((db, _param, ids, dialect) =>
  lockingRows(db.selectFrom("webhook_endpoints").select("id").where("id", "in", ids), dialect, "key share"),
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

/** Seconds until the next attempt after a failed one, or `undefined` when the schedule is used up. */
function retryDelayAfter(ctx: AppContext, delivery: Outcome["delivery"]): number | undefined {
  return ctx.outboundWebhooks.retrySchedule[delivery.attempts];
}

async function recordFailure(
  ctx: AppContext,
  trx: Transaction<Database>,
  owner: string,
  { delivery, result }: Outcome,
  now: string,
): Promise<void> {
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
    .where("lease_owner", "=", owner)
    .where("state", "=", sql.lit("pending"))
    .execute();

  const failingSince = delivery.failing_since ?? now;
  const gone = result.statusCode === GONE_STATUS;
  const failingTooLong = Date.parse(now) - Date.parse(failingSince) >= DISABLE_AFTER_FAILING_MS;
  if (gone || failingTooLong) {
    const disabled = await trx
      .updateTable("webhook_endpoints")
      .set({
        status: "disabled",
        disabled_reason: gone ? "gone" : "failing",
        failing_since: failingSince,
        updated_at: now,
      })
      .where("id", "=", delivery.endpoint_id)
      .where("status", "=", "enabled")
      .executeTakeFirst();
    if (disabled.numUpdatedRows > 0n) {
      await giveUpPendingDeliveries(trx, delivery.endpoint_id, now);
      ctx.log.warn(
        { webhook_id: delivery.endpoint_id, reason: gone ? "gone" : "failing" },
        "webhook endpoint disabled",
      );
    }
  } else if (delivery.failing_since === null) {
    await trx
      .updateTable("webhook_endpoints")
      .set({ failing_since: now })
      .where("id", "=", delivery.endpoint_id)
      .where("failing_since", "is", null)
      .execute();
  }
}
