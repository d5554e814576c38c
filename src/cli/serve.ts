import type { Command } from "commander";
import { buildApp } from "../app.js";
import { loadConfig } from "../config.js";
import { type AppContext, createContext } from "../context.js";
import { openDatabase } from "../db/database.js";
import { migrateToLatest } from "../db/migrate.js";
import { createCarriers } from "../delivery/carriers/wiring.js";
import { startWorker } from "../delivery/worker.js";
import { startServer } from "../server.js";
import { type OutputOptions, print } from "./run.js";

export function serverCommands(program: Command, output: () => OutputOptions): void {
  program
    .command("serve")
    .description("run the HTTP API (what npm start runs)")
    .action(async () => {
      const config = loadConfig();
      const ctx = await createContext(config);
      const app = await buildApp(ctx);
      const server = await startServer(app, ctx, { ...config, worker: config.worker });
      stopOnSignal(ctx, "shutting down: finishing in-flight requests and deliveries", server.stop);
    });

  program
    .command("worker")
    .description("run only the delivery worker (serve runs one too); any number may share a PostgreSQL")
    .action(async () => {
      const config = loadConfig();
      const ctx = await createContext(config);
      const worker = startWorker(ctx, createCarriers(ctx, config), config.worker);
      stopOnSignal(ctx, "shutting down: finishing the messages in hand", async () => {
        await worker.stop();
        await ctx.close();
      });
    });

  program
    .command("migrate")
    .description("bring the database schema up to date (serve also does this on start)")
    .action(async () => {
      const { db } = openDatabase(loadConfig().databaseUrl);
      const ran = await migrateToLatest(db).finally(() => db.destroy());
      const applied = ran.length === 0 ? "nothing to apply" : `applied ${ran.join(", ")}`;
      print(output(), { migrated: true, ran }, [`Database schema is up to date (${applied}).`]);
    });
}

function stopOnSignal(ctx: AppContext, message: string, stop: () => Promise<void>): void {
  const shutdown = (signal: NodeJS.Signals) => {
    ctx.log.info({ signal }, message);
    stop().then(
      () => process.exit(0),
      (error) => {
        ctx.log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}
