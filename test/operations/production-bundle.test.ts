import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sourceListing, stampedListing } from "../../bin/build-stamp.js";
import { cliRunner, json, ROOT } from "../helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { SMS_TEMPLATE_ID, TEST_ENTITY_ID } from "../helpers/dlt-fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

const SECRET = "bundle-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const SLOW = 90_000;
const execFileAsync = promisify(execFile);

/**
 * `bin/dakiya.js` runs the build of `npm run build:server` (dist/), made by the tests' global
 * set-up as `npm ci` makes it: here it is driven as the README's walk-through drives the server,
 * with an operator's `NODE_ENV=production`, so a package that does not survive bundling (or a
 * module that a command loads only when it runs) fails here.
 */
describe("the production bundle", () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let server: ServerProcess | undefined;
  const { dakiya } = cliRunner(() => env);

  beforeAll(async () => {
    expect(stampedListing(ROOT), "dist/ is a build of the sources as they are").toBe(sourceListing(ROOT));
    database = await createTestDatabase("sqlite");
    env = {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: database.url,
      DAKIYA_SECRET: SECRET,
      LOG_LEVEL: "warn",
    };
  }, SLOW);

  afterAll(async () => {
    await server?.kill();
    await database?.drop();
  });

  it(
    "runs the CLI and a server that takes a sandbox SMS through to the inbox and serves its API reference",
    async () => {
      const version = await dakiya("--version");
      const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
      expect(version.stdout.trim()).toBe(manifest.version);

      const account = json<{ id: string }>(
        await dakiya(
          "--json",
          "account",
          "create",
          "--email",
          "bundle@example.com",
          "--password",
          "a long passphrase",
        ),
      );
      json(
        await dakiya(
          "--json",
          "credits",
          "add",
          "--account",
          account.id,
          "--environment",
          "sandbox",
          "--amount",
          "10.00",
        ),
      );
      const key = json<{ secret: string }>(
        await dakiya("--json", "keys", "create", "--account", account.id, "--environment", "sandbox"),
      );
      json(await dakiya("--json", "sender", "add", "--account", account.id, "--sender", "DAKIYA"));
      json(
        await dakiya(
          "--json",
          "template",
          "add",
          "--account",
          account.id,
          "--template-id",
          SMS_TEMPLATE_ID,
          "--entity-id",
          TEST_ENTITY_ID,
          "--name",
          "login",
          "--category",
          "transactional",
          "--senders",
          "DAKIYA",
          "--content",
          "Your login code is {#code#}.",
        ),
      );

      server = await startServerProcess({ ...env, LOG_LEVEL: "info" });
      const headers = { authorization: `Bearer ${key.secret}`, "content-type": "application/json" };
      const sent = await fetch(`${server.url}/v2/sms/send`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          to: "+919812345678",
          sender: "DAKIYA",
          template_id: SMS_TEMPLATE_ID,
          variables: { code: "4821" },
        }),
      });
      expect(sent.status).toBe(202);
      const message = (await sent.json()) as { id: string };

      const { url } = server;
      await waitFor(async () => {
        const read = await fetch(`${url}/v2/sms/${message.id}`, { headers });
        return ((await read.json()) as { status: string }).status === "delivered";
      }, 10_000);
      const inbox = await fetch(`${server.url}/v2/sandbox/messages?to=%2B919812345678`, { headers });
      const entries = ((await inbox.json()) as { data: Array<{ message_id: string; text: string }> }).data;
      expect(entries).toEqual([
        expect.objectContaining({ message_id: message.id, text: "Your login code is 4821." }),
      ]);

      const reference = await fetch(`${server.url}/docs/`);
      expect(reference.status).toBe(200);
      expect(await reference.text()).toContain("Dakiya API reference");
      const openapi = await fetch(`${server.url}/openapi.json`);
      expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);
      const metrics = await fetch(`${server.url}/metrics`);
      expect(await metrics.text()).toContain("dakiya_");
    },
    SLOW,
  );

  it("starts through npm start with the Node flags of its start script", async () => {
    // The README's `npm start`: a preload (NODE_OPTIONS reaches npm too, which it leaves alone)
    // records the flags the server's process got, and stops it before it serves.
    const folder = mkdtempSync(join(tmpdir(), "dakiya-flags-"));
    const recorded = join(folder, "flags.json");
    const preload = join(folder, "record-flags.cjs");
    writeFileSync(
      preload,
      `if (process.argv[1]?.endsWith("dakiya.js")) {
        require("node:fs").writeFileSync(${JSON.stringify(recorded)}, JSON.stringify(process.execArgv));
        process.exit(0);
      }\n`,
    );
    try {
      await execFileAsync("npm", ["start"], {
        cwd: ROOT,
        env: { ...env, NODE_OPTIONS: `--require ${preload}` },
        timeout: 30_000,
      });
      expect(JSON.parse(readFileSync(recorded, "utf8"))).toContain("--max-semi-space-size=8");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
