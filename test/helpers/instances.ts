import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { Dialect } from "../../src/db/schema.js";
import type { App } from "../../src/http/types.js";
import { openTestContext, TestClock } from "./context.js";
import { createTestDatabase } from "./database.js";

export interface TestInstances {
  /** The one clock every instance reads. */
  clock: TestClock;
  ctx: AppContext;
  app: App;
  /** The app of the second instance when one was asked for, else the first app again. */
  otherApp: App;
  /** Closes the apps, then the contexts, then drops the database. */
  close(): Promise<void>;
}

/**
 * A fresh database on `dialect` with a context and an app on it, sharing a stopped clock; with
 * `secondInstance`, a second context and app on the same database, as a second server process
 * would be. `setup` runs for each app before it is used (e.g. to add test routes).
 */
export async function openTestInstances(
  dialect: Dialect,
  options: {
    secondInstance: boolean;
    setup?: (app: App, ctx: AppContext) => void;
    /** Settings for both instances, over the test defaults (e.g. small rate limits). */
    env?: NodeJS.ProcessEnv;
  },
): Promise<TestInstances> {
  const database = await createTestDatabase(dialect);
  const clock = new TestClock();
  const apps: App[] = [];
  const contexts: AppContext[] = [];

  async function close(): Promise<void> {
    for (const app of apps) await app.close();
    for (const ctx of contexts) await ctx.close();
    await database.drop();
  }

  async function open(): Promise<{ ctx: AppContext; app: App }> {
    const ctx = await openTestContext(database.url, { clock, env: options.env });
    contexts.push(ctx);
    const app = await buildApp(ctx);
    apps.push(app);
    options.setup?.(app, ctx);
    return { ctx, app };
  }

  try {
    const first = await open();
    const other = options.secondInstance ? await open() : first;
    return { clock, ctx: first.ctx, app: first.app, otherApp: other.app, close };
  } catch (error) {
    // Whatever did open is closed here: the caller never gets a handle on it.
    await close().catch(() => {});
    throw error;
  }
}
