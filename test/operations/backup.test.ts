import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import SqliteDatabase from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { systemClock } from "../../src/lib/clock.js";
import { cliRunner, json, oneLineError } from "../helpers/cli.js";
import { openTestContext, TEST_SECRET, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

/*
 * `dakiya backup --out FILE` (docs/operations.md): a real `dakiya serve` on a SQLite file takes
 * SMS sends under load, the backup runs as its own process in the middle of it, and the copy,
 * opened as a server would open it, holds every send answered before the backup began, each
 * with its charge, and balances that are the sums of their ledgers.
 */

const TEMPLATE = "1107161234567890301";
const CLIENTS = 12;
/** The backup starts once this many sends are answered... */
const BACKUP_AFTER = 150;
/** ...and the load goes on until this many more are answered after it ended. */
const AFTER_BACKUP = 100;
const CREDITS = 100_000_000;

interface BackupResult {
  source: string;
  path: string;
  bytes: number;
}

describe("dakiya backup on SQLite", () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let folder: string;
  let env: NodeJS.ProcessEnv;
  const { dakiya } = cliRunner(() => env);

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    folder = mkdtempSync(join(tmpdir(), "dakiya-backup-"));
    env = { ...process.env, DATABASE_URL: database.url, DAKIYA_SECRET: TEST_SECRET, LOG_LEVEL: "warn" };
  });

  afterAll(async () => {
    await server?.kill();
    await database?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("copies the database under load: every send answered before it began is in the copy", {
    timeout: 120_000,
  }, async () => {
    const setup = await openTestContext(database.url, { clock: systemClock });
    const { accountId, secret } = await createAccountWithKey(setup, "sandbox", CREDITS);
    await registerDlt(setup, accountId, {
      senders: ["DAKIYA"],
      templates: [{ templateId: TEMPLATE, content: "Order {#ref#} is confirmed." }],
    });
    await setup.close();

    server = await startServerProcess({
      ...UNLIMITED_REQUESTS,
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      WORKER_POLL_INTERVAL_MS: "20",
      SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "10000000",
    });
    const { url } = server;
    const out = join(folder, "copy.db");
    const answered: Array<{ id: string; at: number }> = [];
    let backupStartedAt: number | undefined;
    let backupEndedAt: number | undefined;
    let backup: Promise<Awaited<ReturnType<typeof dakiya>>> | undefined;
    let sent = 0;

    const send = async () => {
      sent += 1;
      const response = await fetch(`${url}/v2/sms/send`, {
        method: "POST",
        headers: { ...bearer(secret), "content-type": "application/json" },
        body: JSON.stringify({
          to: `+9198${String(sent).padStart(8, "0")}`,
          sender: "DAKIYA",
          template_id: TEMPLATE,
          variables: { ref: String(sent) },
        }),
      });
      expect(response.status).toBe(202);
      const { id } = (await response.json()) as { id: string };
      answered.push({ id, at: performance.now() });
    };
    const done = () =>
      backupEndedAt !== undefined &&
      answered.filter((a) => a.at > (backupEndedAt as number)).length >= AFTER_BACKUP;
    const client = async () => {
      while (!done()) {
        await send();
        if (backup === undefined && answered.length >= BACKUP_AFTER) {
          backupStartedAt = performance.now();
          backup = dakiya("--json", "backup", "--out", out).finally(() => {
            backupEndedAt = performance.now();
          });
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const result = json<BackupResult>(await (backup as NonNullable<typeof backup>));
    await server.kill();

    expect(result).toEqual({
      source: database.url.slice("sqlite:".length),
      path: out,
      bytes: statSync(out).size,
    });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const startedAt = backupStartedAt as number;
    const before = answered.filter((a) => a.at < startedAt).map((a) => a.id);
    const during = answered.filter((a) => a.at >= startedAt && a.at <= (backupEndedAt as number));
    expect(before.length).toBeGreaterThanOrEqual(BACKUP_AFTER);
    // The server kept answering while the copy was taken: it was taken under load.
    expect(during.length).toBeGreaterThan(0);

    const raw = new SqliteDatabase(out, { readonly: true });
    expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
    raw.close();

    // Restored: the copy opened as a server opens its database, and read through the API.
    const restored = await openTestContext(`sqlite:${out}`, { clock: systemClock });
    const app = await buildApp(restored);
    try {
      const ids = new Set(
        (
          await restored.db.selectFrom("messages").select("id").where("account_id", "=", accountId).execute()
        ).map((row) => row.id),
      );
      expect(before.filter((id) => !ids.has(id))).toEqual([]);
      // A snapshot from the middle of the load, not its end.
      expect(ids.size).toBeLessThan(answered.length);
      for (const id of before.slice(0, 25)) {
        const response = await app.inject({ method: "GET", url: `/v2/sms/${id}`, headers: bearer(secret) });
        expect(response.statusCode, response.body).toBe(200);
      }

      // Every message in the copy has its charge, and the balance is the sum of the ledger.
      const charges = await restored.db
        .selectFrom("ledger_entries")
        .select("reference")
        .where("account_id", "=", accountId)
        .where("reason", "=", "sms_charge")
        .execute();
      expect(new Set(charges.map((c) => c.reference))).toEqual(ids);
      const ledger = await restored.db
        .selectFrom("ledger_entries")
        .select((eb) => eb.fn.sum<number | string>("amount").as("sum"))
        .where("account_id", "=", accountId)
        .where("environment", "=", "sandbox")
        .executeTakeFirstOrThrow();
      const balance = await app.inject({ method: "GET", url: "/v2/balance", headers: bearer(secret) });
      expect(balance.statusCode).toBe(200);
      const { balance: shown } = balance.json<{ balance: string }>();
      expect(Math.round(Number(shown) * 10_000)).toBe(Number(ledger.sum));
      expect(Number(ledger.sum)).toBe(CREDITS - ids.size * 2_500);
    } finally {
      await app.close();
      await restored.close();
    }
  });

  it("refuses to overwrite a file unless --force, and says so in one line", async () => {
    const out = join(folder, "exists.db");
    writeFileSync(out, "not a database");
    expect(oneLineError(await dakiya("backup", "--out", out))).toBe(
      `dakiya: ${out} exists; choose another --out, or add --force to replace it`,
    );
    const forced = await dakiya("backup", "--out", out, "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(new RegExp(`^Backed up .+ to ${out} \\(\\d+\\.\\d (KiB|MiB)\\)\\.\\n$`));
    const copy = new SqliteDatabase(out, { readonly: true });
    expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
    copy.close();

    expect(oneLineError(await dakiya("backup"))).toMatch(/required option '--out <file>'/);
    expect(oneLineError(await dakiya("backup", "--out", join(folder, "no", "such", "folder.db")))).toMatch(
      /the folder of --out does not exist/,
    );
    expect(
      oneLineError(await dakiya("backup", "--out", database.url.slice("sqlite:".length), "--force")),
    ).toBe("dakiya: --out must not be the database itself");
  });
});

describe("dakiya backup on PostgreSQL", () => {
  it("exits non-zero with one line pointing to pg_dump", async () => {
    const { dakiya } = cliRunner(() => ({
      ...process.env,
      DATABASE_URL: process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
      DAKIYA_SECRET: TEST_SECRET,
    }));
    const out = join(tmpdir(), `dakiya-backup-${process.pid}.db`);
    expect(oneLineError(await dakiya("backup", "--out", out))).toBe(
      "dakiya: dakiya backup copies a SQLite database; on PostgreSQL use pg_dump (docs/operations.md, Backups)",
    );
    expect(() => statSync(out)).toThrow();
  });
});
