import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATION_NAMES } from "../../src/db/migrate.js";
import { BIN, cliRunner, json, oneLineError, ROOT } from "../helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";

const SECRET = "cli-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const PASSWORD = "correct horse battery staple";
const KEY_SECRET = /^dk_sandbox_[0-9A-Za-z]{32,}$/;
const SLOW = 60_000;

interface KeyJson {
  id: string;
  environment: string;
  label: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

interface CreatedKeyJson extends KeyJson {
  secret: string;
}

let database: TestDatabase;
let env: NodeJS.ProcessEnv;
let server: ChildProcess | undefined;
const { dakiya } = cliRunner(() => env);

beforeAll(async () => {
  database = await createTestDatabase("sqlite");
  env = { ...process.env, DATABASE_URL: database.url, DAKIYA_SECRET: SECRET, LOG_LEVEL: "warn" };
  delete env.HOST;
  delete env.PORT;
});

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = once(server, "exit");
    server.kill("SIGKILL");
    await exited;
  }
  await database?.drop();
});

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** `dakiya --json account create` for `email`, with the test password. */
function createAccount(email: string) {
  return dakiya("--json", "account", "create", "--email", email, "--password", PASSWORD);
}

/** `dakiya --json credits add` for an account. */
function addCredits(account: string, amount: string, environment = "sandbox") {
  return dakiya(
    "--json",
    "credits",
    "add",
    "--account",
    account,
    "--environment",
    environment,
    "--amount",
    amount,
  );
}

/** `dakiya --json keys rotate` for one of an account's keys. */
function rotateKey(account: string, key: string, graceSeconds: string) {
  return dakiya(
    "--json",
    "keys",
    "rotate",
    "--account",
    account,
    "--key",
    key,
    "--grace-seconds",
    graceSeconds,
  );
}

/** `dakiya --json keys list` for an account. */
function listKeys(account: string) {
  return dakiya("--json", "keys", "list", "--account", account);
}

