import { Command, CommanderError } from "commander";
import { commandsFor } from "./cli/commands.js";
import type { OutputOptions } from "./cli/run.js";
import { packageVersion } from "./cli/version.js";
import { ApiError, ConfigError } from "./errors.js";

const program = new Command("dakiya")
  .description("Dakiya: messaging API for India. Configuration comes from the environment (see README).")
  .version(packageVersion(), "-V, --version", "print the version")
  .option("--json", "print one JSON object on stdout")
  .showSuggestionAfterError()
  .configureOutput({ outputError: (message, write) => write(`dakiya: ${message.replace(/^error: /, "")}`) })
  .exitOverride();
const output = (): OutputOptions => program.opts<OutputOptions>();

try {
  // Only the module of the command asked for is loaded (src/cli/commands.ts).
  for (const register of await commandsFor(process.argv.slice(2))) register(program, output);
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its one-line message (or the help that was asked for).
    return error.exitCode;
  }
  if (error instanceof ApiError || error instanceof ConfigError) {
    process.stderr.write(`dakiya: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(
    `dakiya: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  return 1;
}
