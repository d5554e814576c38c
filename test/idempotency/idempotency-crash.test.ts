import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, sumLedger } from "../../src/accounts/ledger.js";
import type { AppContext } from "../../src/context.js";
import { systemClock } from "../../src/lib/clock.js";
import { openTestContext, TEST_SECRET } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";

/**
 * Item 1 of the hardening issue, with real processes: keyed sends under load, the server killed
 * with SIGKILL while they run (twice), restarted, and every unanswered request retried with its
 * key until it is answered. Each send must happen exactly once, whatever the kill interrupted.
 */

const SMS_REQUESTS = 240;
const OTP_REQUESTS = 120;
const CONCURRENCY = 20;
/** The server is killed once this share of the requests has been answered, then once more. */
const KILL_AFTER_ANSWERED = [0.2, 0.55];
/** One GSM-7 segment at the default price, ₹0.25, for an SMS and an SMS OTP alike. */
const PRICE = 2_500;
const CREDITS = 10_000_000;
const LOCK_SECONDS = 2;

interface KeyedRequest {
  key: string;
  path: "/v2/sms/send" | "/v2/otp/send";
  to: string;
  body: Record<string, unknown>;
}

interface Answer {
  status: number;
  body: { id?: string; message_id?: string | null; error?: { code: string } };
  replayed: boolean;
}

