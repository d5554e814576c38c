import { sql } from "kysely";
import type { Db } from "../db/schema.js";
import { type Clock, isoNow } from "../lib/clock.js";
import type { Logger } from "../lib/logger.js";

/** How long a reading of the queues serves scrapes before the next one is taken. */
export const BACKLOG_MAX_AGE_MS = 5_000;

/** What waits in the database: messages to send, webhook deliveries to post, events to fan out. */
export interface Backlog {
  /** Queued messages whose (next) attempt is due now. */
  messagesDue: number;
  /** Queued messages waiting for a retry time. */
  messagesWaiting: number;
  /** Seconds the message due the longest has waited since it fell due; 0 when none is due. */
  oldestMessageDueSeconds: number;
  webhookDeliveriesDue: number;
  webhookDeliveriesWaiting: number;
  oldestWebhookDueSeconds: number;
  /** Events not yet fanned out into webhook deliveries. */
  eventsUnrelayed: number;
}

const EMPTY: Backlog = {
  messagesDue: 0,
  messagesWaiting: 0,
  oldestMessageDueSeconds: 0,
  webhookDeliveriesDue: 0,
  webhookDeliveriesWaiting: 0,
  oldestWebhookDueSeconds: 0,
  eventsUnrelayed: 0,
};

/**
 * The queues as the database holds them: global, whichever process reads them. Read when a
 * scrape asks and the last reading is older than `BACKLOG_MAX_AGE_MS`; scrapes in between,
 * however many, share one reading. Each query reads one index, of queued or pending rows only
 * (`messages_queue_idx`, `webhook_deliveries_due_idx`, `events_fanout_pending_idx`); the states
 * are literals so that SQLite can match the partial indexes, as a bound parameter would not.
 */
export class BacklogReader {
  #reading: Promise<Backlog> | undefined;
  #readAt = Number.NEGATIVE_INFINITY;
  #last: Backlog = EMPTY;

  constructor(private readonly source: { db: Db; clock: Clock; log: Logger }) {}

  current(): Promise<Backlog> {
    const now = this.source.clock.now().getTime();
    if (this.#reading === undefined || now - this.#readAt >= BACKLOG_MAX_AGE_MS) {
      this.#readAt = now;
      this.#reading = this.#read().then(
        (backlog) => {
          this.#last = backlog;
          return backlog;
        },
        (error: unknown) => {
          // The last reading stands until the database answers again (/readyz reports it down).
          this.source.log.warn({ err: error }, "metrics: reading the queues failed");
          return this.#last;
        },
      );
    }
    return this.#reading;
  }

  async #read(): Promise<Backlog> {
    const { db, clock } = this.source;
    const now = isoNow(clock);
    const count = (n: number | string | null) => Number(n ?? 0);
    const waited = (since: string | null) =>
      since === null ? 0 : Math.max(0, (Date.parse(now) - Date.parse(since)) / 1000);

    const messages = await db
      .selectFrom("messages")
      .select((eb) => [
        eb.fn.countAll<number | string>().as("total"),
        eb.fn.count<number | string>("next_attempt_at").filterWhere("next_attempt_at", "<=", now).as("due"),
        eb.fn.min<string | null>("next_attempt_at").as("oldest"),
      ])
      .where("status", "=", sql.lit("queued"))
      .executeTakeFirstOrThrow();
    const deliveries = await db
      .selectFrom("webhook_deliveries")
      .select((eb) => [
        eb.fn.countAll<number | string>().as("total"),
        eb.fn.count<number | string>("next_attempt_at").filterWhere("next_attempt_at", "<=", now).as("due"),
        eb.fn.min<string | null>("next_attempt_at").as("oldest"),
      ])
      .where("state", "=", sql.lit("pending"))
      .executeTakeFirstOrThrow();
    const events = await db
      .selectFrom("events")
      .select((eb) => eb.fn.countAll<number | string>().as("total"))
      .where("fanned_out_at", "is", null)
      .executeTakeFirstOrThrow();

    const messagesDue = count(messages.due);
    const webhookDeliveriesDue = count(deliveries.due);
    return {
      messagesDue,
      messagesWaiting: count(messages.total) - messagesDue,
      oldestMessageDueSeconds: messagesDue > 0 ? waited(messages.oldest) : 0,
      webhookDeliveriesDue,
      webhookDeliveriesWaiting: count(deliveries.total) - webhookDeliveriesDue,
      oldestWebhookDueSeconds: webhookDeliveriesDue > 0 ? waited(deliveries.oldest) : 0,
      eventsUnrelayed: count(events.total),
    };
  }
}
