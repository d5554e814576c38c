import { once } from "node:events";
import { type AddressInfo, createServer, type Server, Socket } from "node:net";
import fc from "fast-check";
import smpp from "smpp";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LOWEST_LANE_TURN, RateLimiter, Window } from "../../src/delivery/carriers/flow-control.js";
import { sendInTurn } from "../../src/delivery/carriers/smpp-route.js";
import { type MessagePriority, PRIORITY_LANE } from "../../src/messages/traffic.js";

describe("the SMPP rate limiter", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Takes `count` slots at once and records when (fake ms after the start) each was granted. */
  function takeAll(limiter: RateLimiter, count: number): number[] {
    const start = Date.now();
    const grantedAt: number[] = [];
    for (let i = 0; i < count; i++) void limiter.take().then(() => grantedAt.push(Date.now() - start));
    return grantedAt;
  }

  it("spaces sends to the rate, a slot at a time", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const grantedAt = takeAll(new RateLimiter(100), 5);
    await vi.advanceTimersByTimeAsync(100);
    expect(grantedAt).toEqual([0, 10, 20, 30, 40]);
  });

  it("lets go together the sends whose slots come in the same millisecond, on one timer", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const grantedAt = takeAll(new RateLimiter(10_000), 35);
    // One timer for every waiter, not one each.
    expect(vi.getTimerCount()).toBe(1);
    for (let ms = 0; ms <= 4; ms++) {
      await vi.advanceTimersByTimeAsync(ms === 0 ? 0 : 1);
      // Never ahead of the rate by as much as a millisecond's worth of sends.
      expect(grantedAt.length).toBeLessThanOrEqual((ms + 1) * 10);
    }
    expect(grantedAt).toHaveLength(35);
    const byMillisecond = new Map<number, number>();
    for (const at of grantedAt) byMillisecond.set(at, (byMillisecond.get(at) ?? 0) + 1);
    expect([...byMillisecond.values()]).toEqual([10, 10, 10, 5]);
  });

  it("keeps the order of the takes and holds every send back after a throttle", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const limiter = new RateLimiter(1_000);
    const order: number[] = [];
    const first = [0, 1, 2].map((i) => limiter.take().then(() => order.push(i)));
    limiter.holdFor(50);
    const afterHold = limiter.take().then(() => order.push(3));
    await vi.advanceTimersByTimeAsync(48);
    expect(order).toEqual([0, 1, 2]);
    await vi.advanceTimersByTimeAsync(2);
    await Promise.all([...first, afterHold]);
    expect(order).toEqual([0, 1, 2, 3]);
  });
});

