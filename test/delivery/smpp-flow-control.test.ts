import { once } from "node:events";
import { type AddressInfo, createServer, type Server, Socket } from "node:net";
import smpp from "smpp";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RateLimiter } from "../../src/delivery/carriers/flow-control.js";
import { sendInTurn } from "../../src/delivery/carriers/smpp-route.js";

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