describe.each(DIALECTS)("keyed sends across SIGKILL and restart on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext | undefined;
  let server: ServerProcess | undefined;
  let serverUp: Promise<ServerProcess> | undefined;
  let accountId: string;
  let secret: string;
  let serverEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: systemClock });
    ({ accountId, secret } = await createSendingAccount(ctx, CREDITS));
    serverEnv = {
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      IDEMPOTENCY_LOCK_SECONDS: String(LOCK_SECONDS),
      // Messages a killed worker had in hand go out again soon after the restart.
      WORKER_LEASE_SECONDS: "2",
      WORKER_POLL_INTERVAL_MS: "50",
      // This test is about idempotency: one key sends everything, so no request limit may interfere.
      RATE_LIMIT_PER_MINUTE: "1000000",
      RATE_LIMIT_BURST: "1000000",
    };
  }, 30_000);

  afterAll(async () => {
    await serverUp?.catch(() => undefined);
    await server?.kill();
    await ctx?.close();
    await database?.drop();
  });

  it("sends and charges every request exactly once", { timeout: 120_000 }, async () => {
    const requests = keyedRequests();
    const answers = new Map<string, Answer>();
    serverUp = startServerProcess(serverEnv);
    server = await serverUp;
    let kills = 0;
    let interrupted = 0;

    /** Kills the server and starts another, while requests are in flight. */
    function crashAndRestart(): void {
      serverUp = (serverUp as Promise<ServerProcess>).then(async (running) => {
        await running.kill();
        server = await startServerProcess(serverEnv);
        return server;
      });
    }

    async function answer(request: KeyedRequest): Promise<Answer> {
      for (;;) {
        const { url } = await (serverUp as Promise<ServerProcess>);
        let response: Response;
        try {
          response = await fetch(`${url}${request.path}`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${secret}`,
              "content-type": "application/json",
              "idempotency-key": request.key,
            },
            body: JSON.stringify(request.body),
            signal: AbortSignal.timeout(15_000),
          });
        } catch {
          // Killed while the request was in flight: no answer, so the client retries with its key.
          interrupted++;
          await sleep(50);
          continue;
        }
        const body = (await response.json().catch(() => ({}))) as Answer["body"];
        if (response.status === 409) {
          // The killed holder's claim on the key has not lapsed yet.
          await sleep(200);
          continue;
        }
        return {
          status: response.status,
          body,
          replayed: response.headers.get("idempotent-replayed") === "true",
        };
      }
    }

    const queue = [...requests];
    const client = async () => {
      for (let request = queue.shift(); request; request = queue.shift()) {
        answers.set(request.key, await answer(request));
        const threshold = KILL_AFTER_ANSWERED[kills];
        if (threshold !== undefined && answers.size >= threshold * requests.length) {
          kills++;
          crashAndRestart();
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));

    expect(kills).toBe(KILL_AFTER_ANSWERED.length);
    // The kills did interrupt requests; otherwise this test proved nothing.
    expect(interrupted).toBeGreaterThan(0);

    const db = (ctx as AppContext).db;
    const messages = await db
      .selectFrom("messages")
      .select(["id", "recipient", "reference", "cost"])
      .where("account_id", "=", accountId)
      .execute();
    const messagesByNumber = groupBy(messages, (m) => m.recipient);
    // A send that ran twice, and a request whose answer is not its success (an OTP sent twice
    // answers its retry with resend_cooldown, for one).
    const outcome = {
      sentTwice: [...messagesByNumber].filter(([, list]) => list.length > 1).map(([to]) => to),
      notAnsweredWithSuccess: requests
        .filter((r) => answers.get(r.key)?.status !== (r.path === "/v2/sms/send" ? 202 : 200))
        .map((r) => `${r.key}: ${answers.get(r.key)?.status} ${answers.get(r.key)?.body.error?.code}`),
    };
    expect(outcome, `of ${requests.length} keyed requests`).toEqual({
      sentTwice: [],
      notAnsweredWithSuccess: [],
    });
    expect(messages).toHaveLength(requests.length);

    // Every answer names the one effect of its own request: no two keys share a message or an OTP.
    const otps = await db
      .selectFrom("otps")
      .select(["id", "recipient"])
      .where("account_id", "=", accountId)
      .execute();
    expect(otps).toHaveLength(OTP_REQUESTS);
    const otpByNumber = new Map(otps.map((o) => [o.recipient, o.id]));
    for (const request of requests) {
      const body = answers.get(request.key)?.body;
      const [message] = messagesByNumber.get(request.to) ?? [];
      if (request.path === "/v2/sms/send") {
        expect(message).toMatchObject({ id: body?.id, reference: request.key });
      } else {
        expect(body?.id).toBe(otpByNumber.get(request.to));
        expect(message).toMatchObject({ id: body?.message_id, reference: body?.id });
      }
    }

    const balance = await getBalance(db, accountId, "sandbox");
    expect(balance).toBe(CREDITS - requests.length * PRICE);
    expect(await sumLedger(db, accountId, "sandbox")).toBe(balance);

    // The restarted server's worker delivers what the killed one left: one inbox entry per number.
    const inboxCount = async () => {
      const row = await db
        .selectFrom("sandbox_messages")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("account_id", "=", accountId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    await waitFor(async () => (await inboxCount()) >= requests.length, 20_000, 200);
    const inbox = await db
      .selectFrom("sandbox_messages")
      .select(["recipient", "message_id"])
      .where("account_id", "=", accountId)
      .execute();
    const inboxByNumber = groupBy(inbox, (entry) => entry.recipient);
    expect([...inboxByNumber].filter(([, list]) => list.length > 1).map(([to]) => to)).toEqual([]);
    expect(inboxByNumber.size).toBe(requests.length);
  });
});

/** SMS and OTP sends, interleaved, each to a number of its own. */
function keyedRequests(): KeyedRequest[] {
  const requests: KeyedRequest[] = [];
  for (let i = 0; i < SMS_REQUESTS; i++) {
    const to = `+917${String(i).padStart(9, "0")}`;
    const key = `sms-${i}`;
    requests.push({
      key,
      path: "/v2/sms/send",
      to,
      body: {
        to,
        sender: "DAKIYA",
        template_id: SMS_TEMPLATE_ID,
        variables: { ref: `R${i}` },
        reference: key,
      },
    });
    if (i % (SMS_REQUESTS / OTP_REQUESTS) === 0) {
      const otpTo = `+918${String(i).padStart(9, "0")}`;
      requests.push({ key: `otp-${i}`, path: "/v2/otp/send", to: otpTo, body: { to: otpTo } });
    }
  }
  return requests;
}

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
