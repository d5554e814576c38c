import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Reports (docs/reports.md): daily totals of messages and OTPs that a report reads instead of the
 * messages and otps tables. Triggers on both engines append a delta row for every insert and for
 * every change of what a report counts (a message's status, cost or segments; an OTP's approval);
 * they only insert, so a send takes no lock it did not take before. A periodic fold
 * (src/reports/fold.ts) moves the deltas into the daily tables; a report reads both, so it is
 * exact at any moment.
 *
 * A message counts under the India-time day of its creation, its channel, template and sender
 * ('' for none: the key columns are never null) and its status; its `cost` is what it is charged
 * net of refunds: nothing once failed or cancelled (refunded in full), its charged parts once a
 * long message ended partly carried (its `cost` lowered then). An OTP counts under the India
 * day of its creation and the channel it was first sent on, with the whole seconds from its
 * creation to its approval, or -1 while not approved; test numbers' OTPs send nothing and count not.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen and must not depend on today's schema types
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const serial = postgres ? "bigserial" : "integer";

  await db.schema
    .createTable("message_report_deltas")
    .addColumn("id", serial, serialKey(postgres))
    .$call(messageKeyColumns)
    .addColumn("messages", "integer", notNull)
    .addColumn("segments", "integer", notNull)
    .addColumn("cost", "bigint", notNull)
    .execute();
  await db.schema
    .createIndex("message_report_deltas_account_day")
    .on("message_report_deltas")
    .columns(["account_id", "environment", "day"])
    .execute();
  await db.schema
    .createTable("message_report_days")
    .$call(messageKeyColumns)
    .addColumn("messages", "bigint", notNull)
    .addColumn("segments", "bigint", notNull)
    .addColumn("cost", "bigint", notNull)
    .addPrimaryKeyConstraint("message_report_days_pkey", [...MESSAGE_KEY])
    .execute();

  await db.schema
    .createTable("otp_report_deltas")
    .addColumn("id", serial, serialKey(postgres))
    .$call(otpKeyColumns)
    .addColumn("otps", "integer", notNull)
    .execute();
  await db.schema
    .createIndex("otp_report_deltas_account_day")
    .on("otp_report_deltas")
    .columns(["account_id", "environment", "day"])
    .execute();
  await db.schema
    .createTable("otp_report_days")
    .$call(otpKeyColumns)
    .addColumn("otps", "bigint", notNull)
    .addPrimaryKeyConstraint("otp_report_days_pkey", [...OTP_KEY])
    .execute();

  // Triggers first, then the backfill: on PostgreSQL creating a trigger locks the table against
  // writes until this migration commits, so every row is counted once, by one or the other.
  if (postgres) await createPostgresTriggers(db);
  else await createSqliteTriggers(db);
  await backfill(db, postgres);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const trigger of TRIGGERS) {
    await sql`drop trigger if exists ${sql.raw(trigger.name)}${sql.raw(postgres ? ` on ${trigger.table}` : "")}`.execute(
      db,
    );
  }
  if (postgres) {
    for (const trigger of TRIGGERS) await sql`drop function if exists ${sql.raw(trigger.name)}()`.execute(db);
  }
  for (const table of [
    "otp_report_days",
    "otp_report_deltas",
    "message_report_days",
    "message_report_deltas",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}

const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
const serialKey = (postgres: boolean) => (c: ColumnDefinitionBuilder) =>
  postgres ? c.primaryKey() : c.primaryKey().autoIncrement();

const MESSAGE_KEY = [
  "account_id",
  "environment",
  "day",
  "channel",
  "template_id",
  "sender",
  "status",
] as const;
const OTP_KEY = ["account_id", "environment", "day", "channel", "seconds_to_verify"] as const;

const TRIGGERS = [
  { name: "message_report_insert", table: "messages" },
  { name: "message_report_update", table: "messages" },
  { name: "otp_report_insert", table: "otps" },
  { name: "otp_report_approve", table: "otps" },
] as const;

// biome-ignore lint/suspicious/noExplicitAny: see up()
function messageKeyColumns(table: any) {
  let t = table;
  for (const column of MESSAGE_KEY) t = t.addColumn(column, "text", notNull);
  return t;
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
function otpKeyColumns(table: any) {
  return table
    .addColumn("account_id", "text", notNull)
    .addColumn("environment", "text", notNull)
    .addColumn("day", "text", notNull)
    .addColumn("channel", "text", notNull)
    .addColumn("seconds_to_verify", "integer", notNull);
}

/** The India-time day (UTC+05:30, no daylight saving) of a stored UTC time, as YYYY-MM-DD. */
const DAY = {
  postgres: (at: string) => `to_char(${at}::timestamp + interval '330 minutes', 'YYYY-MM-DD')`,
  sqlite: (at: string) => `date(${at}, '+330 minutes')`,
};

/** What a message in its state is charged, net of refunds. */
const netCost = (row: string) =>
  `case when ${row}.status in ('failed', 'cancelled') then 0 else ${row}.cost end`;

/** Whole seconds from an OTP's creation to its approval: milliseconds exactly, then down to the second. */
const SECONDS_TO_VERIFY = {
  postgres: (row: string) =>
    `greatest(0, floor(extract(epoch from (${row}.approved_at::timestamp - ${row}.created_at::timestamp))))::integer`,
  sqlite: (row: string) =>
    `max(0, cast(round((julianday(${row}.approved_at) - julianday(${row}.created_at)) * 86400000) as integer) / 1000)`,
};

function messageDelta(dialect: "postgres" | "sqlite", row: string, sign: "" | "-"): string {
  return `(${row}.account_id, ${row}.environment, ${DAY[dialect](`${row}.created_at`)}, ${row}.channel,
    coalesce(${row}.template_id, ''), coalesce(${row}.sender, ''), ${row}.status,
    ${sign}1, ${sign}${row}.segments, ${sign}(${netCost(row)}))`;
}

const MESSAGE_DELTA_COLUMNS =
  "account_id, environment, day, channel, template_id, sender, status, messages, segments, cost";
const OTP_DELTA_COLUMNS = "account_id, environment, day, channel, seconds_to_verify, otps";

const MESSAGE_CHANGED =
  "old.status is distinct from new.status or old.cost is distinct from new.cost or old.segments is distinct from new.segments";
const APPROVED = "new.status = 'approved' and old.status <> 'approved' and new.is_test = 0";

// biome-ignore lint/suspicious/noExplicitAny: see up()
async function createPostgresTriggers(db: Kysely<any>): Promise<void> {
  // Inserts are counted per statement, so a batch of a thousand messages adds one delta per key.
  await sql`
    create function message_report_insert() returns trigger language plpgsql as $$
    begin
      insert into message_report_deltas (${sql.raw(MESSAGE_DELTA_COLUMNS)})
      select account_id, environment, ${sql.raw(DAY.postgres("created_at"))}, channel,
        coalesce(template_id, ''), coalesce(sender, ''), status,
        count(*), sum(segments), sum(${sql.raw(netCost("inserted"))})
      from inserted
      group by 1, 2, 3, 4, 5, 6, 7;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger message_report_insert after insert on messages
    referencing new table as inserted for each statement execute function message_report_insert()`.execute(
    db,
  );
  await sql`
    create function message_report_update() returns trigger language plpgsql as $$
    begin
      insert into message_report_deltas (${sql.raw(MESSAGE_DELTA_COLUMNS)})
      values ${sql.raw(messageDelta("postgres", "old", "-"))}, ${sql.raw(messageDelta("postgres", "new", ""))};
      return null;
    end
    $$`.execute(db);
  // The condition is checked before the function is called: the worker's other updates cost nothing.
  await sql`
    create trigger message_report_update after update of status, cost, segments on messages
    for each row when (${sql.raw(MESSAGE_CHANGED)}) execute function message_report_update()`.execute(db);

  await sql`
    create function otp_report_insert() returns trigger language plpgsql as $$
    begin
      insert into otp_report_deltas (${sql.raw(OTP_DELTA_COLUMNS)})
      select account_id, environment, ${sql.raw(DAY.postgres("created_at"))}, channel, -1, count(*)
      from inserted where is_test = 0
      group by 1, 2, 3, 4;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger otp_report_insert after insert on otps
    referencing new table as inserted for each statement execute function otp_report_insert()`.execute(db);
  await sql`
    create function otp_report_approve() returns trigger language plpgsql as $$
    begin
      insert into otp_report_deltas (${sql.raw(OTP_DELTA_COLUMNS)}) values
        (new.account_id, new.environment, ${sql.raw(DAY.postgres("new.created_at"))}, new.channel, -1, -1),
        (new.account_id, new.environment, ${sql.raw(DAY.postgres("new.created_at"))}, new.channel,
          ${sql.raw(SECONDS_TO_VERIFY.postgres("new"))}, 1);
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger otp_report_approve after update of status on otps
    for each row when (${sql.raw(APPROVED)}) execute function otp_report_approve()`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
async function createSqliteTriggers(db: Kysely<any>): Promise<void> {
  await sql`
    create trigger message_report_insert after insert on messages begin
      insert into message_report_deltas (${sql.raw(MESSAGE_DELTA_COLUMNS)})
      values ${sql.raw(messageDelta("sqlite", "new", ""))};
    end`.execute(db);
  await sql`
    create trigger message_report_update after update of status, cost, segments on messages
    when ${sql.raw(MESSAGE_CHANGED.replaceAll("is distinct from", "is not"))} begin
      insert into message_report_deltas (${sql.raw(MESSAGE_DELTA_COLUMNS)})
      values ${sql.raw(messageDelta("sqlite", "old", "-"))}, ${sql.raw(messageDelta("sqlite", "new", ""))};
    end`.execute(db);
  await sql`
    create trigger otp_report_insert after insert on otps when new.is_test = 0 begin
      insert into otp_report_deltas (${sql.raw(OTP_DELTA_COLUMNS)})
      values (new.account_id, new.environment, ${sql.raw(DAY.sqlite("new.created_at"))}, new.channel, -1, 1);
    end`.execute(db);
  await sql`
    create trigger otp_report_approve after update of status on otps when ${sql.raw(APPROVED)} begin
      insert into otp_report_deltas (${sql.raw(OTP_DELTA_COLUMNS)}) values
        (new.account_id, new.environment, ${sql.raw(DAY.sqlite("new.created_at"))}, new.channel, -1, -1),
        (new.account_id, new.environment, ${sql.raw(DAY.sqlite("new.created_at"))}, new.channel,
          ${sql.raw(SECONDS_TO_VERIFY.sqlite("new"))}, 1);
    end`.execute(db);
}

/** Counts the messages and OTPs of before straight into the daily tables. */
// biome-ignore lint/suspicious/noExplicitAny: see up()
async function backfill(db: Kysely<any>, postgres: boolean): Promise<void> {
  const dialect = postgres ? "postgres" : "sqlite";
  await sql`
    insert into message_report_days (${sql.raw(MESSAGE_KEY.join(", "))}, messages, segments, cost)
    select account_id, environment, ${sql.raw(DAY[dialect]("created_at"))}, channel,
      coalesce(template_id, ''), coalesce(sender, ''), status,
      count(*), sum(segments), sum(${sql.raw(netCost("messages"))})
    from messages
    group by 1, 2, 3, 4, 5, 6, 7`.execute(db);
  await sql`
    insert into otp_report_days (${sql.raw(OTP_KEY.join(", "))}, otps)
    select account_id, environment, ${sql.raw(DAY[dialect]("created_at"))}, channel,
      case when status = 'approved' then ${sql.raw(SECONDS_TO_VERIFY[dialect]("otps"))} else -1 end, count(*)
    from otps where is_test = 0
    group by 1, 2, 3, 4, 5`.execute(db);
}
