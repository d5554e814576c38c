import { afterAll, beforeAll } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { Dialect } from "../../src/db/schema.js";
import type { Carriers } from "../../src/delivery/carrier.js";
import type { App } from "../../src/http/types.js";
import type { Logger } from "../../src/lib/logger.js";
import { openTestContext, TestClock } from "./context.js";
import { createTestDatabase, type TestDatabase } from "./database.js";

/** One server process's context and app. */
export interface TestInstance {
  ctx: AppContext;
  app: App;
}

/** What a further instance may differ in: its settings and its live carriers. */
export interface InstanceOptions {
  /** Settings over the test defaults; the instances' shared `env` when not given. */
  env?: NodeJS.ProcessEnv;
  liveCarriers?: Carriers["live"];
}

export interface TestInstancesOptions {
  /** A second context and app on the same database from the start, as `otherApp`. */
  secondInstance?: boolean;
  /** Runs for each app before it is used (e.g. to add test routes). */
  setup?: (app: App, ctx: AppContext) => void;
  /** Settings for every instance, over the test defaults (e.g. small rate limits). */
  env?: NodeJS.ProcessEnv;
  /** The first instance's log; the others log nothing. */
  log?: Logger;
  /** The clock every instance reads; a new stopped one when not given. */
  clock?: TestClock;
}

export interface TestInstances extends TestInstance {
  database: TestDatabase;
  /** The one clock every instance reads. */
  clock: TestClock;
  /** The app of the second instance when one was asked for, else the first app again. */
  otherApp: App;
  /** Another context and app on the same database and clock, as another server process would be. */
  openInstance(options?: InstanceOptions): Promise<TestInstance>;
  /** Closes the apps, then the contexts, then drops the database. */
  close(): Promise<void>;
}

/**
 * A fresh database on `dialect` with a context and an app on it, sharing a stopped clock; with
 * `secondInstance`, a second context and app on the same database, as a second server process
 * would be. The one way a test opens instances; `useTestInstances` does it for a describe block.
 */
export async function openTestInstances(
  dialect: Dialect,
  options: TestInstancesOptions = {},
): Promise<TestInstances> {
  const database = await createTestDatabase(dialect);
  const clock = options.clock ?? new TestClock();
  const opened: TestInstance[] = [];

  async function close(): Promise<void> {
    for (const { app } of opened) await app.close();
    for (const { ctx } of opened) await ctx.close();
    await database.drop();
  }

  async function open(log: Logger | undefined, instance: InstanceOptions): Promise<TestInstance> {
    const ctx = await openTestContext(database.url, {
      clock,
      log,
      env: instance.env ?? options.env,
      liveCarriers: instance.liveCarriers,
    });
    const app = await buildApp(ctx).catch(async (error: unknown) => {
      await ctx.close();
      throw error;
    });
    opened.push({ ctx, app });
    options.setup?.(app, ctx);
    return { ctx, app };
  }

  try {
    const first = await open(options.log, {});
    const other = options.secondInstance ? await open(undefined, {}) : first;
    return {
      database,
      clock,
      ctx: first.ctx,
      app: first.app,
      otherApp: other.app,
      openInstance: (instance = {}) => open(undefined, instance),
      close,
    };
  } catch (error) {
    // Whatever did open is closed here: the caller never gets a handle on it.
    await close().catch(() => {});
    throw error;
  }
}

/**
 * `openTestInstances` for a describe block: opened in its `beforeAll`, closed in its `afterAll`.
 * The clock is there at once; the rest from the first `beforeAll` on.
 */
export function useTestInstances(
  dialect: Dialect,
  options: TestInstancesOptions = {},
): Omit<TestInstances, "close"> {
  const clock = options.clock ?? new TestClock();
  let instances: TestInstances | undefined;
  beforeAll(async () => {
    instances = await openTestInstances(dialect, { ...options, clock });
  });
  afterAll(() => instances?.close());
  const opened = (): TestInstances => {
    if (!instances) throw new Error("the test instances open in beforeAll");
    return instances;
  };
  return {
    clock,
    get database() {
      return opened().database;
    },
    get ctx() {
      return opened().ctx;
    },
    get app() {
      return opened().app;
    },
    get otherApp() {
      return opened().otherApp;
    },
    openInstance: (instance) => opened().openInstance(instance),
  };
}
