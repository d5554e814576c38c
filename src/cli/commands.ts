import type { Command } from "commander";
import type { OutputOptions } from "./run.js";

/** Adds a module's commands to the program. */
export type RegisterCommands = (program: Command, output: () => OutputOptions) => void;

/**
 * Every top-level command, by the module that defines it, in the order help lists them. A
 * module, and what it imports (the database, the HTTP app, the carriers), is loaded only when one
 * of its commands runs: `dakiya balance` never loads Fastify, and `dakiya --version` loads none of
 * them. test/cli/cli-commands.test.ts checks that each module defines exactly the names given here.
 */
export const COMMAND_MODULES: ReadonlyArray<{
  readonly commands: readonly string[];
  readonly load: () => Promise<RegisterCommands>;
}> = [
  { commands: ["serve", "worker", "migrate"], load: async () => (await import("./serve.js")).serverCommands },
  {
    commands: ["account", "balance", "credits"],
    load: async () => (await import("./accounts.js")).accountCommands,
  },
  { commands: ["keys"], load: async () => (await import("./keys.js")).keyCommands },
  { commands: ["members"], load: async () => (await import("./members.js")).memberCommands },
  { commands: ["sender", "template"], load: async () => (await import("./dlt.js")).dltCommands },
  { commands: ["cta"], load: async () => (await import("./cta.js")).ctaCommands },
  { commands: ["otp"], load: async () => (await import("./otp.js")).otpCommands },
  { commands: ["webhooks"], load: async () => (await import("./webhooks.js")).webhookCommands },
  { commands: ["audit"], load: async () => (await import("./audit.js")).auditCommands },
  { commands: ["backup"], load: async () => (await import("./backup.js")).backupCommands },
  { commands: ["dev-smsc"], load: async () => (await import("./dev-smsc.js")).devSmscCommands },
];

/** The program's own flags: none takes a value, so the first argument not starting with "-" names the command. */
const VERSION_FLAGS = new Set(["-V", "--version"]);

/**
 * The modules the command line `args` (without node and the script) needs: the one defining the
 * command it names; none when it only asks for the version; all of them otherwise (help, no
 * command, a misspelt one), so that help lists every command and a typo gets a suggestion.
 */
export async function commandsFor(args: readonly string[]): Promise<RegisterCommands[]> {
  const named = args.find((arg) => !arg.startsWith("-"));
  const owner = named === undefined ? undefined : COMMAND_MODULES.find((m) => m.commands.includes(named));
  if (owner) return [await owner.load()];
  if (named === undefined && args.some((arg) => VERSION_FLAGS.has(arg))) return [];
  return Promise.all(COMMAND_MODULES.map((m) => m.load()));
}
