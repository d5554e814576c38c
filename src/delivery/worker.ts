import { accountTmChain } from "../accounts/update.js";
import type { AppContext } from "../context.js";
import { priorityLaneOf } from "../db/database.js";
import { isoAfter, isoNow } from "../lib/clock.js";
import { tryUnseal } from "../lib/sealing.js";
import { isInsideWindow, nextOpening } from "../messages/promotional-window.js";
import { priorityOfLane, type TrafficCategory, WINDOWED_LANE } from "../messages/traffic.js";
import type {
  CarriedPart,
  Carrier,
  Carriers,
  OtpDetails,
  OutboundMessage,
  PartRecorder,
  SendResult,
} from "./carrier.js";
import { type ClaimedMessage, claimDueMessages, LaneClaimer } from "./claims.js";
import { failMessage, scheduleRetry } from "./failures.js";
import { holdForWindow } from "./schedule.js";
import {
  type Acceptance,
  acceptancesInBursts,
  carriedPartsOf,
  type Lease,
  recordCarriedPart,
} from "./status.js";
import type { WorkerOptions } from "./worker-options.js";

const MAX_BACKOFF_SECONDS = 300;
const CLAIM_GATHER_MS = 1;

/**
 * Works the delivery queue as worker `id` until stopped, through `carriers`, which it owns from
 * then on: it starts them, shows them on /readyz while it runs and closes them when it stops.
 * Its `stop` finishes the messages in hand, then stops claiming. The worker's other loops start
 * beside it in src/worker.ts.
 */
export function startDeliveryLoop(
  ctx: AppContext,
  carriers: Carriers,
  id: string,
  settings: WorkerOptions,
): { stop(): Promise<void> } {
  // Claims and deliveries go before the requests waiting for the database: a burst of sends
  // must not hold up the delivery of what it queued.
  const delivery: AppContext = { ...ctx, db: priorityLaneOf(ctx.db) };
  let stopped = false;
  for (const carrier of Object.values(carriers.live)) carrier.start?.();
  const hideCarriers = ctx.carrierBoard.show(carriers.live);

  // Deliveries run as a pipeline of up to `batchSize`: as they finish, more are claimed, so the
  // carrier's window never waits for the slowest message of a batch.
  const inFlight = new Set<Promise<void>>();
  const accept = acceptancesInBursts(delivery);
  const refillAt = Math.max(1, Math.floor(settings.batchSize / 4));
  const claimer = new LaneClaimer((limit, lanes) =>
    claimDueMessages(delivery.db, ctx.dialect, {
      owner: id,
      now: isoNow(ctx.clock),
      leaseUntil: isoAfter(ctx.clock, settings.leaseSeconds),
      limit,
      lanes,
    }),
  );
  const claim = (limit: number) =>
    claimer.take(limit, isInsideWindow(ctx.promotionalWindow, ctx.clock.now()));

  const loop = (async () => {
    while (!stopped) {
      const room = settings.batchSize - inFlight.size;
      if (room < refillAt) {
        await Promise.race(inFlight);
        continue;
      }
      const queuedBefore = ctx.queue.version;
      let batch: ClaimedMessage[];
      try {
        batch = await claim(room);
      } catch (error) {
        ctx.log.error({ err: error, worker: id }, "claiming due messages failed");
        await ctx.queue.wait(settings.pollIntervalMs);
        continue;
      }
      for (const row of batch) {
        const delivered: Promise<void> = deliver(delivery, carriers, accept, row, id, settings)
          .catch((error: unknown) => {
            // The lease runs out and the message is tried again.
            ctx.log.error({ err: error, worker: id, message_id: row.id }, "delivery failed");
          })
          .finally(() => inFlight.delete(delivered));
        inFlight.add(delivered);
      }
      if (batch.length < room) {
        // The queue is empty for now. Finished deliveries do not fill it: wait for the next send
        // in this process, or the poll interval (retries falling due, other processes' sends).
        await ctx.queue.wait(settings.pollIntervalMs, queuedBefore);
        // Sends under load arrive a fraction of a millisecond apart: claim a burst at once
        // rather than one claim (an UPDATE over the queue index) per message.
        await new Promise((resolve) => setTimeout(resolve, CLAIM_GATHER_MS));
      }
    }
    await Promise.all(inFlight);
  })();

  return {
    async stop() {
      stopped = true;
      ctx.queue.notify();
      await loop;
      hideCarriers();
      await Promise.all(Object.values(carriers.live).map((carrier) => carrier.close?.()));
    },
  };
}

