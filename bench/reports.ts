// Report latency over a month of 1,000,000 messages (docs/reports.md): seeds one account's month
// with SQL in bulk (the triggers count every row, then a fold makes the daily totals), leaves a
// few thousand deltas unfolded as a running server would, and times each report 30 times.
// Usage: node --import tsx bench/reports.ts sqlite|postgres [note]. Writes bench/results/reports-*.json.

import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import type { Dialect } from "../src/db/schema.js";
import { unmeteredMetrics } from "../src/metrics/metrics.js";
import { foldReportDeltas } from "../src/reports/fold.js";
import { MESSAGE_GROUPS, messageReport } from "../src/reports/messages.js";
import { otpReport } from "../src/reports/otp.js";
import { createPostgresDatabase } from "../test/helpers/database.js";
import { DATED_RESULTS_DIR } from "./results-file.js";

const MESSAGES = 1_000_000;
const RUNS = 30;
const dialect = process.argv[2] as Dialect;
const note = process.argv[3] ?? "";
if (dialect !== "sqlite" && dialect !== "postgres")
  throw new Error("usage: bench/reports.ts sqlite|postgres [note]");

const name = `dakiya_bench_reports_${process.pid}`;
const target: { url: string; drop(): Promise<void> } =
  dialect === "sqlite"
    ? {
        url: `sqlite:${join(tmpdir(), `${name}.db`)}`,
        drop: async () => rmSync(join(tmpdir(), `${name}.db`), { force: true }),
      }
    : await createPostgresDatabase(
        process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
        name,
      );
const { db } = await openDatabase(target.url);
await migrateToLatest(db);
const ctx = { db, dialect, metrics: unmeteredMetrics };
const scope = { accountId: "acc_bench", environment: "live" as const };

await db
  .insertInto("accounts")
  .values({ id: scope.accountId, email: "bench@example.com", created_at: "2026-10-01T00:00:00.000Z" })
  .execute();
// 1,000,000 messages over November 2026, 10 templates, 4 senders, statuses as a month ends.
const seedStarted = performance.now();
const series =
  dialect === "postgres"
    ? sql`select i from generate_series(0, ${MESSAGES - 1}) as i`
    : sql`with recursive s(i) as (select 0 union all select i + 1 from s where i < ${MESSAGES - 1}) select i from s`;
const created =
  dialect === "postgres"
    ? sql`to_char(timestamp '2026-10-31 18:30:00' + (i::bigint * 2592) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : sql`strftime('%Y-%m-%dT%H:%M:%fZ', '2026-10-31T18:30:00', '+' || (i * 2.592 / 1000.0) || ' seconds')`;
await sql`
  insert into messages (id, account_id, environment, channel, recipient, sender, template_id, text, encoding,
    segments, cost, status, attempts, created_at, updated_at, priority)
  select 'msg_' || i, ${scope.accountId}, ${scope.environment}, 'sms', '+9198' || (10000000 + i % 9000000),
    'SNDR' || (i % 4), '11071612345678' || (i % 10), 'Order is confirmed.', 'gsm7', 1 + i % 2, 2500 * (1 + i % 2),
    case when i % 50 = 0 then 'failed' when i % 20 = 0 then 'undelivered' when i % 100 = 1 then 'submitted' else 'delivered' end,
    1, ${created}, ${created}, 1
  from (${series}) as numbers`.execute(db);
const seedMs = performance.now() - seedStarted;
const foldStarted = performance.now();
const folded = await foldReportDeltas(ctx);
const foldMs = performance.now() - foldStarted;
// What a running server has between folds: a few thousand recent deltas.
await sql`update messages set status = 'delivered' where status = 'submitted' and id like 'msg_1%1'`.execute(
  db,
);

const period = { from: "2026-11-01", to: "2026-11-30" };
const timings: Record<string, { p50: number; p99: number }> = {};
async function time(label: string, run: () => Promise<unknown>) {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0) * 100) / 100;
  timings[label] = { p50: at(0.5), p99: at(0.99) };
}
for (const groupBy of MESSAGE_GROUPS)
  await time(`messages by ${groupBy}`, () => messageReport(db, scope, period, groupBy));
await time("otp", () => otpReport(db, scope, period));
const unfolded = await db
  .selectFrom("message_report_deltas")
  .select((eb) => eb.fn.countAll<number>().as("n"))
  .executeTakeFirstOrThrow();
const check = await messageReport(db, scope, period, "channel");

const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim();
const stamp = new Date()
  .toISOString()
  .slice(0, 16)
  .replace(/[-:]/g, "")
  .replace(/^(\d{8})T/, (_, d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}T`);
const record = {
  format: "dakiya-bench-reports/1",
  note,
  commit,
  database: dialect,
  messages: MESSAGES,
  counted: check[0]?.messages ?? 0,
  seed_ms: Math.round(seedMs),
  fold: { deltas: folded, ms: Math.round(foldMs) },
  unfolded_deltas: Number(unfolded.n),
  runs_per_report: RUNS,
  latency_ms: timings,
};
mkdirSync(DATED_RESULTS_DIR, { recursive: true });
const file = join(DATED_RESULTS_DIR, `reports-${stamp}-${dialect}-${commit}.json`);
writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
console.log(JSON.stringify(record, null, 2));
await db.destroy();
await target.drop();
