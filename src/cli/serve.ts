import type { Command } from "commander";
import { loadConfig } from "../config.js";
import type { AppContext } from "../context.js";
import { openDatabase } from "../db/database.js";
import { migrateToLatest } from "../db/migrate.js";
import { type OutputOptions, print } from "./run.js";
import { explainDatabaseError, explainListenError, listenersOf, openContext } from "./startup-errors.js";

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
      const ctx = await openContext(config, { backgroundCheckpoints: true });
      const app = await buildApp(ctx);
      const server = await startServer(app, ctx, {
        ...config,
        worker: options.worker ? config.worker : undefined,
      }).catch(async (error: unknown) => {
        await app.close();
        await ctx.close();
        throw explainListenError(error, listenersOf(config));
      });
      stopOnSignal(ctx, "shutting down: finishing in-flight requests and deliveries", server.stop);
    });

  program
    .command("worker")
    .description("run only the delivery worker (serve runs one too); any number may share a PostgreSQL")
    .action(async () => {
      const [{ createCarriers }, { startBackgroundLoops }, { startMetricsListener }] = await Promise.all([
        import("../delivery/carriers/wiring.js"),
        import("../worker.js"),
        import("../metrics/listener.js"),
      ]);
      const config = loadConfig();
      const ctx = await openContext(config, { backgroundCheckpoints: true });
      // A worker has no HTTP port: it serves /metrics only on a listener of its own (METRICS_PORT).
      const metrics = ctx.metrics.listener
        ? await startMetricsListener(ctx.metrics, ctx.metrics.listener, ctx.log).catch(
            async (error: unknown) => {
              await ctx.close();
              throw explainListenError(error, listenersOf(config).slice(1));
            },
          )
        : undefined;
      const loops = startBackgroundLoops(ctx, {
        maintenance: false,
        worker: { carriers: createCarriers(ctx, config), options: config.worker },
      });
      stopOnSignal(ctx, "shutting down: finishing the messages in hand", async () => {
        await loops.stop();
        await metrics?.close();
        await ctx.close();
      });
    });

  program
    .command("migrate")
    .description("bring the database schema up to date (serve also does this on start)")
    .action(async () => {
      const { databaseUrl } = loadConfig();
      const { db } = await openDatabase(databaseUrl);
      const ran = await migrateToLatest(db)
        .catch((error: unknown) => {
          throw explainDatabaseError(error, databaseUrl);
        })
        .finally(() => db.destroy());
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