async function deliver(
  ctx: AppContext,
  carriers: Carriers,
  accept: (acceptance: Acceptance) => Promise<boolean>,
  row: ClaimedMessage,
  owner: string,
  settings: WorkerOptions,
): Promise<void> {
  const lease: Lease = { messageId: row.id, owner };
  const carrier = carrierFor(carriers, row);
  // Only live SMS goes out part by part (SMPP): a long one may have parts carried on earlier tries.
  const carriedParts =
    row.segments > 1 && row.environment === "live" ? await carriedPartsOf(ctx, row.id) : [];
  const tmChain =
    row.channel === "sms" && row.environment === "live"
      ? await accountTmChain(ctx, row.account_id)
      : undefined;
  const outbound = toOutbound(ctx, row, carriedParts, tmChain);
  if (!outbound) {
    // Sealed under another server secret (DAKIYA_SECRET changed while it was queued): it can
    // never be read, so it fails, refunded, rather than being tried again forever.
    ctx.log.error({ message_id: row.id }, "a queued OTP message cannot be unsealed: failed and refunded");
    await failMessage(
      ctx,
      row.id,
      {
        code: "otp_unreadable",
        message: "The passcode could not be read: the server secret changed after it was queued.",
      },
      owner,
    );
    return;
  }
  const now = ctx.clock.now();
  if (hasExpired(row, outbound, now.getTime())) {
    // Useless now (a passcode past its expiry only confuses): given up, refunded.
    await failMessage(ctx, row.id, EXPIRED, owner);
    return;
  }
  if (row.priority === WINDOWED_LANE && !isInsideWindow(ctx.promotionalWindow, now)) {
    // Claimed as the promotional window closed: it waits for the next opening.
    await holdForWindow(ctx, lease, nextOpening(ctx.promotionalWindow, now));
    return;
  }
  let recordedParts = carriedParts.length;
  const recordPart: PartRecorder = async (part, route) => {
    if (!carrier) return false;
    const kept = await recordCarriedPart(ctx, lease, carrier.name, part, route);
    if (kept) recordedParts += 1;
    else
      ctx.log.warn(
        { message_id: row.id, part: part.part },
        "part accepted by the carrier after its lease was lost",
      );
    return kept;
  };
  const result: SendResult = carrier
    ? await carrier.send(outbound, recordPart).catch((error: unknown) => {
        ctx.log.warn({ err: error, message_id: row.id, carrier: carrier.name }, "carrier send threw");
        return {
          outcome: "retryable",
          errorCode: "carrier_error",
          errorMessage: "The carrier could not be reached.",
        };
      })
    : {
        outcome: "retryable",
        errorCode: "channel_not_configured",
        errorMessage: `No live ${row.channel} carrier is configured.`,
      };

  if (result.outcome === "accepted") {
    if (!carrier) return;
    const { outcome: _, ...accepted } = result;
    const recorded = await accept({ message: row, owner, carrier: carrier.name, ...accepted, recordedParts });
    if (!recorded)
      ctx.log.warn({ message_id: row.id }, "message accepted by the carrier after its lease was lost");
    return;
  }
  const error = { code: result.errorCode, message: result.errorMessage };
  if (result.outcome === "permanent") {
    const carrierError = result.carrierError;
    await failMessage(ctx, row.id, carrierError ? { ...error, carrierError } : error, owner);
    return;
  }
  if (row.attempts + 1 >= settings.maxAttempts) {
    await failMessage(ctx, row.id, error, owner);
    return;
  }
  await scheduleRetry(ctx, lease, error, backoffSeconds(row.attempts, result.retryAfterSeconds));
}

const EXPIRED = { code: "expired", message: "The message expired before it could be sent." };

/** Past its `expires_at`; a queued OTP message of before expiry times, past its code's expiry. */
function hasExpired(row: ClaimedMessage, outbound: OutboundMessage, now: number): boolean {
  if (row.expires_at !== null) return Date.parse(row.expires_at) <= now;
  return outbound.otp !== undefined && Date.parse(row.created_at) + outbound.otp.expirySeconds * 1000 <= now;
}

function carrierFor(carriers: Carriers, row: ClaimedMessage): Carrier | undefined {
  return row.environment === "sandbox" ? carriers.sandbox : carriers.live[row.channel];
}

/** 1, 2, 4, … seconds up to 5 minutes, with ±20% jitter so retries of a burst spread out. */
export function backoffSeconds(attempts: number, atLeast = 0): number {
  const base = Math.min(2 ** attempts, MAX_BACKOFF_SECONDS);
  const jittered = base * (0.8 + Math.random() * 0.4);
  return Math.max(atLeast, Math.round(jittered * 1000) / 1000);
}

/** What the carrier gets; `undefined` when the message's sealed part cannot be opened. */
function toOutbound(
  ctx: AppContext,
  row: ClaimedMessage,
  carriedParts: CarriedPart[],
  tmChain: readonly string[] | undefined,
): OutboundMessage | undefined {
  // An OTP message's real text and code travel sealed; the stored text has the code masked.
  const opened = row.sealed ? tryUnseal(ctx.secret, row.sealed) : undefined;
  if (row.sealed && opened === undefined) return undefined;
  const sealed = opened === undefined ? undefined : (JSON.parse(opened) as SealedDelivery);
  return {
    id: row.id,
    accountId: row.account_id,
    environment: row.environment,
    channel: row.channel,
    to: row.recipient,
    sender: row.sender,
    templateId: row.template_id,
    entityId: row.entity_id,
    text: sealed?.text ?? row.text,
    encoding: row.encoding,
    segments: row.segments,
    priority: priorityOfLane(row.priority),
    category: row.category as TrafficCategory | null,
    expiresAt: row.expires_at,
    ...(tmChain ? { tmChain } : {}),
    ...(sealed ? { otp: sealed.otp } : {}),
    ...(sealed?.avoidRoutes ? { avoidRoutes: sealed.avoidRoutes } : {}),
    ...(carriedParts.length > 0 ? { carriedParts } : {}),
  };
}

/** What an OTP message carries sealed while it is queued (src/otp/deliveries.ts). */
interface SealedDelivery {
  text: string;
  otp: OtpDetails;
  /** An OTP sent again on another route: the routes it went out on before. */
  avoidRoutes?: string[];
}
