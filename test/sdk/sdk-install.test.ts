import { execFile } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { openTestContext, TEST_SECRET } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { createAccountWithKey } from "../helpers/fixtures.js";
import { HUNDRED_RUPEES } from "../helpers/otp.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

/* The SDK as a user gets it: packed with `npm pack -w sdk`, installed from the tarball into a
 * fresh CommonJS project and a fresh ES module project, and the READMEs' quick start run in each,
 * as it is written, against a `dakiya serve` process on loopback. The SDK's behaviour on both
 * databases is sdk.test.ts's; here the package is under test, so one SQLite database serves. */

const execFileAsync = promisify(execFile);
/** Generous: npm and Node start slowly on a loaded machine. */
const SLOW = 120_000;
const NPM_TIMEOUT = 90_000;

const KINDS = ["commonjs", "esm"] as const;
type Kind = (typeof KINDS)[number];

/** What the quick start sends: the walk-through's sender and template. */
const QUICK_START_TEMPLATE = {
  templateId: "1107161234567890123",
  content: "Your Dakiya login code is {#var#}. Valid for {#var#} minutes. Do not share it.",
};

/** The code of the fenced block that follows `<!-- quickstart:<kind> -->` in a README. */
function quickStartIn(readme: string, kind: Kind): string {
  const text = readFileSync(join(ROOT, readme), "utf8");
  const block = new RegExp(`<!-- quickstart:${kind} -->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\`\\n`).exec(text);
  if (!block?.[1])
    throw new Error(`${readme} has no ${kind} quick start (<!-- quickstart:${kind} --> and a js block)`);
  return block[1];
}

/**
 * This process's environment less what an `npm test` run adds to it (npm_package_*,
 * npm_lifecycle_*, npm_config_local_prefix, …), which would turn a child npm back to this
 * repository; npm's registry, cache and proxy settings stay.
 */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const kept =
    /^npm_config_(registry|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|strict_ssl|cafile|ca|loglevel)$/i;
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) || kept.test(name)),
  );
  delete env.INIT_CWD;
  return { ...env, ...extra };
}

function npm(cwd: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync("npm", args, { cwd, env: childEnv(), timeout: NPM_TIMEOUT });
}

function node(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return execFileAsync(process.execPath, args, { cwd, env: childEnv(env), timeout: 30_000 });
}

describe("the SDK packed, installed from its tarball and run as its quick start says", () => {
  let work: string;
  let tarball: string;
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let apiKey: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "dakiya-sdk-install-"));
    database = await createTestDatabase("sqlite");
    const ctx = await openTestContext(database.url);
    try {
      const created = await createAccountWithKey(ctx, "sandbox", HUNDRED_RUPEES);
      await registerDlt(ctx, created.accountId, { senders: ["DAKIYA"], templates: [QUICK_START_TEMPLATE] });
      apiKey = created.secret;
    } finally {
      await ctx.close();
    }
    // `npm pack` builds the SDK first (its prepack script); the tests run after `npm run
    // build:sdk`, so the build is skipped here and sdk/dist is packed as it is.
    const [packed, started] = await Promise.all([
      npm(ROOT, "pack", "-w", "sdk", "--ignore-scripts", "--json", "--pack-destination", work),
      startServerProcess({ DATABASE_URL: database.url, DAKIYA_SECRET: TEST_SECRET }, [], 90_000),
    ]);
    server = started;
    const [entry] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
    if (!entry) throw new Error(`npm pack wrote no tarball: ${packed.stdout}`);
    tarball = join(work, entry.filename);
    expect(entry.filename).toBe("dakiya-sdk-0.1.0.tgz");
  }, SLOW);

  afterAll(async () => {
    await server?.kill();
    await database?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it(
    "is a package both module systems resolve, with types for each (attw, publint)",
    async () => {
      const bin = join(ROOT, "node_modules", ".bin");
      // Each exits non-zero on a problem: a require that reaches ESM, types of the wrong kind, …
      const types = await execFileAsync(join(bin, "attw"), [tarball, "--format", "ascii"], {
        cwd: work,
        timeout: NPM_TIMEOUT,
      });
      expect(types.stdout).toContain("No problems found");
      const lint = await execFileAsync(join(bin, "publint"), ["run", tarball, "--strict"], {
        cwd: work,
        timeout: NPM_TIMEOUT,
      });
      expect(lint.stdout).toContain("All good");
    },
    SLOW,
  );

  it.each(KINDS)(
    "runs the READMEs' %s quick start, as written, in a fresh project with the tarball installed",
    async (kind) => {
      const code = quickStartIn("sdk/README.md", kind);
      expect(quickStartIn("README.md", kind), "README.md and sdk/README.md show the same quick start").toBe(
        code,
      );

      const project = join(work, kind);
      mkdirSync(project);
      await npm(project, "init", "-y");
      if (kind === "esm") await npm(project, "pkg", "set", "type=module");
      await npm(project, "install", tarball, "--prefer-offline", "--no-audit", "--no-fund");
      // A copy from the tarball, not a link back to this checkout.
      expect(lstatSync(join(project, "node_modules", "@dakiya", "sdk")).isDirectory()).toBe(true);

      // Each module system gets its own build (Node 22 could also require the ES module one).
      const resolved =
        kind === "commonjs"
          ? await node(project, ["-p", 'require.resolve("@dakiya/sdk")'])
          : await node(project, [
              "--input-type=module",
              "-e",
              'console.log(import.meta.resolve("@dakiya/sdk"))',
            ]);
      expect(resolved.stdout.trim()).toMatch(
        kind === "commonjs" ? /node_modules\/@dakiya\/sdk\/dist\/cjs\/index\.js$/ : /\/dist\/esm\/index\.js$/,
      );

      writeFileSync(join(project, "quickstart.js"), code);
      const url = server?.url as string;
      const run = await node(project, ["quickstart.js"], { DAKIYA_API_KEY: apiKey, DAKIYA_BASE_URL: url });
      expect(run.stderr).toBe("");
      const printed = /^(msg_\w+) queued (\d+\.\d{4})\n$/.exec(run.stdout);
      expect(printed, `the quick start printed ${JSON.stringify(run.stdout)}`).not.toBeNull();
      const [, id, cost] = printed as RegExpExecArray;

      // The message it printed is on the server, as the quick start asked for it.
      const answer = await fetch(`${url}/v2/sms/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({
        id,
        cost,
        environment: "sandbox",
        to: "+919876543210",
        sender: "DAKIYA",
        template_id: QUICK_START_TEMPLATE.templateId,
        reference: "order-77",
        text: "Your Dakiya login code is 482913. Valid for 10 minutes. Do not share it.",
      });
    },
    SLOW,
  );
});
