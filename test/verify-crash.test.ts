import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.js";
import type { AppContext } from "../src/context.js";
import { openTestContext, TEST_SECRET } from "./helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "./helpers/database.js";
import { createSendingAccount } from "./helpers/dlt-fixtures.js";
import { type ServerProcess, startServerProcess } from "./helpers/server-process.js";

/**
 * Verifications of many OTPs at once, wrong codes and right ones interleaved, and the server
 * killed with SIGKILL among them (on PostgreSQL a right code's count and its approval commit
 * apart). Whatever was written must be whole: no OTP over its attempts, each attempt answered
 * once, every approval answered or not with exactly one `otp.verified`, and none without it.
 */

const OTPS = 100;
const WRONG_CODES = 3;
const CONCURRENCY = 60;
const KILL_AFTER_ANSWERED = 200;
const MAX_ATTEMPTS = 5;

interface Answer {
  verified: boolean;
  reason: string;
  attempts_remaining: number;
}

describe.each(DIALECTS)("verifications across SIGKILL on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext | undefined;
  let server: ServerProcess | undefined;
  let accountId: string;
  let secret: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: systemClock });
    ({ accountId, secret } = await createSendingAccount(ctx, 10_000_000));
  }, 30_000);

  afterAll(async () => {
    await server?.kill();
    await ctx?.close();
    await database?.drop();
  });

  it("no OTP goes over its attempts, and each approval has its one event", { timeout: 60_000 }, async () => {
    server = await startServerProcess({
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      RATE_LIMIT_PER_MINUTE: "1000000",
      RATE_LIMIT_BURST: "1000000",
    });
    const { url } = server;
    const post = (path: string, body: object) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });

    const otps = Array.from({ length: OTPS }, (_, i) => ({
      to: `+919${String(i).padStart(9, "0")}`,
      code: String(100_000 + i * 7_919),
    }));
    const ids = new Map<string, string>();
    for (const { to, code } of otps) {
      const response = await post("/v2/otp/send", { to, code });
      expect(response.status).toBe(200);
      ids.set(to, ((await response.json()) as { id: string }).id);
    }

    // Each OTP: wrong codes, the right one, then a wrong one again, all in a shuffled queue.
    const requests = otps.flatMap(({ to, code }) => [
      ...Array.from({ length: WRONG_CODES }, (_, k) => ({ to, code: String(900_000 + k), right: false })),
      { to, code, right: true },
      { to, code: "999999", right: false },
    ]);
    for (let i = requests.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [requests[i], requests[j]] = [
        requests[j] as (typeof requests)[number],
        requests[i] as (typeof requests)[number],
      ];
    }
    const answers = new Map<string, Answer[]>();
    let answered = 0;
    let interrupted = 0;
    let killed: Promise<void> | undefined;
    const client = async () => {
      for (let request = requests.shift(); request !== undefined; request = requests.shift()) {
        const sentBeforeKill = killed === undefined;
        let answer: Answer;
        try {
          const response = await post("/v2/otp/verify", { to: request.to, code: request.code });
          answer = (await response.json()) as Answer;
          expect(response.status, JSON.stringify(answer)).toBe(200);
        } catch (error) {
          if (killed === undefined) throw error;
          if (sentBeforeKill) interrupted++;
          continue;
        }
        expect(answer.verified).toBe(answer.reason === "approved");
        if (answer.reason === "approved") expect(request.right).toBe(true);
        answers.set(request.to, [...(answers.get(request.to) ?? []), answer]);
        answered++;
        if (answered === KILL_AFTER_ANSWERED) killed = server?.kill();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    await killed;
    // The kill cut verifications off in flight; otherwise this test proved nothing.
    expect(interrupted).toBeGreaterThan(0);

    const db = (ctx as AppContext).db;
    const rows = await db
      .selectFrom("otps")
      .select(["id", "recipient", "status", "attempts", "max_attempts"])
      .where("account_id", "=", accountId)
      .execute();
    const events = await db
      .selectFrom("events")
      .select(["type", "data"])
      .where("account_id", "=", accountId)
      .where("type", "in", ["otp.verified", "otp.failed"])
      .execute();
    const eventsOf = (id: string, type: string) =>
      events.filter((event) => event.type === type && (JSON.parse(event.data) as { id: string }).id === id);

    expect(rows).toHaveLength(OTPS);
    for (const otp of rows) {
      const given = answers.get(otp.recipient) ?? [];
      const counted = given.filter((a) => a.reason === "incorrect_code" || a.reason === "approved");
      expect(otp.max_attempts).toBe(MAX_ATTEMPTS);
      expect(otp.attempts).toBeLessThanOrEqual(MAX_ATTEMPTS);
      // Each answered attempt was counted, once: its remaining attempts are its own.
      expect(counted.length).toBeLessThanOrEqual(otp.attempts);
      const remaining = counted.map((a) => a.attempts_remaining);
      expect(new Set(remaining).size, JSON.stringify(given)).toBe(remaining.length);
      // Fewer wrong codes than attempts: none is locked, and an approval is written whole.
      expect(["pending", "approved"]).toContain(otp.status);
      expect(eventsOf(otp.id, "otp.failed")).toHaveLength(0);
      expect(eventsOf(otp.id, "otp.verified")).toHaveLength(otp.status === "approved" ? 1 : 0);
      if (given.some((a) => a.reason === "approved")) expect(otp.status).toBe("approved");
      expect(ids.get(otp.recipient)).toBe(otp.id);
    }
  });
});
