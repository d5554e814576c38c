import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMAND_MODULES, commandsFor } from "../../src/cli/commands.js";
import { cliRunner } from "../helpers/cli.js";

const output = () => ({});

describe("the map of commands to the modules that define them (src/cli/commands.ts)", () => {
  it("names, for each module, exactly the top-level commands it defines, each once", async () => {
    for (const { commands, load } of COMMAND_MODULES) {
      const program = new Command();
      (await load())(program, output);
      expect(program.commands.map((command) => command.name())).toEqual(commands);
    }
    const every = COMMAND_MODULES.flatMap((m) => m.commands);
    expect(new Set(every).size).toBe(every.length);
  });

  it("loads the named command's module alone, none for the version, and all for help or a misspelt command", async () => {
    const loaded = await Promise.all(COMMAND_MODULES.map((m) => m.load()));
    const moduleOf = (name: string) => loaded[COMMAND_MODULES.findIndex((m) => m.commands.includes(name))];

    expect(await commandsFor(["balance", "--account", "acct_1", "--environment", "live"])).toEqual([
      moduleOf("balance"),
    ]);
    expect(await commandsFor(["--json", "keys", "list", "--account", "acct_1"])).toEqual([moduleOf("keys")]);
    expect(await commandsFor(["template", "--help"])).toEqual([moduleOf("template")]);
    expect(await commandsFor(["serve", "--no-worker"])).toEqual([moduleOf("serve")]);
    for (const versionOnly of [["--version"], ["-V"], ["--json", "--version"]]) {
      expect(await commandsFor(versionOnly)).toEqual([]);
    }
    for (const all of [[], ["--help"], ["-h"], ["help"], ["help", "balance"], ["balanc"], ["--json"]]) {
      expect(await commandsFor(all)).toEqual(loaded);
    }
  });

  it("still suggests the command meant when one is misspelt", async () => {
    const { dakiya } = cliRunner(() => process.env);
    const result = await dakiya("balanc", "--account", "acct_1");
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^dakiya: unknown command 'balanc'\n\(Did you mean balance\?\)\n$/);
  });
});
