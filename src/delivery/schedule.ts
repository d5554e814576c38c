import { sql } from "kysely";
import { CampaignFeeder, FEED_INTERVAL_MS } from "../campaigns/feed.js";
import type { AppContext } from "../context.js";
import { rowLimit } from "../db/row-limit.js";
import type { MessagesTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { isoNow, isoTime } from "../lib/clock.js";
import { runPeriodically } from "../lib/periodic.js";
import { settleFailed } from "./failures.js";
import type { Lease } from "./status.js";

// The queue's clock: scheduled messages join it at their time, unsent ones end at their expiry,
// and promotional ones wait for the window (docs/sms.md#mixed-traffic).

/** How often a worker moves due scheduled messages into the queue: `send_at` is kept to about this. */
export const SCHEDULE_SWEEP_MS = 1_000;
/** How often a worker ends expired unsent messages: `sms.failed` (`expired`) follows expiry by at most this. */
export const EXPIRY_SWEEP_MS = 5_000;
const SWEEP_BATCH = 500;

const EXPIRED = { code: "expired", message: "The message expired before it could be sent." };

/**
 * Moves scheduled messages whose time has come into the queue, in batches; returns how many.
 * The literal statuses let both engines use the partial indexes that hold only such messages.
 */
export async function releaseDueScheduled(ctx: AppContext): Promise<number> {
  const lock = ctx.dialect === "postgres" ? sql`for update skip locked` : sql``;
  let total = 0;
  for (;;) {
    const now = isoNow(ctx.clock);
    const result = await sql`
      update messages set status = 'queued', updated_at = ${now}
      where id in (
        select id from messages
        where status = 'scheduled' and next_attempt_at <= ${now}
        order by next_attempt_at
        limit ${rowLimit(SWEEP_BATCH)}
        ${lock}
      )
        and status = 'scheduled'`.execute(ctx.db);
    const released = Number(result.numAffectedRows ?? 0);
    total += released;
    if (released < SWEEP_BATCH) break;
  }
  if (total > 0) ctx.queue.notify();
  return total;
}

/**
 * Ends every scheduled or queued message past its `expires_at` that no worker holds, in
 * batches: each `failed` (`expired`) with its event and refund in the same transaction, or, if
 * parts of it went out on an earlier try, as partly carried. Returns how many it ended.
 */
export async function expireUnsentMessages(ctx: AppContext): Promise<number> {
  const lock = ctx.dialect === "postgres" ? sql`for update skip locked` : sql``;
  let total = 0;
  for (;;) {
    const ended = await inTransaction(ctx, async (trx) => {
      const now = isoNow(ctx.clock);
      const { rows } = await sql<MessagesTable>`
        update messages
        set status = 'failed', sealed = null, failed_at = ${now}, updated_at = ${now},
          error_code = ${EXPIRED.code}, error_message = ${EXPIRED.message},
          next_attempt_at = null, lease_until = null, lease_owner = null
        where id in (
          select id from messages
          where status in ('queued', 'scheduled') and expires_at is not null and expires_at <= ${now}
            and (lease_until is null or lease_until < ${now})
          order by expires_at
          limit ${rowLimit(SWEEP_BATCH)}
          ${lock}
        )
          and status in ('queued', 'scheduled')
          and (lease_until is null or lease_until < ${now})
        returning *`.execute(trx);
      for (const row of rows) await settleFailed(trx, ctx, now, row, EXPIRED);
      return rows.length;
    });
    total += ended;
    if (ended < SWEEP_BATCH) return total;
  }
}

/** A promotional message claimed as the window closed: back to `scheduled`, for `opening`. */
export async function holdForWindow(ctx: AppContext, lease: Lease, opening: Date): Promise<void> {
  const at = isoTime(opening.getTime());
  await ctx.db
    .updateTable("messages")
    .set({
      status: "scheduled",
      send_at: at,
      next_attempt_at: at,
      lease_until: null,
      lease_owner: null,
      updated_at: isoNow(ctx.clock),
    })
    .where("id", "=", lease.messageId)
    .where("status", "=", "queued")
    .where("lease_owner", "=", lease.owner)
    .execute();
}

/**
 * Runs the release and the expiry sweep, and the campaign feed (src/campaigns/feed.ts), on their
 * intervals until the returned function is called.
 */
export function startScheduleSweeps(
  ctx: AppContext,
  intervals = { releaseMs: SCHEDULE_SWEEP_MS, expiryMs: EXPIRY_SWEEP_MS, campaignMs: FEED_INTERVAL_MS },
): () => Promise<void> {
  const feeder = new CampaignFeeder(ctx);
  const every = (ms: number, name: string, sweep: () => Promise<number>) =>
    runPeriodically(ms, sweep, (error) => ctx.log.error({ err: error }, `${name} failed`));
  const stops = [
    every(intervals.expiryMs, "ending expired messages", () => expireUnsentMessages(ctx)),
    every(intervals.releaseMs, "releasing scheduled messages", () => releaseDueScheduled(ctx)),
    every(intervals.campaignMs, "feeding campaigns", () => feeder.feed()),
  ];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
