// `dakiya serve` under test: compiled fresh into dist/ (production runs the compiled JavaScript),
// started as a child process with the bench's settings, and waited for until it is ready.

import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fail, sleep } from "./lifecycle.js";
import {
  DAKIYA_NODE_FLAGS,
  DELIVERY,
  PROFILE,
  PROFILE_DIR,
  READY_SECONDS,
  ROOT,
  SERVER_NODE_OPTIONS,
} from "./options.js";
import { type ChildHandle, startChild } from "./processes.js";

// The server's settings. The SMSC of a real carrier grants some tens to hundreds of messages a
// second per bind (SMPP_TPS defaults to 50); the bench sets SMPP_TPS to its maximum, 100,000, so it
// measures Dakiya, not the rate limit (Kannel's configuration in kannel.ts has no throughput cap
// either). At 10,000, the spacing of submits held sms-batch's drain near 8,500 a second.
export const SERVER_ENV = {
  NODE_ENV: "production",
  LOG_LEVEL: "warn",
  HOST: "127.0.0.1",
  SMPP_TPS: "100000",
  SMPP_WINDOW: "50",
  WORKER_BATCH_SIZE: "200",
  // OTP limits high enough that the OTP scenarios measure the sends, not the rate limits.
  OTP_MAX_SENDS_PER_NUMBER_PER_HOUR: "10000",
  OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "1000000",
  // Likewise the per-key request limit and the SMS recipient cap: one key sends the whole load.
  RATE_LIMIT_PER_MINUTE: "1000000",
  RATE_LIMIT_BURST: "1000000",
  SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "10000000",
};

export function compileServer(): void {
  execFileSync("npm", ["run", "-s", "build:server"], { cwd: ROOT, stdio: "inherit" });
}

export function startDakiya(env: Record<string, string>): ChildHandle {
  clearProfiles();
  return startChild(
    "dakiya serve",
    [
      ...DAKIYA_NODE_FLAGS,
      ...SERVER_NODE_OPTIONS,
      join(ROOT, "bin", "dakiya.js"),
      "serve",
      ...(DELIVERY ? [] : ["--no-worker"]),
    ],
    env,
  );
}

/** With BENCH_PROFILE, empties the profiles' folder, so only the processes about to start write there. */
export function clearProfiles(): void {
  if (!PROFILE) return;
  rmSync(PROFILE_DIR, { recursive: true, force: true });
  mkdirSync(PROFILE_DIR, { recursive: true });
}

/** Waits for /readyz, and with `smpp` for the SMPP bind too; fails the run otherwise. */
export async function waitForReady(baseUrl: string, server: ChildHandle, smpp: boolean): Promise<void> {
  const deadline = Date.now() + READY_SECONDS * 1000;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (server.exited) {
      const lastLine = server.logTail.at(-1) ?? "no output";
      fail(`dakiya serve exited with ${server.exitCode ?? server.signal} before it was ready: ${lastLine}`);
    }
    try {
      const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(1_000) });
      const body = (await response.json()) as { carriers?: Record<string, { bound?: boolean }> };
      if (response.status === 200 && (!smpp || body.carriers?.["sms:smpp"]?.bound === true)) return;
      last = `/readyz answered ${response.status} ${JSON.stringify(body)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  fail(`dakiya serve was not ready${smpp ? " with an SMPP bind" : ""} within ${READY_SECONDS} s (${last})`);
}