describe("dakiya CLI", () => {
  let accountId: string;

  it(
    "migrates a new database once, even from four processes at the same moment",
    async () => {
      const results = await Promise.all([1, 2, 3, 4].map(() => dakiya("--json", "migrate")));
      const ran = results.map((result) => json<{ migrated: boolean; ran: string[] }>(result).ran);
      expect(ran.filter((names) => names.length > 0)).toEqual([MIGRATION_NAMES]);
      expect(MIGRATION_NAMES[0]).toBe("2026-11-22T0001-foundation");
      const again = json<{ migrated: boolean; ran: string[] }>(await dakiya("--json", "migrate"));
      expect(again.ran).toEqual([]);
    },
    SLOW,
  );

  it(
    "creates an account, and refuses a second one with the same email",
    async () => {
      const created = json<{ id: string; email: string }>(await createAccount("Ops@Example.com"));
      expect(created.id).toMatch(/^acct_[0-9A-Za-z]+$/);
      expect(created.email).toBe("ops@example.com");
      expect(JSON.stringify(created)).not.toContain(PASSWORD);
      accountId = created.id;

      const message = oneLineError(await createAccount("ops@example.com"));
      expect(message).toMatch(/^dakiya: /);
      expect(message).toContain("is already a member");
      expect(message).not.toContain(PASSWORD);
    },
    SLOW,
  );

  it(
    "adds credits, and refuses bad amounts and environments with one line on stderr",
    async () => {
      const added = json<{ balance: string; environment: string; currency: string }>(
        await addCredits(accountId, "100.00"),
      );
      expect(added).toMatchObject({ environment: "sandbox", balance: "100.0000", currency: "INR" });

      const refused = await Promise.all([
        ...["-5", "1.23456", "abc", "0"].map((amount) => addCredits(accountId, amount)),
        addCredits(accountId, "1.00", "prod"),
      ]);
      for (const result of refused) {
        expect(oneLineError(result)).toMatch(/^dakiya: option '--(amount|environment) /);
      }
      expect(refused[4]?.stderr).toContain("environment");
    },
    SLOW,
  );

  it(
    "creates, lists, rotates and deletes API keys without ever listing a secret",
    async () => {
      const key = json<CreatedKeyJson>(
        await dakiya(
          "--json",
          "keys",
          "create",
          "--account",
          accountId,
          "--environment",
          "sandbox",
          "--label",
          "ci",
        ),
      );
      expect(key.id).toMatch(/^key_[0-9A-Za-z]+$/);
      expect(key.secret).toMatch(KEY_SECRET);
      expect(key.prefix).toBe(key.secret.slice(0, 12));
      expect(key).toMatchObject({
        environment: "sandbox",
        label: "ci",
        last_used_at: null,
        expires_at: null,
      });

      const listed = json<{ data: Record<string, unknown>[] }>(await listKeys(accountId));
      expect(Object.keys(listed)).toEqual(["data"]);
      expect(listed.data.map((item) => item.id)).toEqual([key.id]);
      for (const item of listed.data) {
        expect(item).not.toHaveProperty("secret");
        expect(item).not.toHaveProperty("secret_hash");
      }
      expect(listed.data[0]).toMatchObject({ prefix: key.prefix, label: "ci", environment: "sandbox" });

      const human = await dakiya("keys", "list", "--account", accountId);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain(key.id);
      for (const text of [JSON.stringify(listed), human.stdout]) {
        expect(text).not.toContain(key.secret);
        expect(text).not.toContain(key.secret.slice(12));
        expect(text).not.toContain(sha256(key.secret));
        expect(text).not.toMatch(/secret/i);
      }

      expect(oneLineError(await rotateKey(accountId, key.id, "5"))).toMatch(/^dakiya: .*grace/);

      const rotated = json<CreatedKeyJson & { replaced_key: { id: string; expires_at: string | null } }>(
        await rotateKey(accountId, key.id, "3600"),
      );
      expect(rotated.id).not.toBe(key.id);
      expect(rotated.secret).toMatch(KEY_SECRET);
      expect(rotated.secret).not.toBe(key.secret);
      expect(rotated.prefix).toBe(rotated.secret.slice(0, 12));
      expect(rotated).toMatchObject({ environment: "sandbox", label: "ci", expires_at: null });
      expect(rotated.replaced_key.id).toBe(key.id);
      const graceMs = Date.parse(rotated.replaced_key.expires_at ?? "") - Date.parse(rotated.created_at);
      expect(graceMs).toBeGreaterThanOrEqual(3_599_000);
      expect(graceMs).toBeLessThanOrEqual(3_601_000);

      const afterRotation = json<{ data: KeyJson[] }>(await listKeys(accountId));
      const byId = new Map(afterRotation.data.map((item) => [item.id, item]));
      expect([...byId.keys()].sort()).toEqual([key.id, rotated.id].sort());
      expect(byId.get(key.id)?.expires_at).toBe(rotated.replaced_key.expires_at);
      expect(byId.get(rotated.id)?.expires_at).toBeNull();
      expect(JSON.stringify(afterRotation)).not.toContain(rotated.secret);

      const deleted = json<{ id: string; deleted: boolean }>(
        await dakiya("--json", "keys", "delete", "--account", accountId, "--key", key.id),
      );
      expect(deleted).toEqual({ id: key.id, deleted: true });

      const afterDelete = json<{ data: KeyJson[] }>(await listKeys(accountId));
      expect(afterDelete.data.map((item) => item.id)).toEqual([rotated.id]);
    },
    SLOW,
  );

  it(
    "reports an unknown account and a missing subcommand in one line",
    async () => {
      const [unknownAccount, bareKeys] = await Promise.all([
        dakiya("--json", "keys", "create", "--account", "acct_doesnotexist", "--environment", "sandbox"),
        dakiya("keys"),
      ]);
      expect(oneLineError(unknownAccount)).toMatch(/^dakiya: .*acct_doesnotexist/);
      const message = oneLineError(bareKeys);
      expect(message).toMatch(/^dakiya: /);
      for (const sub of ["create", "list", "delete", "rotate"]) expect(message).toContain(sub);
    },
    SLOW,
  );

  it(
    "manages keys that a running server honours at once, and the server stops cleanly on SIGTERM",
    async () => {
      const { url, output } = await serve();

      const account = json<{ id: string }>(await createAccount("live-server@example.com"));
      const key = json<CreatedKeyJson>(
        await dakiya("--json", "keys", "create", "--account", account.id, "--environment", "sandbox"),
      );

      const before = await balance(url, key.secret);
      expect(before.status).toBe(200);
      expect(before.body).toEqual({ environment: "sandbox", balance: "0.0000", currency: "INR" });

      json(await addCredits(account.id, "100.00"));
      const funded = await balance(url, key.secret);
      expect(funded.status).toBe(200);
      expect(funded.body).toEqual({ environment: "sandbox", balance: "100.0000", currency: "INR" });

      // During a rotation's grace period both keys work.
      const rotated = json<CreatedKeyJson>(await rotateKey(account.id, key.id, "3600"));
      expect((await balance(url, key.secret)).status).toBe(200);
      expect((await balance(url, rotated.secret)).body).toEqual(funded.body);

      json(await dakiya("--json", "keys", "delete", "--account", account.id, "--key", key.id));
      const refused = await balance(url, key.secret);
      expect(refused.status).toBe(401);
      expect((refused.body as { error: { code: string } }).error.code).toBe("invalid_api_key");
      expect((await balance(url, rotated.secret)).status).toBe(200);

      const child = server as ChildProcess;
      const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
      child.kill("SIGTERM");
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("the server did not exit within 5 s of SIGTERM")), 5_000).unref(),
      );
      const [code, signal] = await Promise.race([exited, timeout]);
      expect({ code, signal }).toEqual({ code: 0, signal: null });

      const logs = await output();
      expect(logs).toContain("server stopped");
      for (const secret of [key.secret, rotated.secret]) expect(logs).not.toContain(secret);
    },
    SLOW,
  );
});

async function balance(url: string, secret: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/v2/balance`, { headers: { authorization: `Bearer ${secret}` } });
  return { status: response.status, body: await response.json() };
}

/** Starts `dakiya serve` on a free port and resolves with its address once it listens. */
async function serve(): Promise<{ url: string; output: () => Promise<string> }> {
  const child = spawn(process.execPath, [BIN, "serve"], {
    cwd: ROOT,
    // info, not warn: the "Server listening at" line is an info log.
    env: { ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  const closed = once(child, "close");
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 15_000);
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      stdout += `${line}\n`;
      const prefix = "Server listening at ";
      let entry: { msg?: string } = {};
      try {
        entry = JSON.parse(line) as { msg?: string };
      } catch {
        // Not a log line: only the JSON log lines matter here.
      }
      if (entry.msg?.startsWith(prefix)) {
        clearTimeout(timer);
        resolve(entry.msg.slice(prefix.length));
      }
    });
  });
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  return {
    url,
    output: async () => {
      await closed;
      return stdout + stderr;
    },
  };
}
