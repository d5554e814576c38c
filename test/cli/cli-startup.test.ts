import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, type CliResult, ROOT } from "../helpers/cli.js";

const SECRET = "cli-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const SLOW = 60_000;
const NOBODY = 65534;

/** `argv` (a command and its arguments) with `env`; never throws on a non-zero exit. */
function run(argv: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = argv as [string, ...string[]];
    execFile(command, args, { cwd: ROOT, env, timeout: 45_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

/** A start-up failure: non-zero exit, one `dakiya:` line on stderr, no stack trace anywhere. */
function startupError(result: CliResult): string {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(/^dakiya: [^\n]+\n$/);
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at |unexpected error/);
  return result.stderr.trimEnd();
}

/** A port on 127.0.0.1 that something else holds, and one that nothing listens on. */
async function listening(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

function portOf(server: Server): number {
  return (server.address() as { port: number }).port;
}

describe("start-up errors say which setting to change, in one line", () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let busy: Server;
  let closedPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "dakiya-startup-"));
    env = {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, "dakiya.db")}`,
      DAKIYA_SECRET: SECRET,
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
    };
    delete env.METRICS_PORT;
    delete env.METRICS_HOST;
    busy = await listening();
    const closed = await listening();
    closedPort = portOf(closed);
    await new Promise((resolve) => closed.close(resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => busy?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const dakiya = (overrides: NodeJS.ProcessEnv, ...args: string[]) =>
    run([process.execPath, BIN, ...args], { ...env, ...overrides });

  it(
    "EADDRINUSE names PORT and HOST, or METRICS_PORT and METRICS_HOST for the metrics listener",
    async () => {
      const port = String(portOf(busy));
      const [api, metrics] = await Promise.all([
        dakiya({ PORT: port }, "serve"),
        dakiya({ PORT: "0", METRICS_PORT: port }, "serve"),
      ]);
      expect(startupError(api)).toBe(
        `dakiya: port ${port} on 127.0.0.1 is in use; set PORT (or HOST) to another`,
      );
      expect(startupError(metrics)).toBe(
        `dakiya: port ${port} on 127.0.0.1 is in use; set METRICS_PORT (or METRICS_HOST) to another`,
      );
    },
    SLOW,
  );

  it(
    "a HOST that is not this machine's, or no host at all, names HOST",
    async () => {
      const [foreign, unknown] = await Promise.all([
        // TEST-NET-1 (RFC 5737): never an address of this machine.
        dakiya({ HOST: "192.0.2.1", PORT: "0" }, "serve"),
        dakiya({ HOST: "no-such-host.invalid", PORT: "0" }, "serve"),
      ]);
      expect(startupError(foreign)).toBe(
        "dakiya: 192.0.2.1 is not an address of this machine; set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for all)",
      );
      expect(startupError(unknown)).toBe(
        "dakiya: HOST no-such-host.invalid is not a known host name; set HOST to an address of this machine (127.0.0.1, or 0.0.0.0 for all)",
      );
    },
    SLOW,
  );

  it(
    "EACCES on a privileged port says to set PORT to 1024 or above",
    async (context) => {
      const unprivilegedFrom = Number(readFileSync("/proc/sys/net/ipv4/ip_unprivileged_port_start", "utf8"));
      const root = process.getuid?.() === 0;
      // As root the port would open: the server runs as nobody then, which needs setpriv.
      if (unprivilegedFrom <= 80 || (root && !existsSync("/usr/bin/setpriv"))) context.skip();
      chmodSync(dir, 0o777);
      const asNobody = root
        ? ["/usr/bin/setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"]
        : [];
      const result = await run([...asNobody, process.execPath, BIN, "serve"], {
        ...env,
        HOME: dir,
        DATABASE_URL: `sqlite:${join(dir, "nobody", "dakiya.db")}`,
        PORT: "80",
      });
      expect(startupError(result)).toBe(
        "dakiya: port 80 on 127.0.0.1 needs privileges this user does not have (ports below 1024 do); set PORT to 1024 or above",
      );
    },
    SLOW,
  );

  it(
    "an unreachable PostgreSQL, for any command, says where it looked and never shows the password",
    async () => {
      const url = `postgres://dakiya:s3cret-pw@127.0.0.1:${closedPort}/dakiya`;
      const results = await Promise.all([
        dakiya({ DATABASE_URL: url, PORT: "0" }, "serve"),
        dakiya({ DATABASE_URL: url }, "worker"),
        dakiya({ DATABASE_URL: url }, "migrate"),
        dakiya({ DATABASE_URL: url }, "account", "list"),
        dakiya({ DATABASE_URL: url.replace("127.0.0.1", "no-such-host.invalid") }, "account", "list"),
      ]);
      for (const result of results.slice(0, 4)) {
        expect(startupError(result)).toBe(
          `dakiya: cannot reach PostgreSQL at 127.0.0.1:${closedPort} (connection refused); start PostgreSQL, or fix the host and port in DATABASE_URL`,
        );
      }
      expect(startupError(results[4] as CliResult)).toBe(
        `dakiya: cannot reach PostgreSQL at no-such-host.invalid:${closedPort} (unknown host); fix the host in DATABASE_URL`,
      );
      for (const result of results) expect(result.stderr + result.stdout).not.toContain("s3cret-pw");
    },
    SLOW,
  );

  it.runIf(process.env.TEST_DATABASE_URL)(
    "a PostgreSQL that refuses the user or lacks the database says which part of DATABASE_URL to fix",
    async () => {
      const server = new URL(process.env.TEST_DATABASE_URL as string);
      const where = `${server.hostname}:${server.port || "5432"}`;
      const noDatabase = new URL(server);
      noDatabase.pathname = "/dakiya_no_such_database";
      const noUser = new URL(server);
      noUser.username = "dakiya_no_such_user";
      noUser.password = "s3cret-pw";
      const [database, user] = await Promise.all([
        dakiya({ DATABASE_URL: noDatabase.toString() }, "account", "list"),
        dakiya({ DATABASE_URL: noUser.toString() }, "account", "list"),
      ]);
      expect(startupError(database)).toBe(
        `dakiya: PostgreSQL at ${where}: database "dakiya_no_such_database" does not exist; create it, or fix the database name in DATABASE_URL`,
      );
      const refused = startupError(user);
      expect(refused).toMatch(
        new RegExp(
          `^dakiya: PostgreSQL at ${where} refused the sign-in \\(.+\\); fix the user or password in DATABASE_URL$`,
        ),
      );
      expect(refused).not.toContain("s3cret-pw");
    },
    SLOW,
  );

  it(
    "a DATABASE_URL of another kind, or a file that is no SQLite database, says what to set",
    async () => {
      const notADatabase = join(dir, "notes.txt");
      writeFileSync(notADatabase, "these are not the tables you are looking for\n".repeat(200));
      const [scheme, garbage, underAFile] = await Promise.all([
        dakiya({ DATABASE_URL: "mysql://root@127.0.0.1/dakiya", PORT: "0" }, "serve"),
        dakiya({ DATABASE_URL: `sqlite:${notADatabase}` }, "account", "list"),
        dakiya({ DATABASE_URL: `sqlite:${join(notADatabase, "dakiya.db")}`, PORT: "0" }, "serve"),
      ]);
      expect(startupError(scheme)).toBe(
        'dakiya: DATABASE_URL must start with sqlite: or postgres://, got "mysql:…"',
      );
      expect(startupError(garbage)).toBe(
        `dakiya: the SQLite database ${notADatabase} is not a usable database file (file is not a database); set DATABASE_URL to another path`,
      );
      expect(startupError(underAFile)).toMatch(
        new RegExp(
          `^dakiya: cannot open the SQLite database ${join(notADatabase, "dakiya.db")} \\(.+\\); make its folder writable, or set DATABASE_URL to another path$`,
        ),
      );
    },
    SLOW,
  );
});
