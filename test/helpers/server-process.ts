import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { BIN, ROOT } from "./cli.js";
import { TEST_SECRET } from "./context.js";

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  child: ChildProcess;
  /** Ends the process at once, as a power cut or the OOM killer would, and waits for it to be gone. */
  kill(): Promise<void>;
}

/**
 * Starts `dakiya serve` as its own process on a free port of 127.0.0.1 and resolves once it
 * listens, with `args` after `serve`. `env` is added to this process's environment; the log level is info at least, since
 * the "Server listening at" line is how the address is learnt. It runs the build the tests' global
 * set-up brought up to date (test/helpers/server-build.ts). It fails if the server does not listen
 * within `startTimeoutMs` (60 s by default, for a very busy machine).
 */
export async function startServerProcess(
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  startTimeoutMs = 60_000,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, "serve", ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "info", ...env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const kill = () => killProcess(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not start in ${startTimeoutMs / 1000} s: ${stderr}`)),
      startTimeoutMs,
    );
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening: ${stderr}`));
    });
    const prefix = "Server listening at ";
    // Every line is read to its end, so the child never blocks on a full pipe.
    lines.on("line", (line) => {
      if (!line.includes(prefix)) return;
      const entry = JSON.parse(line) as { msg?: string };
      if (entry.msg?.startsWith(prefix)) {
        clearTimeout(timer);
        resolve(entry.msg.slice(prefix.length));
      }
    });
  }).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return { url, child, kill };
}

/**
 * Starts `dakiya worker` as its own process on `databaseUrl` with the test secret, `env` added to
 * this process's environment, its warnings and errors on this process's stderr.
 */
export function startWorkerProcess(databaseUrl: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [BIN, "worker"], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", DATABASE_URL: databaseUrl, DAKIYA_SECRET: TEST_SECRET, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Ends `child` at once, as a power cut would, unless it is gone already, and waits for it to be gone. */
export async function killProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
