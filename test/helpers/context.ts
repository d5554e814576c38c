import { afterEach } from "vitest";
import { type Config, loadConfig } from "../../src/config.js";
import { type AppContext, createContext } from "../../src/context.js";
import type { Channel, Dialect, Environment } from "../../src/db/schema.js";
import type { Carriers } from "../../src/delivery/carrier.js";
import { createCarriers } from "../../src/delivery/carriers/wiring.js";
import type { Clock } from "../../src/lib/clock.js";
import { createLogger, type Logger } from "../../src/lib/logger.js";
import { createTestDatabase, type TestDatabase } from "./database.js";

export const TEST_SECRET = "test-secret-0123456789abcdefghijklmnopqrstuvwxyz";

/** For tests that load one key on purpose: its request limit would answer 429s they are not about. */
export const UNLIMITED_REQUESTS = { RATE_LIMIT_PER_MINUTE: "1000000", RATE_LIMIT_BURST: "1000000" };

/** A clock that stands still until a test moves it. */
export class TestClock implements Clock {
  private current: number;

  constructor(start = "2026-11-22T10:00:00.000Z") {
    this.current = Date.parse(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(seconds: number): void {
    this.current += seconds * 1000;
  }
}

/** What a worker on a test context is wired from: the test's configuration and live carriers. */
const carrierWiring = new WeakMap<AppContext, { config: Config; liveCarriers: Carriers["live"] }>();

/**
 * A context on `databaseUrl` with the test secret and a silent log. `liveCarriers` count as
 * configured live channels, and workers started with `testCarriers` send through them.
 */
export async function openTestContext(
  databaseUrl: string,
  options: { clock?: Clock; log?: Logger; liveCarriers?: Carriers["live"]; env?: NodeJS.ProcessEnv } = {},
): Promise<AppContext> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DAKIYA_SECRET: TEST_SECRET,
    LOG_LEVEL: "silent",
    ...options.env,
  });
  const liveCarriers = options.liveCarriers ?? {};
  const ctx = await createContext(config, {
    clock: options.clock ?? new TestClock(),
    log: options.log ?? createLogger(process.env.TEST_LOG ?? "silent"),
    liveChannels: Object.keys(liveCarriers) as Channel[],
  });
  carrierWiring.set(ctx, { config, liveCarriers });
  return ctx;
}

/**
 * Carriers for a worker on a context from `openTestContext`, wired as `dakiya serve` wires them:
 * the sandbox, the test's live carriers, and those its `env` configures (new ones each call,
 * since a worker closes its carriers when it stops).
 */
export function testCarriers(ctx: AppContext): Carriers {
  const wiring = carrierWiring.get(ctx);
  if (!wiring) throw new Error("testCarriers needs a context from openTestContext");
  return createCarriers(ctx, wiring.config, wiring.liveCarriers);
}

/** The carrier settings a context from `openTestContext` was configured with (its `env`'s SMPP routes, …). */
export function testCarrierSettings(ctx: AppContext): Pick<Config, "smpp" | "whatsapp" | "voice"> {
  const wiring = carrierWiring.get(ctx);
  if (!wiring) throw new Error("testCarrierSettings needs a context from openTestContext");
  const { smpp, whatsapp, voice } = wiring.config;
  return { smpp, whatsapp, voice };
}

/**
 * A new database and context for each test that asks (migration tests go up and down, so they
 * share nothing): `open()` makes them, and both are closed and dropped after the test.
 */
export function contextPerTest(dialect: Dialect): { open: () => Promise<AppContext> } {
  let database: TestDatabase | undefined;
  let ctx: AppContext | undefined;
  afterEach(async () => {
    await ctx?.close();
    await database?.drop();
    [ctx, database] = [undefined, undefined];
  });
  return {
    open: async () => {
      database = await createTestDatabase(dialect);
      ctx = await openTestContext(database.url);
      return ctx;
    },
  };
}

export type { Environment };
