import type { Command } from "commander";
import { loadConfig } from "../config.js";
import { type OutputOptions, print } from "./run.js";

export function backupCommands(program: Command, output: () => OutputOptions): void {
  program
    .command("backup")
    .description(
      "copy the SQLite database to FILE while the server runs (a consistent snapshot); on PostgreSQL use pg_dump",
    )
    .requiredOption("--out <file>", "where the copy goes (refused if it exists, unless --force)")
    .option("--force", "replace FILE if it exists")
    .action(async (options: { out: string; force?: boolean }) => {
      const { backupSqlite } = await import("../backup/sqlite-backup.js");
      const result = await backupSqlite(loadConfig().databaseUrl, options.out, {
        force: options.force === true,
      });
      print(output(), result, [
        `Backed up ${result.source} to ${result.path} (${formatBytes(result.bytes)}).`,
      ]);
    });
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
