import { describe, expect, it } from "vitest";
import type { Template } from "../../src/dlt/registry.js";
import { cliAccount, json, oneLineError } from "../helpers/cli.js";
import { TEST_ENTITY_ID } from "../helpers/dlt-fixtures.js";

const TEMPLATE_ID = "1107161234567890123";
const SLOW = 60_000;

const cli = cliAccount();
const { dakiya } = cli;

function templateAdd(overrides: { category?: string; senders?: string } = {}): string[] {
  return [
    "template",
    "add",
    "--account",
    cli.accountId,
    "--template-id",
    TEMPLATE_ID,
    "--entity-id",
    TEST_ENTITY_ID,
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
        await dakiya("--json", "sender", "add", "--account", cli.accountId, "--sender", "dakiya"),
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
        entity_id: TEST_ENTITY_ID,
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
        await dakiya("--json", "template", "list", "--account", cli.accountId),
      );
      expect(Object.keys(listed)).toEqual(["data"]);
      expect(listed.data).toEqual([template]);

      const deactivated = json<Template>(
        await dakiya(
          "--json",
          "template",
          "deactivate",
          "--account",
          cli.accountId,
          "--template-id",
          TEMPLATE_ID,
        ),
      );
      expect(deactivated).toMatchObject({ id: template.id, status: "inactive" });

      const human = await dakiya("template", "list", "--account", cli.accountId);
      expect(human).toMatchObject({ code: 0, stderr: "" });
      const lines = human.stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain(`${TEMPLATE_ID} inactive transactional "Login OTP"`);
      expect(lines[0]).toContain("placeholders var1,var2");
      // The bare {#var#} of the pasted content is TRAI's untagged variable, on a line of its own.
      expect(lines[1]).toMatch(
        /^ {2}DLT warning untagged_variable: \{#var1#\}, \{#var2#\} are bare \{#var#\} slots/,
      );
    },
    SLOW,
  );
});
