import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.js";
import type { AppContext } from "../../src/context.js";
import type { Carriers, OutboundMessage } from "../../src/delivery/carrier.js";
import type { CarrierMeter, SubmitOutcome } from "../../src/delivery/carrier-meter.js";
import { createSandboxCarrier } from "../../src/delivery/carriers/sandbox.js";
import { createSmppCarrier, type SmppCarrier } from "../../src/delivery/carriers/smpp.js";
import type { KeyPrincipal } from "../../src/keys/authenticate.js";
import type { Clock } from "../../src/lib/clock.js";
import { applyReceipt } from "../../src/receipts/receipts.js";
import { sendSms } from "../../src/sms/send.js";
import { type RunningWorker, startWorker } from "../../src/worker.js";
import { openTestContext } from "./context.js";
import { countQueued, waitFor } from "./delivery.js";
import { createLiveSender } from "./dlt-fixtures.js";
import { startTestSmsc, type TestSmsc, type TestSmscOptions } from "./smsc.js";

/* Several loopback SMSCs as SMPP_ROUTES routes, and a worker sending through them (test/routes-*.test.ts). */

export const ROUTE_TEMPLATE_ID = "1107161234567890123";
export const realClock: Clock = { now: () => new Date() };

/** A meter that keeps every report, to count what the carrier saw. */
export class RecordingMeter implements CarrierMeter {
  readonly submits: Array<{ route: string; outcome: SubmitOutcome }> = [];
  readonly receipts: Array<{ route: string; seconds: number }> = [];

  submit(route: string, outcome: SubmitOutcome): void {
    this.submits.push({ route, outcome });
  }

  receipt(route: string, seconds: number): void {
    this.receipts.push({ route, seconds });
  }

  count(route: string, outcome: SubmitOutcome): number {
    return this.submits.filter((s) => s.route === route && s.outcome === outcome).length;
  }
}

export interface RouteSpec {
  name: string;
  /** Fields of the route's entry in the file besides `name` and `url`. */
  fields?: Record<string, unknown>;
  smsc?: TestSmscOptions;
  /** Bind with this password instead of the SMSC's (a refused bind). */
  wrongPassword?: string;
}

/** Writes an SMPP_ROUTES file; `remove` deletes it. */
export function writeRoutesFile(routes: unknown): { path: string; remove: () => void } {
  const path = join(tmpdir(), `dakiya-routes-${randomBytes(6).toString("hex")}.json`);
  writeFileSync(path, typeof routes === "string" ? routes : JSON.stringify(routes));
  return { path, remove: () => rmSync(path, { force: true }) };
}

export interface RoutesRig {
  ctx: AppContext;
  smscs: Record<string, TestSmsc>;
  /** The SMS carrier of the running worker (a new one each time the worker starts). */
  readonly carrier: SmppCarrier;
  meter: RecordingMeter;
  accountId: string;
  principal: KeyPrincipal;
  /** Queues a live SMS to `to`. */
  send(to: string, code?: string): Promise<{ id: string }>;
  /** Messages sent so far, by id. */
  messageRows(
    ids: string[],
  ): Promise<Array<{ id: string; status: string; route: string | null; recipient: string }>>;
  drained(timeoutMs?: number): Promise<void>;
  startWorker(): void;
  /** Stops the worker once its OTP fallback sweep has finished; it closes the carrier. */
  stopWorker(): Promise<void>;
  /** Stops the worker, the context, the SMSCs and removes the file. */
  stop(): Promise<void>;
}

/**
 * A loopback SMSC per route, a routes file naming them, a context on `databaseUrl` configured
 * with it, an account with live credits and a template, and (unless `worker` is false) a worker
 * whose SMS carrier reports to a `RecordingMeter`.
 */
export async function startRoutesRig(
  databaseUrl: string,
  specs: RouteSpec[],
  options: {
    clock?: Clock;
    worker?: boolean;
    env?: Record<string, string>;
    /** Live carriers of other channels (they count as configured). */
    liveCarriers?: Omit<Carriers["live"], "sms">;
  } = {},
): Promise<RoutesRig> {
  const smscs: Record<string, TestSmsc> = {};
  for (const spec of specs) smscs[spec.name] = await startTestSmsc(spec.smsc);
  const file = writeRoutesFile(
    specs.map((spec) => ({
      name: spec.name,
      url: spec.wrongPassword
        ? `smpp://dakiya:${spec.wrongPassword}@127.0.0.1:${smscs[spec.name]?.port}`
        : smscs[spec.name]?.url,
      tps: 5_000,
      window: 20,
      ...spec.fields,
    })),
  );
  const env = { SMPP_ROUTES: file.path, ...options.env };
  const ctx = await openTestContext(databaseUrl, {
    clock: options.clock ?? realClock,
    env,
    liveCarriers: options.liveCarriers ?? {},
  });
  const routes = loadConfig({ SMPP_ROUTES: file.path }).smpp ?? [];
  const meter = new RecordingMeter();
  const newCarrier = () =>
    createSmppCarrier(routes, {
      log: ctx.log,
      onReceipt: (receipt) => applyReceipt(ctx, receipt),
      meter,
      clock: ctx.clock,
    });
  let carrier = newCarrier();
  const { accountId, principal } = await createLiveSender(ctx, [
    { templateId: ROUTE_TEMPLATE_ID, content: "Your code is {#code#}. -Dakiya" },
  ]);
  let worker: RunningWorker | undefined;
  const rig: RoutesRig = {
    ctx,
    smscs,
    get carrier() {
      return carrier;
    },
    meter,
    accountId,
    principal,
    send: (to, code = "1234") =>
      sendSms(ctx, principal, { to, sender: "DAKIYA", template_id: ROUTE_TEMPLATE_ID, variables: { code } }),
    messageRows: (ids) =>
      ids.length === 0
        ? Promise.resolve([])
        : ctx.db
            .selectFrom("messages")
            .select(["id", "status", "route", "recipient"])
            .where("id", "in", ids)
            .execute(),
    drained: (timeoutMs = 20_000) => waitFor(async () => (await countQueued(ctx)) === 0, timeoutMs),
    startWorker() {
      worker ??= startWorker(
        ctx,
        { sandbox: createSandboxCarrier(), live: { ...options.liveCarriers, sms: carrier } },
        { pollIntervalMs: 5, batchSize: 50 },
      );
    },
    async stopWorker() {
      await worker?.stop();
      worker = undefined;
      carrier = newCarrier();
    },
    async stop() {
      await worker?.stop();
      if (!worker) await carrier.close?.();
      await ctx.close();
      await Promise.all(Object.values(smscs).map((smsc) => smsc.stop()));
      file.remove();
    },
  };
  if (options.worker !== false) rig.startWorker();
  return rig;
}

/** `+9197` and 8 digits: a distinct valid mobile for each `n`. */
export function mobile(n: number): string {
  return `+9197${String(n).padStart(8, "0")}`;
}

/** The destination as an SMSC sees it (no plus). */
export function onWire(to: string): string {
  return to.replace(/^\+/, "");
}

/** A transactional SMS as the worker hands it to a carrier, for the carrier's own tests. */
export function outboundSms(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id: "msg_outbound",
    accountId: "acct_partnerA",
    environment: "live",
    channel: "sms",
    to: mobile(1),
    sender: "DAKIYA",
    templateId: ROUTE_TEMPLATE_ID,
    entityId: "1101456789012345678",
    text: "Your code is 1234. -Dakiya",
    encoding: "gsm7",
    segments: 1,
    priority: "transactional",
    category: "transactional",
    expiresAt: null,
    ...overrides,
  };
}
