import type { Clock } from "../../src/clock.js";
import { loadConfig } from "../../src/config.js";
import { type AppContext, createContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
import type { Carriers } from "../../src/delivery/carrier.js";
import { createLogger, type Logger } from "../../src/logger.js";

export const TEST_SECRET = "test-secret-0123456789abcdefghijklmnopqrstuvwxyz";

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

export function openTestContext(
  databaseUrl: string,
  options: { clock?: Clock; log?: Logger; liveCarriers?: Carriers["live"]; env?: NodeJS.ProcessEnv } = {},
): Promise<AppContext> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DAKIYA_SECRET: TEST_SECRET,
    LOG_LEVEL: "silent",
    ...options.env,
  });
  return createContext(config, {
    clock: options.clock ?? new TestClock(),
    log: options.log ?? createLogger("silent"),
    liveCarriers: options.liveCarriers ?? {},
  });
}

export type { Environment };
