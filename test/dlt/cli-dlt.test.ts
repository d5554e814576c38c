import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Template } from "../../src/dlt/registry.js";
import { cliRunner, json, oneLineError } from "../helpers/cli.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

const SECRET = "cli-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";
const SLOW = 60_000;

let database: TestDatabase;
let env: NodeJS.ProcessEnv;
let accountId: string;
const { dakiya } = cliRunner(() => env);

beforeAll(async () => {
  database = await createTestDatabase("sqlite");
  env = { ...process.env, DATABASE_URL: database.url, DAKIYA_SECRET: SECRET, LOG_LEVEL: "warn" };
  // The account comes from the library, not a spawn: subprocesses are slow, and accounts have their own CLI test.
  const ctx = await openTestContext(database.url);
  try {
    accountId = await createTestAccount(ctx);
  } finally {
    await ctx.close();
  }
});

afterAll(async () => {
  await database?.drop();
});

function templateAdd(overrides: { category?: string; senders?: string } = {}): string[] {
  return [
    "template",
    "add",
    "--account",
    accountId,
    "--template-id",
    TEMPLATE_ID,
    "--entity-id",
    ENTITY_ID,
    "--name",
    "Login OTP",
    "--category",
    overrides.category ?? "transactional",
    "--senders",
    overrides.senders ?? "dakiya",
    "--content",
    "Your OTP is {#var#} for {#var#}. Don\u2019t share it.",
  ];
}

describe("dakiya sender and template commands", () => {
  it(
    "registers a sender and a pasted DLT template, lists and deactivates it, and refuses bad input in one line",
    async () => {
      const sender = json<{ sender: string; created_at: string }>(
        await dakiya("--json", "sender", "add", "--account", accountId, "--sender", "dakiya"),
      );
      expect(sender.sender).toBe("DAKIYA");

      const [added, unregistered, badCategory] = await Promise.all([
        dakiya("--json", ...templateAdd()),
        dakiya("--json", ...templateAdd({ senders: "DAKIYA,NOTREG" })),
        dakiya("--json", ...templateAdd({ category: "otp" })),
      ]);
      const template = json<Template>(added);
      expect(template).toMatchObject({
        template_id: TEMPLATE_ID,
        entity_id: ENTITY_ID,
        name: "Login OTP",
        category: "transactional",
        content: "Your OTP is {#var1#} for {#var2#}. Don't share it.",
        placeholders: ["var1", "var2"],
        senders: ["DAKIYA"],
        status: "active",
      });
      expect(template.id).toMatch(/^tpl_/);
      // The 19-digit id survives as text, not as a rounded JSON number.
      expect(added.stdout).toContain(`"template_id":"${TEMPLATE_ID}"`);

      expect(oneLineError(unregistered)).toMatch(/^dakiya: sender NOTREG is not registered/);
      expect(oneLineError(badCategory)).toMatch(/^dakiya: option '--category <category>' argument 'otp'/);

      const listed = json<{ data: Template[] }>(
        await dakiya("--json", "template", "list", "--account", accountId),
      );
      expect(Object.keys(listed)).toEqual(["data"]);
      expect(listed.data).toEqual([template]);

      const deactivated = json<Template>(
        await dakiya(
          "--json",
          "template",
          "deactivate",
          "--account",
          accountId,
          "--template-id",
          TEMPLATE_ID,
        ),
      );
      expect(deactivated).toMatchObject({ id: template.id, status: "inactive" });

      const human = await dakiya("template", "list", "--account", accountId);
      expect(human).toMatchObject({ code: 0, stderr: "" });
      const lines = human.stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${TEMPLATE_ID} inactive transactional "Login OTP"`);
      expect(lines[0]).toContain("placeholders var1,var2");
    },
    SLOW,
  );
});
