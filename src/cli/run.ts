import { type Command, InvalidArgumentError } from "commander";
import pino from "pino";
import { loadConfig } from "../config.js";
import type { AppContext } from "../context.js";
import { ConfigError } from "../errors.js";
import { createLogger } from "../lib/logger.js";
import { openContext } from "./startup-errors.js";

export interface OutputOptions {
  json?: boolean;
}

/** Runs one operator command on its own context (the same database as the server), then closes it. */
export async function withContext<T>(work: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // stdout belongs to the command's output; logs go to stderr, and only warnings.
  const log = createLogger(config.logLevel === "info" ? "warn" : config.logLevel, pino.destination(2));
  // A command serves no metrics, so it loads no metrics library either.
  const ctx = await openContext(config, { log, metrics: false });
  try {
    return await work(ctx);
  } finally {
    await ctx.close();
  }
}

/** Prints one JSON object with `--json`, else the human-readable lines. */
export function print(options: OutputOptions, json: unknown, human: string[]): void {
  process.stdout.write(options.json ? `${JSON.stringify(json)}\n` : `${human.join("\n")}\n`);
}

export function parseNonNegativeInteger(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError("must be a whole number.");
  return Number(value);
}

/** A command that only groups subcommands: called bare or with an unknown one, it says which exist. */
export function commandGroup(parent: Command, name: string, description: string): Command {
  // The usage is set by hand: commander would list the argument after its own "[command]".
  const group = parent.command(name).description(description).usage("<command> [options]");
  group.argument("[command]").action((command: string | undefined) => {
    const known = group.commands.map((c) => c.name()).join(", ");
    const problem = command ? `unknown command "${command}"` : "a command is needed";
    throw new ConfigError(`${name}: ${problem}; choose one of: ${known}`);
  });
  return group;
}
