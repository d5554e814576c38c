import { sql } from "kysely";
import { rowLimit } from "../db/row-limit.js";
import type { Db, Dialect, MessagesTable } from "../db/schema.js";
import { writeAheadOfCommit } from "../db/sqlite/driver.js";
import { FIRST_BULK_LANE, WINDOWED_LANE } from "../messages/traffic.js";

/**
 * The columns of a claimed message that its delivery and its events read. The rest of a queued
 * message's row is known without reading it: the dates of a final status are unset, and the
 * acceptance writes every other column (`acceptedColumns` in status.ts). Each column
 * returned costs a value built per row, and claims return thousands of rows a second.
 */
const CLAIMED_COLUMNS = [
  "id",
  "account_id",
  "environment",
  "channel",
  "recipient",
  "sender",
  "template_id",
  "entity_id",
  "reference",
  "text",
  "encoding",
  "segments",
  "cost",
  "sealed",
  "attempts",
  "created_at",
  "priority",
  "category",
  "expires_at",
  "send_at",
  "campaign_id",
] as const satisfies ReadonlyArray<keyof MessagesTable>;

export type ClaimedMessage = Pick<MessagesTable, (typeof CLAIMED_COLUMNS)[number]>;

/** Which lanes a claim takes from, both ends included (src/messages/traffic.ts). */
export interface LaneRange {
  first: number;
  last: number;
}

const byLane = (a: ClaimedMessage, b: ClaimedMessage) => a.priority - b.priority;

const EVERY_LANE: LaneRange = { first: 0, last: WINDOWED_LANE };

/**
 * Leases up to `limit` due messages of `lanes` (by default every one) to `owner` in one statement, the highest lane
 * (the lowest number) first and the oldest first within a lane, as the queue's index
 * (`priority`, `next_attempt_at`, of queued messages only) reads them. On PostgreSQL, `FOR UPDATE
 * SKIP LOCKED` lets workers on several machines claim side by side without waiting on or
 * taking each other's rows; SQLite has one writer at a time, so the statement alone is atomic.
 * A message whose lease has run out (its worker died) is due again. On SQLite the claim is
 * answered before its COMMIT (`writeAheadOfCommit`): a lease need not be durable.
 */
export async function claimDueMessages(
  db: Db,
  dialect: Dialect,
  claim: { owner: string; now: string; leaseUntil: string; limit: number; lanes?: LaneRange },
): Promise<ClaimedMessage[]> {
  const lock = dialect === "postgres" ? sql`for update skip locked` : sql``;
  const lanes = claim.lanes ?? EVERY_LANE;
  const query = sql<ClaimedMessage>`
    update messages
    set lease_owner = ${claim.owner}, lease_until = ${claim.leaseUntil}
    where id in (
      select id from messages
      where status = 'queued'
        and priority between ${lanes.first} and ${lanes.last}
        and next_attempt_at <= ${claim.now}
        and (lease_until is null or lease_until < ${claim.now})
      order by priority, next_attempt_at
      limit ${rowLimit(claim.limit)}
      ${lock}
    )
    returning ${sql.join(CLAIMED_COLUMNS.map((column) => sql.ref(column)))}`.compile(db);
  const result = (await writeAheadOfCommit(db, query)) ?? (await db.executeQuery(query));
  // RETURNING keeps no order: the highest lane first again, so its deliveries start first.
  return result.rows.sort(byLane);
}

/**
 * Claims for a delivery loop, higher lanes first, with bulk owed its share: after a claim that
 * higher lanes filled while more of them waited, bulk is owed a ninth of what they took (a tenth
 * of the total), claimed first next time. The windowed lane is left alone outside the
 * promotional window. A second statement runs only while bulk is owed.
 */
export class LaneClaimer {
  #bulkOwed = 0;

  constructor(private readonly claim: (limit: number, lanes: LaneRange) => Promise<ClaimedMessage[]>) {}

  async take(limit: number, windowOpen: boolean): Promise<ClaimedMessage[]> {
    const last = windowOpen ? WINDOWED_LANE : WINDOWED_LANE - 1;
    const rows: ClaimedMessage[] = [];
    if (this.#bulkOwed >= 1) {
      const owed = Math.min(limit, Math.floor(this.#bulkOwed));
      const bulk = await this.claim(owed, { first: FIRST_BULK_LANE, last });
      rows.push(...bulk);
      this.#bulkOwed = bulk.length < owed ? 0 : this.#bulkOwed - bulk.length;
    }
    const room = limit - rows.length;
    if (room <= 0) return rows;
    const claimed = await this.claim(room, { first: 0, last });
    const lastClaimed = claimed[claimed.length - 1];
    if (claimed.length === room && lastClaimed && lastClaimed.priority < FIRST_BULK_LANE) {
      this.#bulkOwed += claimed.length / 9;
    } else if (claimed.length < room || (lastClaimed && lastClaimed.priority >= FIRST_BULK_LANE)) {
      // Every higher message due was taken, and bulk behind them: nothing is owed.
      this.#bulkOwed = 0;
    }
    rows.push(...claimed);
    return rows;
  }
}
