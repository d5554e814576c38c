import type { Clock } from "../../src/clock.js";
import { type AppContext, createContext } from "../../src/context.js";
import type { Environment } from "../../src/db/schema.js";
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
  options: { clock?: Clock; log?: Logger } = {},
): Promise<AppContext> {
  return createContext(
    { host: "127.0.0.1", port: 0, databaseUrl, secret: TEST_SECRET, logLevel: "silent" },
    { clock: options.clock ?? new TestClock(), log: options.log ?? createLogger("silent") },
  );
}

export type { Environment };
