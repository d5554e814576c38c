import { type ExecException, execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "vitest";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = fileURLToPath(new URL("../../bin/dakiya.js", import.meta.url));

const execFileAsync = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A runner for `node bin/dakiya.js ...args`, as an operator would type it, with the environment
 * `env()` returns at the time of the call (tests usually set it up in `beforeAll`).
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
