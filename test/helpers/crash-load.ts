import { afterAll, beforeAll } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { Dialect } from "../../src/db/schema.js";
import { systemClock } from "../../src/lib/clock.js";
import { openTestContext, TEST_SECRET } from "./context.js";
import { createTestDatabase, type TestDatabase } from "./database.js";
import { createSendingAccount } from "./dlt-fixtures.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";

/**
 * For a test that kills the server: a fresh database with a sending account of `credits`, read
 * through a context of the test's own, and `startServer()` to run `dakiya serve` on it as a
 * process of its own, limits lifted. The test's database, context and server go after its tests.
 */
export function useServedAccount(dialect: Dialect, credits: number) {
  let database: TestDatabase | undefined;
  let ctx: AppContext | undefined;
  let server: ServerProcess | undefined;
  let account: { accountId: string; secret: string } | undefined;
  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is set up in beforeAll`);
    return value;
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: systemClock });
    account = await createSendingAccount(ctx, credits);
  }, 30_000);

  afterAll(async () => {
    await server?.kill();
    await ctx?.close();
    await database?.drop();
  });

  return {
    get ctx(): AppContext {
      return required(ctx, "the context");
    },
    get accountId(): string {
      return required(account, "the account").accountId;
    },
    get secret(): string {
      return required(account, "the account").secret;
    },
    async startServer(): Promise<ServerProcess> {
      server = await startServerProcess({
        DATABASE_URL: required(database, "the database").url,
        DAKIYA_SECRET: TEST_SECRET,
        RATE_LIMIT_PER_MINUTE: "1000000",
        RATE_LIMIT_BURST: "1000000",
      });
      return server;
    },
  };
}

/**
 * Works through `requests` from `concurrency` clients against `server`, and kills it with SIGKILL
 * once `killAfterAnswered` have been answered and every other client has a request out, before
 * the last one sends. Answers come in bursts (the sends of a turn share a transaction), so a kill
 * timed on an answer could find every other request answered with it, and nothing cut off.
 * `send` makes one request; when it throws after the kill, the request went unanswered, and one
 * sent before the kill counts as interrupted (cut off in flight). `answered` checks and records an
 * answer; what it throws is never taken for the kill.
 */
export async function loadUntilKilled<Request, Answer>(options: {
  server: ServerProcess;
  requests: Request[];
  concurrency: number;
  killAfterAnswered: number;
  send: (request: Request) => Promise<Answer>;
  answered: (request: Request, answer: Answer) => void;
}): Promise<{ answered: number; interrupted: number }> {
  const queue = [...options.requests];
  let answered = 0;
  let interrupted = 0;
  let inFlight = 0;
  let killed: Promise<void> | undefined;
  const killOnceTheOthersAreOut = () => {
    const due = answered >= options.killAfterAnswered && inFlight >= options.concurrency - 1;
    // At once: a timer would fire late in a busy test process, after the server had answered.
    if (due && killed === undefined) killed = options.server.kill();
  };
  const client = async () => {
    for (let request = queue.shift(); request !== undefined; request = queue.shift()) {
      killOnceTheOthersAreOut();
      const sentBeforeKill = killed === undefined;
      inFlight++;
      let answer: Answer;
      try {
        answer = await options.send(request);
      } catch (error) {
        // No answer: the server was killed while the request was in flight, or before it.
        if (killed === undefined) throw error;
        if (sentBeforeKill) interrupted++;
        continue;
      } finally {
        inFlight--;
      }
      options.answered(request, answer);
      answered++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  await killed;
  return { answered, interrupted };
}
