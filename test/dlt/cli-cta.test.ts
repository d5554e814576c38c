import { describe, expect, it } from "vitest";
import type { CtaEntryView } from "../../src/dlt/cta/store.js";
import { cliAccount, json, oneLineError } from "../helpers/cli.js";

const SLOW = 60_000;

const cli = cliAccount();
const { dakiya } = cli;

describe("dakiya cta commands", () => {
  it(
    "whitelists URL prefixes and numbers in canonical form, lists and removes them, as JSON and as text",
    async () => {
      const [url, number] = await Promise.all([
        dakiya("--json", "cta", "add", "--account", cli.accountId, "--url", "HTTPS://Dky.IN"),
        dakiya("--json", "cta", "add", "--account", cli.accountId, "--number", "+91 1800-123-4567"),
      ]);
      expect(json<CtaEntryView>(url)).toMatchObject({ kind: "url", value: "https://dky.in/" });
      expect(json<CtaEntryView>(number)).toMatchObject({ kind: "number", value: "+9118001234567" });

      const human = await dakiya("cta", "add", "--account", cli.accountId, "--url", "https://dky.in/app/");
      expect(human).toMatchObject({
        code: 0,
        stderr: "",
        stdout: "Whitelisted URL prefix https://dky.in/app/.\n",
      });

      const listed = json<{ data: CtaEntryView[] }>(
        await dakiya("--json", "cta", "list", "--account", cli.accountId),
      );
      expect(Object.keys(listed)).toEqual(["data"]);
      expect(listed.data.map(({ kind, value }) => `${kind} ${value}`)).toEqual([
        "url https://dky.in/",
        "url https://dky.in/app/",
        "number +9118001234567",
      ]);
      expect(listed.data.every((entry) => !Number.isNaN(Date.parse(entry.created_at)))).toBe(true);

      const text = await dakiya("cta", "list", "--account", cli.accountId);
      expect(text.stdout.split("\n").filter(Boolean)).toHaveLength(3);
      expect(text.stdout).toContain("number +9118001234567");

      // Written differently, the same entry: removed.
      const removed = json<{ kind: string; value: string; removed: boolean }>(
        await dakiya("--json", "cta", "remove", "--account", cli.accountId, "--number", "+9118001234567"),
      );
      expect(removed).toEqual({ kind: "number", value: "+9118001234567", removed: true });
      const after = json<{ data: CtaEntryView[] }>(
        await dakiya("--json", "cta", "list", "--account", cli.accountId),
      );
      expect(after.data.map((entry) => entry.value)).toEqual(["https://dky.in/", "https://dky.in/app/"]);
    },
    SLOW,
  );

  it(
    "refuses bad arguments with a non-zero exit and one line on stderr",
    async () => {
      const account = cli.accountId;
      const results = await Promise.all([
        dakiya("cta", "add", "--account", account),
        dakiya("cta", "add", "--account", account, "--url", "https://dky.in/", "--number", "+9118001234567"),
        dakiya("cta", "add", "--account", account, "--url", "https://dky.in@evil.com/"),
        dakiya("cta", "add", "--account", account, "--url", "https://dky.in/?x=1"),
        dakiya("cta", "add", "--account", account, "--number", "1800-123-4567"),
        dakiya("--json", "cta", "add", "--account", "acct_nope", "--url", "https://dky.in/"),
        dakiya("cta", "remove", "--account", account, "--url", "https://never.example.com/"),
        dakiya("cta", "add", "--url", "https://dky.in/"),
        dakiya("cta", "frobnicate"),
      ]);
      const lines = results.map(oneLineError);
      expect(lines[0]).toBe("dakiya: cta add: give --url <prefix> or --number <e164>.");
      expect(lines[1]).toBe("dakiya: cta add: give --url or --number, not both.");
      expect(lines[2]).toMatch(
        /^dakiya: URL prefix "https:\/\/dky.in@evil.com\/" has a user name or password/,
      );
      expect(lines[3]).toMatch(/query \(\?\) or fragment/);
      expect(lines[4]).toMatch(/^dakiya: number "1800-123-4567" must be in E.164 form/);
      expect(lines[5]).toBe("dakiya: No account acct_nope.");
      expect(lines[6]).toBe(
        "dakiya: URL prefix https://never.example.com/ is not whitelisted for this account.",
      );
      expect(lines[7]).toMatch(/required option '--account <id>'/);
      expect(lines[8]).toMatch(/unknown command "frobnicate"; choose one of: add, list, remove/);

      const first = await dakiya("cta", "add", "--account", account, "--url", "https://go.dky.in/");
      const twice = await dakiya("cta", "add", "--account", account, "--url", "https://GO.dky.in");
      expect(first.code).toBe(0);
      expect(oneLineError(twice)).toBe("dakiya: URL prefix https://go.dky.in/ is already whitelisted.");
    },
    SLOW,
  );
});
