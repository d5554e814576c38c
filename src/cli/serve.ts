import type { Command } from "commander";
import { loadConfig } from "../config.js";
import { type AppContext, createContext } from "../context.js";
import { openDatabase } from "../db/database.js";
import { migrateToLatest } from "../db/migrate.js";
import { type OutputOptions, print } from "./run.js";

// The server, the worker and the carriers are loaded only by the commands that run them, so the
// operator's other commands start in about half the time.

export function serverCommands(program: Command, output: () => OutputOptions): void {
  program
    .command("serve")
    .description("run the HTTP API (what npm start runs)")
    // Several API processes on one PostgreSQL can leave delivery to separate `dakiya worker` processes.
    .option("--no-worker", "run no delivery worker in this process (run `dakiya worker` beside it)")
    .action(async (options: { worker: boolean }) => {
      const [{ buildApp }, { startServer }] = await Promise.all([
        import("../app.js"),
        import("../server.js"),
      ]);
      const config = loadConfig();
      const ctx = await createContext(config);
      const app = await buildApp(ctx);
      const server = await startServer(app, ctx, {
        ...config,
        worker: options.worker ? config.worker : undefined,
      });
      stopOnSignal(ctx, "shutting down: finishing in-flight requests and deliveries", server.stop);
    });

  program
    .command("worker")
    .description("run only the delivery worker (serve runs one too); any number may share a PostgreSQL")
    .action(async () => {
      const [{ createCarriers }, { startWorker }] = await Promise.all([
        import("../delivery/carriers/wiring.js"),
        import("../delivery/worker.js"),
      ]);
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
