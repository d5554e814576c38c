// The database as the bench watches it while the server runs: queue counts read synchronously
// (SQLite directly, PostgreSQL polled every 100 ms), the events written since a time, and the
// totals at the end. The bench's SMSC runs in the same process, and a synchronous read holds up
// its answers: what is polled often must be cheap (`queueEmpty`).

import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import type { Dialect } from "../src/db/schema.js";
import { RECEIPT_DELAY_MS } from "./options.js";

export interface QueueProbe {
  queued: () => number;
  /**
   * Whether no message is queued: one index entry read, 0.1 ms. Counting reads the whole queue
   * index: at 150,000 queued messages 6 ms (up to 15), during which the SMSC answers nothing.
   */
  queueEmpty: () => boolean;
  awaitingReceipt: () => number;
  /** Events of `environment` created at or after `since` (an ISO time, as the events table keeps it). */
  eventsWritten(environment: string, since: string): Promise<number>;
  totals(): Promise<{ byStatus: Record<string, number>; carrierParts: number }>;
  close(): Promise<void>;
}

export async function openQueueProbe(database: {
  dialect: Dialect;
  url: string;
  path?: string;
}): Promise<QueueProbe> {
  if (database.path) {
    const db = new SqliteDatabase(database.path, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    const countStatus = db.prepare<[string], { n: number }>(
      "select count(*) as n from messages where status = ?",
    );
    const anyQueued = db.prepare<[], { queued: number }>(
      "select exists (select 1 from messages where status = 'queued') as queued",
    );
    const countEvents = db.prepare<[string, string], { n: number }>(
      "select count(*) as n from events where environment = ? and created_at >= ?",
    );
    return {
      queued: () => countStatus.get("queued")?.n ?? 0,
      queueEmpty: () => anyQueued.get()?.queued === 0,
      awaitingReceipt: () => countStatus.get("submitted")?.n ?? 0,
      eventsWritten: async (environment, since) => countEvents.get(environment, since)?.n ?? 0,
      totals: async () => {
        const statuses = db
          .prepare<[], { status: string; n: number }>(
            "select status, count(*) as n from messages group by status",
          )
          .all();
        return {
          byStatus: Object.fromEntries(statuses.map(({ status, n }) => [status, n])),
          carrierParts:
            db.prepare<[], { n: number }>("select count(*) as n from carrier_messages").get()?.n ?? 0,
        };
      },
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const counts = { queued: 0, submitted: 0 };
  // Queued messages are counted in the queue's partial index; counting the submitted ones reads
  // the whole table (10 ms and more, ten times a second, on the server's cores), so only when
  // needed: with receipts (BENCH_RECEIPTS=1).
  const watchReceipts = RECEIPT_DELAY_MS !== undefined;
  const refresh = async () => {
    const { rows } = await client.query<{ status: string; n: string }>(
      watchReceipts
        ? "select status, count(*) as n from messages where status in ('queued', 'submitted') group by status"
        : "select 'queued' as status, count(*) as n from messages where status = 'queued'",
    );
    counts.queued = 0;
    counts.submitted = 0;
    for (const row of rows) counts[row.status as "queued" | "submitted"] = Number(row.n);
  };
  await refresh();
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    refresh()
      .catch(() => {})
      .finally(() => {
        polling = false;
      });
  }, 100);
  return {
    queued: () => counts.queued,
    queueEmpty: () => counts.queued === 0,
    awaitingReceipt: () => counts.submitted,
    eventsWritten: async (environment, since) => {
      const { rows } = await client.query<{ n: string }>(
        "select count(*) as n from events where environment = $1 and created_at >= $2",
        [environment, since],
      );
      return Number(rows[0]?.n ?? 0);
    },
    totals: async () => {
      const statuses = await client.query<{ status: string; n: string }>(
        "select status, count(*) as n from messages group by status",
      );
      const parts = await client.query<{ n: string }>("select count(*) as n from carrier_messages");
      return {
        byStatus: Object.fromEntries(statuses.rows.map(({ status, n }) => [status, Number(n)])),
        carrierParts: Number(parts.rows[0]?.n ?? 0),
      };
    },
    close: async () => {
      clearInterval(timer);
      await client.end();
    },
  };
}
