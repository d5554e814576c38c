import { Command, CommanderError } from "commander";
import { accountCommands } from "./cli/accounts.js";
import { backupCommands } from "./cli/backup.js";
import { ctaCommands } from "./cli/cta.js";
import { devSmscCommands } from "./cli/dev-smsc.js";
import { dltCommands } from "./cli/dlt.js";
import { keyCommands } from "./cli/keys.js";
import { otpCommands } from "./cli/otp.js";
import type { OutputOptions } from "./cli/run.js";
import { serverCommands } from "./cli/serve.js";
import { packageVersion } from "./cli/version.js";
import { webhookCommands } from "./cli/webhooks.js";
import { ApiError, ConfigError } from "./errors.js";

const program = new Command("dakiya")
  .description("Dakiya: messaging API for India. Configuration comes from the environment (see README).")
  .version(packageVersion(), "-V, --version", "print the version")
  .option("--json", "print one JSON object on stdout")
  .showSuggestionAfterError()
  .configureOutput({ outputError: (message, write) => write(`dakiya: ${message.replace(/^error: /, "")}`) })
  .exitOverride();
const output = (): OutputOptions => program.opts<OutputOptions>();

serverCommands(program, output);
accountCommands(program, output);
keyCommands(program, output);
dltCommands(program, output);
ctaCommands(program, output);
otpCommands(program, output);
webhookCommands(program, output);
backupCommands(program, output);
devSmscCommands(program, output);

try {
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