/** Lets the callbacks of promises settled so far run. */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("the SMPP send window", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Queues a waiter named `name` and records its name in `granted` when it gets a place. */
  function wait(window: Window, priority: MessagePriority, name: string, granted: string[]) {
    return window.acquire(priority).then((got) => {
      if (got) granted.push(name);
      return got;
    });
  }

  it("gives a freed place to OTPs first, then transactional, then bulk, oldest first in each", async () => {
    const window = new Window(1);
    expect(await window.acquire("bulk")).toBe(true);
    const granted: string[] = [];
    wait(window, "bulk", "bulk-1", granted);
    wait(window, "bulk", "bulk-2", granted);
    wait(window, "transactional", "transactional-1", granted);
    wait(window, "otp", "otp-1", granted);
    wait(window, "transactional", "transactional-2", granted);
    wait(window, "otp", "otp-2", granted);
    expect(window.waiting).toBe(6);
    for (let i = 0; i < 6; i++) {
      window.release();
      await settled();
    }
    expect(granted).toEqual(["otp-1", "otp-2", "transactional-1", "transactional-2", "bulk-1", "bulk-2"]);
    expect(window.inUse).toBe(1);
    window.release();
    expect(window.inUse).toBe(0);
  });

  it("gives every tenth place to the oldest bulk waiter while OTPs keep the window full", async () => {
    const window = new Window(1);
    expect(await window.acquire("otp")).toBe(true);
    const granted: string[] = [];
    for (let i = 0; i < 5; i++) wait(window, "bulk", `bulk-${i}`, granted);
    let otps = 0;
    for (let grant = 0; grant < 50; grant++) {
      // An OTP is always waiting: without the bulk share, bulk would never go.
      wait(window, "otp", `otp-${otps++}`, granted);
      window.release();
      await settled();
    }
    expect(granted.filter((name) => name.startsWith("bulk"))).toEqual([
      "bulk-0",
      "bulk-1",
      "bulk-2",
      "bulk-3",
      "bulk-4",
    ]);
    expect(granted.map((name, index) => (name.startsWith("bulk") ? index + 1 : 0)).filter(Boolean)).toEqual([
      10, 20, 30, 40, 50,
    ]);
  });

  it("drops a waiter whose wait times out or is aborted, and grants the next one instead", async () => {
    vi.useFakeTimers();
    const window = new Window(1);
    expect(await window.acquire("bulk")).toBe(true);
    const controller = new AbortController();
    const timedOut = window.acquire("otp", { timeoutMs: 100 });
    const aborted = window.acquire("otp", { signal: controller.signal });
    const granted: string[] = [];
    const last = wait(window, "bulk", "bulk", granted);
    await vi.advanceTimersByTimeAsync(100);
    expect(await timedOut).toBe(false);
    controller.abort();
    expect(await aborted).toBe(false);
    expect(window.waiting).toBe(1);
    window.release();
    expect(await last).toBe(true);
    expect(granted).toEqual(["bulk"]);
    // Neither an aborted signal nor a zero wait queues anything.
    expect(await window.acquire("otp", { signal: controller.signal })).toBe(false);
    expect(await window.acquire("otp", { timeoutMs: 0 })).toBe(false);
    expect(window.waiting).toBe(0);
  });

  it("grants every waiter once, higher lanes first but for the lowest lane's share, and never more places than it has", async () => {
    type Step =
      | { kind: "acquire"; priority: MessagePriority }
      | { kind: "release" }
      | { kind: "abort"; pick: number };
    // Enough acquires and releases to keep the window full with several lanes waiting for long.
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant("acquire" as const),
          priority: fc.constantFrom<MessagePriority>("otp", "otp", "otp", "otp", "transactional", "bulk"),
        }),
      },
      { weight: 4, arbitrary: fc.record({ kind: fc.constant("release" as const) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("abort" as const), pick: fc.nat() }) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(step, { minLength: 20, maxLength: 150, size: "max" }),
        async (size, steps) => {
          const window = new Window(size);
          /** Each waiter's answers: exactly one in the end. */
          const answers: boolean[][] = [];
          const pending: Array<{ id: number; lane: number; abort: AbortController }> = [];
          const holders: number[] = [];
          let sinceLowest = 0;

          const release = async () => {
            const lanes = pending.map((waiter) => waiter.lane);
            window.release();
            await settled();
            const granted = pending.filter((waiter) => answers[waiter.id]?.[0] === true);
            if (lanes.length === 0) {
              expect(granted).toEqual([]);
              return;
            }
            expect(granted).toHaveLength(1);
            const [winner] = granted;
            if (!winner) return;
            // Oldest of its lane; the highest lane, or the lowest one's turn.
            expect(pending.find((waiter) => waiter.lane === winner.lane)).toBe(winner);
            const highest = Math.min(...lanes);
            const lowest = Math.max(...lanes);
            expect([highest, lowest]).toContain(winner.lane);
            sinceLowest = winner.lane === lowest ? 0 : sinceLowest + 1;
            expect(sinceLowest).toBeLessThan(LOWEST_LANE_TURN);
            pending.splice(pending.indexOf(winner), 1);
            holders.push(winner.id);
          };

          for (const current of steps) {
            if (current.kind === "acquire") {
              const id = answers.length;
              const abort = new AbortController();
              answers.push([]);
              void window
                .acquire(current.priority, { signal: abort.signal })
                .then((got) => answers[id]?.push(got));
              await settled();
              if (answers[id]?.[0] === true) holders.push(id);
              else pending.push({ id, lane: PRIORITY_LANE[current.priority], abort });
            } else if (current.kind === "release") {
              if (holders.shift() !== undefined) await release();
            } else if (pending.length > 0) {
              const [waiter] = pending.splice(current.pick % pending.length, 1);
              waiter?.abort.abort();
              await settled();
              expect(answers[waiter?.id ?? -1]).toEqual([false]);
            }
            expect(window.inUse).toBe(holders.length);
            expect(window.inUse).toBeLessThanOrEqual(size);
            expect(window.waiting).toBe(pending.length);
          }
          while (holders.shift() !== undefined) await release();
          expect(pending).toEqual([]);
          expect(window.inUse).toBe(0);
          for (const answer of answers) expect(answer).toHaveLength(1);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("SMPP writes", () => {
  let server: Server | undefined;
  let client: Socket | undefined;

  afterEach(async () => {
    client?.destroy();
    if (server) await new Promise((resolve) => server?.close(resolve));
    [server, client] = [undefined, undefined];
  });

  it("leave in one write for all the PDUs sent in one turn of the event loop", async () => {
    const received: Buffer[] = [];
    server = createServer((socket) => socket.on("data", (chunk: Buffer) => received.push(chunk)));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const socket = new Socket();
    client = socket;
    socket.connect((server.address() as AddressInfo).port, "127.0.0.1");
    await once(socket, "connect");
    const session = new smpp.Session({ socket });

    const pdus = Array.from(
      { length: 20 },
      (_, i) => new smpp.PDU("submit_sm", { destination_addr: `91987654${String(i).padStart(4, "0")}` }),
    );
    for (const pdu of pdus) expect(sendInTurn(session, pdu)).toBe(true);
    const total = pdus.reduce((sum, pdu) => sum + pdu.toBuffer().length, 0);
    // Still held in the socket: nothing has gone to the kernel one PDU at a time.
    expect(socket.writableLength).toBe(total);

    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.writableLength).toBe(0);
    await vi.waitFor(() => expect(Buffer.concat(received).length).toBe(total));
    // The next turn corks afresh.
    expect(sendInTurn(session, new smpp.PDU("enquire_link", {}))).toBe(true);
    expect(socket.writableCorked).toBe(1);
  });
});
