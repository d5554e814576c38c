import { describe, expect, it } from "vitest";
import { loadUntilKilled, useServedAccount } from "../helpers/crash-load.js";
import { DIALECTS } from "../helpers/database.js";

/**
 * Verifications of many OTPs at once, wrong codes and right ones interleaved, and the server
 * killed with SIGKILL among them. Whatever was written must be whole: no OTP over its attempts, each attempt answered
 * once, every OTP that ended with exactly one event (`otp.verified` or `otp.failed`), and none
 * verified after it failed.
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

// PostgreSQL only: there a right code's count and its approval commit apart. On SQLite a
// verification is one transaction, and the server answers faster than this test's client sends,
// so a kill too seldom finds one in flight to prove anything.
describe.skipIf(!DIALECTS.includes("postgres"))("verifications across SIGKILL on PostgreSQL", () => {
  const served = useServedAccount("postgres", 10_000_000);

  it("no OTP goes over its attempts, and each approval has its one event", { timeout: 60_000 }, async () => {
    const server = await served.startServer();
    const { url } = server;
    const { accountId, secret } = served;
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
    const { interrupted } = await loadUntilKilled({
      server,
      requests,
      concurrency: CONCURRENCY,
      killAfterAnswered: KILL_AFTER_ANSWERED,
      send: async ({ to, code }) => {
        const response = await post("/v2/otp/verify", { to, code });
        return { status: response.status, body: (await response.json()) as Answer };
      },
      answered: (request, { status, body }) => {
        expect(status, JSON.stringify(body)).toBe(200);
        expect(body.verified).toBe(body.reason === "approved");
        if (body.reason === "approved") expect(request.right).toBe(true);
        answers.set(request.to, [...(answers.get(request.to) ?? []), body]);
      },
    });
    // The kill cut verifications off in flight; otherwise this test proved nothing.
    expect(interrupted).toBeGreaterThan(0);

    const db = served.ctx.db;
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
      // An OTP ends once, with its one event. Fewer wrong codes than attempts are sent, but on
      // PostgreSQL those that come while a right code's counted attempt awaits its approval may
      // use up the rest: the OTP is then locked, and stays so.
      expect(["pending", "approved", "locked"]).toContain(otp.status);
      expect(eventsOf(otp.id, "otp.verified")).toHaveLength(otp.status === "approved" ? 1 : 0);
      expect(eventsOf(otp.id, "otp.failed")).toHaveLength(otp.status === "locked" ? 1 : 0);
      if (given.some((a) => a.reason === "approved")) expect(otp.status).toBe("approved");
      expect(ids.get(otp.recipient)).toBe(otp.id);
    }
  });
});
