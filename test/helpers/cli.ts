import { type ExecException, execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect } from "vitest";
import type { AppContext } from "../../src/context.js";
import { openTestContext } from "./context.js";
import { createTestDatabase, type TestDatabase } from "./database.js";
import { createTestAccount } from "./fixtures.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = fileURLToPath(new URL("../../bin/dakiya.js", import.meta.url));

const execFileAsync = promisify(execFile);

const CLI_SECRET = "cli-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A runner for `node bin/dakiya.js ...args`, as an operator would type it, with the environment
 * `env()` returns at the time of the call (tests usually set it up in `beforeAll`). It runs the
 * build in dist/, which the tests' global set-up brings up to date with the sources
 * (test/helpers/server-build.ts).
 */
export function cliRunner(env: () => NodeJS.ProcessEnv): {
  dakiya: (...args: string[]) => Promise<CliResult>;
} {
  /** Runs the CLI, and never throws on a non-zero exit. */
  async function dakiya(...args: string[]): Promise<CliResult> {
    try {
      const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, ...args], {
        cwd: ROOT,
        env: env(),
        timeout: 45_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as ExecException;
      if (typeof failed.code !== "number") throw error;
      return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
    }
  }
  return { dakiya };
}

/** What a CLI test file works on: its own SQLite database, the CLI's environment there, and an account. */
export interface CliAccount {
  readonly database: TestDatabase;
  readonly env: NodeJS.ProcessEnv;
  readonly accountId: string;
  dakiya: (...args: string[]) => Promise<CliResult>;
  /** Runs `use` on a context of the database, closed after it. */
  withContext: <T>(use: (ctx: AppContext) => Promise<T>) => Promise<T>;
}

/**
 * Before the file's tests: a SQLite database (dropped after them) and an account made through the
 * library, then `prepare` for the file's own data (subprocesses are slow, and accounts, senders and
 * templates have their own CLI tests).
 */
export function cliAccount(prepare?: (ctx: AppContext, accountId: string) => Promise<void>): CliAccount {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let accountId: string;

  async function withContext<T>(use: (ctx: AppContext) => Promise<T>): Promise<T> {
    const ctx = await openTestContext(database.url);
    try {
      return await use(ctx);
    } finally {
      await ctx.close();
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    env = { ...process.env, DATABASE_URL: database.url, DAKIYA_SECRET: CLI_SECRET, LOG_LEVEL: "warn" };
    await withContext(async (ctx) => {
      accountId = await createTestAccount(ctx);
      await prepare?.(ctx, accountId);
    });
  });
  afterAll(async () => {
    await database?.drop();
  });

  return {
    get database() {
      return database;
    },
    get env() {
      return env;
    },
    get accountId() {
      return accountId;
    },
    dakiya: cliRunner(() => env).dakiya,
    withContext,
  };
}

/** The one JSON object a successful `--json` command prints: one line on stdout, nothing on stderr. */
export function json<T>(result: CliResult): T {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^[^\n]+\n$/);
  const parsed = JSON.parse(result.stdout) as unknown;
  expect(parsed).toBeTypeOf("object");
  expect(parsed).not.toBeNull();
  expect(Array.isArray(parsed)).toBe(false);
  return parsed as T;
}

/** A failed command: non-zero exit, nothing on stdout, one `dakiya:` line on stderr. Returns that line. */
export function oneLineError(result: CliResult): string {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^dakiya: [^\n]+\n$/);
  return result.stderr.trimEnd();
}
