import { sql } from "kysely";
import type { AppContext } from "../context.js";
import type { CampaignsTable } from "../db/campaign-schema.js";
import { insertRows } from "../db/prepared.js";
import { rowLimit } from "../db/row-limit.js";
import type { DbOrTrx, MessagesTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { recordEvent } from "../events/outbox.js";
import { isoNow, isoTime } from "../lib/clock.js";
import { isInsideWindow } from "../messages/promotional-window.js";
import { queuedMessage } from "../messages/store.js";
import { isWindowed } from "../messages/traffic.js";
import { claimRecipients, countNewRecipients } from "../sms/recipient-cap.js";
import { timingOf } from "../sms/timing.js";
import { campaignView } from "./view.js";

/** How often a worker feeds campaigns into the queue. */
export const FEED_INTERVAL_MS = 1_000;
/** Recipients fed in one transaction. */
const FEED_CHUNK = 500;
/** A paced campaign keeps at most this many seconds of its rate in the queue. */
const PACED_SECONDS_AHEAD = 5;
/**
 * The most messages of one campaign in the queue at once: the rest wait as recipients, so a
 * campaign never floods the queue, and a cancel has at most this many messages to end.
 */
export const FEED_AHEAD = 2_000;
/** Campaigns looked at per feed; the next feed goes on with the next ones. */
const CAMPAIGNS_PER_FEED = 50;
const HOUR_MS = 3_600_000;

/**
 * Feeds due campaigns' recipients into the queue as `bulk` messages (docs/campaigns.md), each
 * campaign at most FEED_AHEAD queued at once (paced ones, a few seconds' worth), at its
 * `messages_per_minute` if it has one, promotional ones only inside the promotional window, and
 * within the account's hourly cap on distinct numbers (docs/rate-limits.md): a campaign past it
 * waits for the next hour. Ends each campaign whose every message reached a final status as
 * `completed`, with `campaign.completed`. Safe on any number of workers: a feed moves the
 * campaign's cursor with a guarded update of its row, and the completion takes that row first,
 * so two feeds of the same recipients cannot both commit, nor a completion pass a feed.
 */
export class CampaignFeeder {
  /** The last campaign looked at: each feed goes on from there, so every campaign gets its turn. */
  private after = "";

  constructor(private readonly ctx: AppContext) {}

  async feed(): Promise<number> {
    const now = isoNow(this.ctx.clock);
    const due = await this.ctx.db
      .selectFrom("campaigns")
      .selectAll()
      .where("status", "in", ["scheduled", "sending"])
      .where((eb) => eb.or([eb("send_at", "is", null), eb("send_at", "<=", now)]))
      .where((eb) => eb.or([eb("paced_until", "is", null), eb("paced_until", "<=", now)]))
      .where((eb) => eb.or([eb("capped_until", "is", null), eb("capped_until", "<=", now)]))
      .where("id", ">", this.after)
      .orderBy("id")
      .limit(rowLimit(CAMPAIGNS_PER_FEED))
      .execute();
    this.after = due.length < CAMPAIGNS_PER_FEED ? "" : (due.at(-1)?.id ?? "");
    let fed = 0;
    for (const campaign of due) {
      // One campaign's failure is logged and retried on the next feed; it never holds up the others.
      fed += await this.feedOne(campaign).catch((error: unknown) => {
        this.ctx.log.error({ err: error, campaign: campaign.id }, "feeding a campaign failed");
        return 0;
      });
    }
    if (fed > 0) this.ctx.queue.notify();
    return fed;
  }

  private async feedOne(campaign: CampaignsTable): Promise<number> {
    const { ctx } = this;
    const nowMs = ctx.clock.now().getTime();
    if (await this.nothingLeft(campaign)) {
      await this.completeIfFinal(campaign);
      return 0;
    }
    // Promotional traffic outside the window would only wait in the queue: it is fed when it opens.
    if (isWindowed(campaign.category) && !isInsideWindow(ctx.promotionalWindow, new Date(nowMs))) return 0;

    const perMinute = campaign.messages_per_minute;
    const share = perMinute === null ? FEED_CHUNK : Math.max(1, Math.ceil(perMinute / 60));
    const queued = await ctx.db
      .selectFrom("messages")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("campaign_id", "=", campaign.id)
      .where("status", "in", ["scheduled", "queued"])
      .executeTakeFirstOrThrow();
    // Paced, only a few seconds' worth may wait, so a slow route cannot save up a burst.
    const room =
      Math.min(FEED_AHEAD, perMinute === null ? FEED_AHEAD : share * PACED_SECONDS_AHEAD) - Number(queued.n);
    if (room <= 0) return 0;
    if (perMinute !== null) {
      // A second's share per feed, so the rate holds within a second.
      return (await this.feedWithinCap(campaign, Math.min(room, share), nowMs)).count;
    }
    let fed = 0;
    let cursor = campaign;
    while (fed < room) {
      const chunk = Math.min(room - fed, FEED_CHUNK);
      const { count, nextSeq } = await this.feedWithinCap(cursor, chunk, nowMs);
      fed += count;
      if (count < chunk) break;
      cursor = {
        ...cursor,
        next_seq: nextSeq,
        status: "sending",
        started_at: cursor.started_at ?? isoTime(nowMs),
      };
    }
    return fed;
  }

  /** Feeds up to `size` recipients, fewer if the hourly cap takes only fewer new numbers. */
  private async feedWithinCap(campaign: CampaignsTable, size: number, nowMs: number): Promise<Fed> {
    for (let tried = size; tried > 0; tried = Math.floor(tried / 2)) {
      const outcome = await this.feedChunk(campaign, tried, nowMs);
      if (outcome !== "capped") return outcome;
    }
    // Not one more new number this hour: every worker leaves the campaign until the next.
    await this.ctx.db
      .updateTable("campaigns")
      .set({ capped_until: isoTime(Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS) })
      .where("id", "=", campaign.id)
      .execute();
    return { count: 0, nextSeq: campaign.next_seq };
  }

  private async nothingLeft(campaign: CampaignsTable, db: DbOrTrx = this.ctx.db): Promise<boolean> {
    const next = await db
      .selectFrom("campaign_recipients")
      .select("seq")
      .where("campaign_id", "=", campaign.id)
      .limit(rowLimit(1))
      .executeTakeFirst();
    return next === undefined;
  }

  /** Feeds up to `size` recipients in one transaction, or answers `capped` having written nothing. */
  private async feedChunk(campaign: CampaignsTable, size: number, nowMs: number): Promise<Fed | "capped"> {
    const { ctx } = this;
    const scope = { accountId: campaign.account_id, environment: campaign.environment };
    try {
      return await inTransaction(ctx, async (trx) => {
        const recipients = await trx
          .selectFrom("campaign_recipients")
          .selectAll()
          .where("campaign_id", "=", campaign.id)
          .where("seq", ">=", campaign.next_seq)
          .orderBy("seq")
          .limit(rowLimit(size))
          .execute();
        const last = recipients.at(-1);
        if (!last) return { count: 0, nextSeq: campaign.next_seq };
        const now = isoTime(nowMs);
        const pacedUntil =
          campaign.messages_per_minute === null
            ? null
            : isoTime(
                Math.max(nowMs, Date.parse(campaign.paced_until ?? now)) +
                  (recipients.length * 60_000) / campaign.messages_per_minute,
              );
        // The campaign's row first: a second feed of the same recipients, or a cancel, waits here.
        const moved = await trx
          .updateTable("campaigns")
          .set({
            next_seq: last.seq + 1,
            status: "sending",
            started_at: campaign.started_at ?? now,
            paced_until: pacedUntil,
            updated_at: now,
          })
          .where("id", "=", campaign.id)
          .where("next_seq", "=", campaign.next_seq)
          .where("status", "in", ["scheduled", "sending"])
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) return { count: 0, nextSeq: campaign.next_seq };

        const numbers = recipients.map((r) => r.recipient);
        const fresh = await claimRecipients(trx, ctx, scope, numbers);
        if (!(await countNewRecipients(trx, ctx, scope, fresh.size))) throw new HourlyCapReached();

        const timing = timingOf(ctx, { priority: "bulk" }, campaign.category, true);
        const messages = recipients.map(
          (recipient): MessagesTable => ({
            ...queuedMessage(now, {
              account_id: campaign.account_id,
              environment: campaign.environment,
              channel: "sms",
              recipient: recipient.recipient,
              sender: campaign.sender,
              template_id: campaign.template_id,
              entity_id: campaign.entity_id,
              reference: recipient.reference,
              text: recipient.text,
              encoding: recipient.encoding,
              segments: recipient.segments,
              cost: Number(recipient.cost),
              sealed: null,
              ...timing,
            }),
            campaign_id: campaign.id,
          }),
        );
        await insertRows(trx, "messages", messages);
        await trx
          .deleteFrom("campaign_recipients")
          .where("campaign_id", "=", campaign.id)
          .where("seq", ">=", campaign.next_seq)
          .where("seq", "<=", last.seq)
          .execute();
        return { count: messages.length, nextSeq: last.seq + 1 };
      });
    } catch (error) {
      if (error instanceof HourlyCapReached) return "capped";
      throw error;
    }
  }

  /**
   * Completes a campaign with nothing left to feed once every message of it reached a final
   * status, or is `submitted` past its validity (the carrier will not deliver it later, and a
   * receipt may never come): `completed`, with its event, once. The campaign's row is taken
   * first, as a feed takes it, so a feed that committed meanwhile is seen.
   */
  private async completeIfFinal(campaign: CampaignsTable): Promise<void> {
    const { ctx } = this;
    await inTransaction(ctx, async (trx) => {
      const lock = ctx.dialect === "postgres" ? sql`for update` : sql``;
      const { rows } = await sql<{ id: string }>`
        select id from campaigns where id = ${campaign.id} and status in ('scheduled', 'sending') ${lock}`.execute(
        trx,
      );
      if (rows.length === 0) return;
      const now = isoNow(ctx.clock);
      const unfinished = await trx
        .selectFrom("messages")
        .select("id")
        .where("campaign_id", "=", campaign.id)
        .where((eb) =>
          eb.or([
            eb("status", "in", ["scheduled", "queued"]),
            eb.and([
              eb("status", "=", "submitted"),
              eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]),
            ]),
          ]),
        )
        .limit(rowLimit(1))
        .executeTakeFirst();
      if (unfinished || !(await this.nothingLeft(campaign, trx))) return;
      const completed = await trx
        .updateTable("campaigns")
        .set({ status: "completed", completed_at: now, updated_at: now })
        .where("id", "=", campaign.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordEvent(trx, ctx, {
        accountId: completed.account_id,
        environment: completed.environment,
        type: "campaign.completed",
        data: await campaignView(trx, completed),
      });
    });
  }
}

/** What one feed of a campaign moved into the queue, and the campaign's cursor after it. */
interface Fed {
  count: number;
  nextSeq: number;
}

/** Rolls a feed back when its new numbers would pass the account's hourly cap. */
class HourlyCapReached extends Error {}
