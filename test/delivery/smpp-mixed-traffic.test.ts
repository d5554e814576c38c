import { afterEach, describe, expect, it } from "vitest";
import type { CarriedPart, OutboundMessage } from "../../src/delivery/carrier.js";
import { createSmppCarrier, type SmppCarrier } from "../../src/delivery/carriers/smpp.js";
import { parseRoutesFile } from "../../src/delivery/carriers/smpp-config.js";
import { createLogger } from "../../src/lib/logger.js";
import { waitFor } from "../helpers/delivery.js";
import { mobile, onWire, outboundSms } from "../helpers/smpp-routes.js";
import { startTestSmsc, type TestSmsc, type TestSmscOptions } from "../helpers/smsc.js";

/*
 * Mixed traffic inside the SMPP carrier (docs/routes.md): OTPs ahead of bulk in a route's window,
 * and each submit_sm's priority_flag and validity_period, as a loopback SMSC receives them.
 */

const LONG_TEXT =
  "Dear customer, your order ORD-2026-000123456789 has been packed and handed to our courier partner. " +
  "It reaches you by Tuesday. Track it at any time in the Dakiya app or call us. Thank you. -Dakiya";

describe("mixed traffic over SMPP to a loopback SMSC", () => {
  let smsc: TestSmsc | undefined;
  let carrier: SmppCarrier | undefined;
  /** The carrier's clock: it stands still unless a test moves it. */
  let nowMs = Date.parse("2026-11-22T10:00:00.000Z");

  afterEach(async () => {
    await carrier?.close?.();
    await smsc?.stop();
    [carrier, smsc] = [undefined, undefined];
  });

  async function start(route: Record<string, unknown> = {}, smscOptions: TestSmscOptions = {}) {
    const server = await startTestSmsc(smscOptions);
    smsc = server;
    const routes = parseRoutesFile(
      JSON.stringify([{ name: "primary", url: server.url, tps: 5_000, ...route }]),
    );
    const current = createSmppCarrier(routes, {
      log: createLogger("silent"),
      onReceipt: async () => true,
      clock: { now: () => new Date(nowMs) },
    });
    carrier = current;
    current.start?.();
    await waitFor(async () => current.status().bound, 5_000);
    return { smsc: server, carrier: current };
  }

  const inSeconds = (seconds: number) => new Date(nowMs + seconds * 1000).toISOString();

  it("submits an OTP ahead of the bulk messages still waiting for a slow route's window", async () => {
    const { smsc, carrier } = await start({ tps: 20, window: 2, window_wait_ms: 60_000 });
    const bulk = Array.from({ length: 30 }, (_, i) =>
      carrier.send(
        outboundSms({ id: `msg_bulk${i}`, to: mobile(i), priority: "bulk", category: "promotional" }),
      ),
    );
    await smsc.waitFor(() => smsc.submits.length >= 4);
    const submittedBefore = smsc.submits.length;
    const otp = carrier.send(
      outboundSms({ id: "msg_otp", to: mobile(999), priority: "otp", category: "otp" }),
    );

    expect(await otp).toMatchObject({ outcome: "accepted" });
    const results = await Promise.all(bulk);
    expect(results.every((result) => result.outcome === "accepted")).toBe(true);
    const order = smsc.submits.map((submit) => submit.destination_addr);
    expect(order).toHaveLength(31);
    const otpAt = order.indexOf(onWire(mobile(999)));
    // Only the two submits holding the window's places when it came could go before it.
    expect(otpAt).toBeGreaterThanOrEqual(submittedBefore);
    expect(otpAt).toBeLessThanOrEqual(submittedBefore + 2);
    expect(order.length - otpAt - 1).toBeGreaterThanOrEqual(20);
    expect(smsc.submits[otpAt]?.priority_flag).toBe(1);
    expect(smsc.submits.filter((submit) => submit.priority_flag === 1)).toHaveLength(1);
  });

  it("sends priority_flag 1 for OTPs and the whole seconds left as a relative validity_period", async () => {
    const { smsc, carrier } = await start();
    const sends: Array<[Partial<OutboundMessage>, number, string]> = [
      [{ priority: "otp", category: "otp", expiresAt: inSeconds(600) }, 1, "000000001000000R"],
      [{ priority: "transactional", expiresAt: inSeconds(86_400.5) }, 0, "000001000000000R"],
      [{ priority: "bulk", category: "promotional", expiresAt: inSeconds(259_199) }, 0, "000002235959000R"],
      // Less than a second left still goes, with the least validity there is.
      [{ priority: "transactional", expiresAt: inSeconds(0.3) }, 0, "000000000001000R"],
      [{ priority: "bulk", expiresAt: null }, 0, ""],
    ];
    for (const [index, [fields]] of sends.entries()) {
      const result = await carrier.send(outboundSms({ id: `msg_${index}`, to: mobile(index), ...fields }));
      expect(result).toMatchObject({ outcome: "accepted" });
    }
    expect(
      smsc.submits.map((submit) => [submit.destination_addr, submit.priority_flag, submit.validity_period]),
    ).toEqual(sends.map(([, flag, validity], index) => [onWire(mobile(index)), flag, validity]));
  });

  it("submits nothing of a message whose time is up, and fails it for good as expired", async () => {
    const { smsc, carrier } = await start();
    for (const expiresAt of [inSeconds(0), inSeconds(-60)]) {
      expect(await carrier.send(outboundSms({ expiresAt }))).toEqual({
        outcome: "permanent",
        errorCode: "expired",
        errorMessage: "The message expired before it could be submitted.",
      });
    }
    expect(smsc.submits).toHaveLength(0);
    // The route is none the worse for it.
    expect(await carrier.send(outboundSms({ expiresAt: inSeconds(60) }))).toMatchObject({
      outcome: "accepted",
    });
    expect(carrier.routes()[0]?.circuit).toBe("closed");
  });

  it("gives each part of a long message the time left when that part goes out", async () => {
    const { smsc, carrier } = await start(
      {},
      {
        answer: () => {
          // Three seconds pass while each part is answered.
          nowMs += 3_000;
          return 0;
        },
      },
    );
    const result = await carrier.send(
      outboundSms({ text: LONG_TEXT, segments: 2, expiresAt: inSeconds(10) }),
    );
    expect(result).toMatchObject({ outcome: "accepted" });
    expect(smsc.submits.map((submit) => [submit.udh?.[5], submit.validity_period])).toEqual([
      [1, "000000000010000R"],
      [2, "000000000007000R"],
    ]);
  });

  it("stops a long message whose time runs out between parts, keeping the part carried", async () => {
    const { smsc, carrier } = await start(
      {},
      {
        answer: () => {
          nowMs += 6_000;
          return 0;
        },
      },
    );
    const recorded: CarriedPart[] = [];
    const result = await carrier.send(
      outboundSms({ text: LONG_TEXT, segments: 2, expiresAt: inSeconds(5) }),
      async (part) => {
        recorded.push(part);
        return true;
      },
    );
    expect(result).toEqual({
      outcome: "permanent",
      errorCode: "expired",
      errorMessage: "The message expired before part 2 of 2 could be submitted.",
    });
    expect(smsc.submits).toHaveLength(1);
    expect(recorded).toEqual([{ part: 1, carrierMessageId: "smsc-1", receiptCarrier: "smpp:primary" }]);
  });
});
