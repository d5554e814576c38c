import { sql } from "kysely";
import type { AppContext } from "../context.js";
import { prepareQuery } from "../db/prepared.js";
import { rowLimit } from "../db/row-limit.js";
import { QueueSignal } from "../delivery/queue-signal.js";
import { isoAfter, isoNow } from "../lib/clock.js";
import { unseal } from "../lib/sealing.js";
import { anotherEndpointWithDueDeliveries, claimDueWebhookDeliveries } from "./claims.js";
import { type ClaimedDelivery, endUnsent, loadDeliveries } from "./deliveries.js";
import { createWebhookHttpClient, type PostResult } from "./http-client.js";
import { createOutcomeWriter } from "./outcomes.js";
import { relayEvents } from "./relay.js";
import { MAX_IN_FLIGHT } from "./settings.js";
import { eventBody, WebhookSigner } from "./signing.js";

export interface DispatcherOptions {
  /** The worker's id: with a claim's number, the owner of the dispatcher's leases. */
  owner: string;
  /** How often an idle dispatcher looks for new events and due retries. */
  pollIntervalMs: number;
  /** Requests in flight at once, over all endpoints. */
  maxInFlight: number;
  /** Requests in flight at once to one endpoint, so a slow one holds at most this many. */
  maxInFlightPerEndpoint: number;
  /**
   * An endpoint busy with requests gets more only once this many have finished: one claim (a
   * ranked update and a join) per few requests, not per request, for a fast endpoint.
   */
  claimBatch: number;
  /** Events fanned out per relay transaction. */
  relayBatchSize: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: Omit<DispatcherOptions, "owner" | "maxInFlightPerEndpoint"> = {
  pollIntervalMs: 50,
  maxInFlight: MAX_IN_FLIGHT,
  claimBatch: 8,
  relayBatchSize: 200,
};

/** How long a dispatcher whose endpoints are all busy waits before looking for others' deliveries. */
const BUSY_RECHECK_MS = 250;

/** A due delivery that no one holds a lease on. */
const aDueDelivery = prepareQuery<{ now: string }, { id: string }>((db, param) =>
  db
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("state", "=", sql.lit("pending"))
    .where("next_attempt_at", "<=", param("now"))
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", param("now"))]))
    .limit(rowLimit(1)),
);

export interface RunningDispatcher {
  /** Stops claiming and waits for the requests in flight (each bounded by WEBHOOK_TIMEOUT_MS). */
  stop(): Promise<void>;
}

/**
 * The webhook dispatcher of a worker: relays new events into per-endpoint deliveries, then claims
 * due deliveries with a lease and posts them, many at once but never more than a few per
 * endpoint, so a slow or hanging endpoint only ever holds its own share. No transaction is open
 * while a request is: the claim commits first, the outcome is written after the answer.
 */
export function startWebhookDispatcher(
  ctx: AppContext,
  options: Partial<DispatcherOptions> & Pick<DispatcherOptions, "owner">,
): RunningDispatcher {
  const settings = {
    ...DEFAULT_DISPATCHER_OPTIONS,
    maxInFlightPerEndpoint: ctx.outboundWebhooks.concurrency,
    ...options,
  };
  const { timeoutMs } = ctx.outboundWebhooks;
  // Long enough for a request that runs to its timeout and the writing of its outcome.
  const leaseSeconds = Math.ceil((2 * timeoutMs) / 1000) + 5;
  const http = createWebhookHttpClient({
    timeoutMs,
    guard: () => ctx.outboundWebhooks,
    connectionsPerOrigin: settings.maxInFlight,
  });
  const signer = new WebhookSigner((sealed) => unseal(ctx.secret, sealed));
  const writeOutcome = createOutcomeWriter(ctx);
  let claims = 0;
  const inFlight = new Set<Promise<void>>();
  const perEndpoint = new Map<string, number>();
  const wake = new QueueSignal();
  let stopped = false;

  // An endpoint with more than this many requests in flight waits for some to finish.
  let nothingBesides = { key: "", until: 0 };
  const refillAt = Math.max(0, settings.maxInFlightPerEndpoint - settings.claimBatch);
  const release = (endpointId: string) => {
    const left = (perEndpoint.get(endpointId) ?? 1) - 1;
    if (left > 0) perEndpoint.set(endpointId, left);
    else perEndpoint.delete(endpointId);
    if (left <= refillAt) wake.notify();
  };

  /** Claims what there is room for and starts it; true when the claim came back full. */
  const claimAndSend = async (): Promise<boolean> => {
    const room = settings.maxInFlight - inFlight.size;
    if (room <= 0) return false;
    const full = [...perEndpoint].filter(([, n]) => n > refillAt).map(([id]) => id);
    // When the last look past the busy endpoints found nothing, look again only after a while (a
    // busy endpoint dropping to its refill line wakes us).
    const busyKey = full.join(",");
    if (full.length > 0 && busyKey === nothingBesides.key && Date.now() < nothingBesides.until) return false;
    const now = isoNow(ctx.clock);
    // Most polls find nothing due: a plain read keeps them from taking SQLite's write lock,
    // which the CLI and the other writers of the file need.
    const due =
      full.length === 0
        ? (await aDueDelivery.execute(ctx.db, { now })).rows[0]
        : await anotherEndpointWithDueDeliveries(ctx.db, now, full).executeTakeFirst();
    if (!due) {
      if (full.length > 0) nothingBesides = { key: busyKey, until: Date.now() + BUSY_RECHECK_MS };
      return false;
    }
    // Twice a claim batch of the oldest due deliveries: a busy endpoint refilled takes one batch,
    // which leaves as many for other endpoints' oldest. Each candidate is a row read, so ranking
    // more cost more than the requests it started; what is left out waits for the next claim,
    // which follows at once when this one comes back full. A power of two, so the claim's text
    // (the number is written into it) takes few forms.
    const candidates = 2 ** Math.floor(Math.log2(Math.min(room, settings.claimBatch * 2)));
    // Each claim leases under a name of its own, so an outcome moves only the lease it was posted
    // under (outcomes.ts), even after a replay gave the delivery to a later claim of this worker.
    const lease = `${settings.owner}/${++claims}`;
    const taken = await claimDueWebhookDeliveries(ctx.db, ctx.dialect, {
      owner: lease,
      now,
      leaseUntil: isoAfter(ctx.clock, leaseSeconds),
      candidates,
      perEndpoint: settings.maxInFlightPerEndpoint,
      inFlight: perEndpoint,
      skipEndpoints: full,
    });
    if (taken.length === 0) return false;
    const details = await loadDeliveries(
      ctx.db,
      taken.map((delivery) => delivery.id),
    );
    for (const delivery of taken) {
      perEndpoint.set(delivery.endpoint_id, (perEndpoint.get(delivery.endpoint_id) ?? 0) + 1);
      let released = false;
      const answered = () => {
        if (released) return;
        released = true;
        release(delivery.endpoint_id);
      };
      const detail = details.get(delivery.id);
      // No detail: the event or the endpoint was deleted since the claim, and the delivery with it.
      const work: Promise<void> = (detail ? send(detail, lease, answered) : Promise.resolve())
        .catch((error: unknown) => {
          // The lease runs out and the delivery is tried again.
          ctx.log.error(
            { err: error, webhook_id: delivery.endpoint_id, event_id: delivery.event_id },
            "webhook delivery failed",
          );
        })
        .finally(() => {
          inFlight.delete(work);
          answered();
        });
      inFlight.add(work);
    }
    return taken.length === candidates;
  };

  /**
   * Posts one delivery and writes its outcome. `answered` is called once the endpoint has
   * answered: its request is over, so another may start, while the outcome is still being written
   * (the delivery stays leased until then, so no one else takes it).
   */
  const send = async (detail: ClaimedDelivery, lease: string, answered: () => void): Promise<void> => {
    if (detail.status !== "enabled") {
      // Disabled after this delivery was made: it ends unsent, as the endpoint's others did.
      await endUnsent(ctx, detail.id, lease);
      return;
    }
    const now = ctx.clock.now();
    const secrets = [detail.secret_sealed];
    if (
      detail.previous_secret_sealed !== null &&
      detail.previous_secret_expires_at !== null &&
      Date.parse(detail.previous_secret_expires_at) > now.getTime()
    ) {
      secrets.push(detail.previous_secret_sealed);
    }
    const body = eventBody({ ...detail, id: detail.event_id });
    let headers: Record<string, string>;
    try {
      headers = signer.headers(detail.event_id, now, body, secrets);
    } catch {
      // Sealed under another server secret: the attempt fails (and is retried, then given up)
      // rather than looping on a lease that runs out.
      const error =
        "the signing secret cannot be unsealed: DAKIYA_SECRET changed; rotate the endpoint's secret";
      await writeOutcome({ delivery: detail, lease, result: { statusCode: null, error, durationMs: 0 } });
      return;
    }
    const result: PostResult = await http.post(detail.url, headers, body);
    answered();
    const attempt = {
      webhook_id: detail.endpoint_id,
      event_id: detail.event_id,
      attempt: detail.attempts + 1,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      error: result.error,
    };
    // A customer's endpoint failing is theirs to see (in the attempts), not a server fault: info.
    if (result.error === null) ctx.log.debug(attempt, "webhook attempt");
    else ctx.log.info(attempt, "webhook attempt failed");
    await writeOutcome({ delivery: detail, lease, result });
  };

  const loop = (async () => {
    while (!stopped) {
      const pollStartedAt = wake.version;
      let more = false;
      try {
        const relayed = await relayEvents(ctx, settings.relayBatchSize);
        more = relayed === settings.relayBatchSize;
      } catch (error) {
        ctx.log.error({ err: error, worker: settings.owner }, "relaying events to webhooks failed");
      }
      try {
        more = (await claimAndSend()) || more;
      } catch (error) {
        ctx.log.error({ err: error, worker: settings.owner }, "claiming webhook deliveries failed");
      }
      // A finished request makes room (it notifies `wake`); otherwise wait for the next poll.
      if (!more && !stopped) await wake.wait(settings.pollIntervalMs, pollStartedAt);
    }
    await Promise.all(inFlight);
  })();

  return {
    async stop() {
      stopped = true;
      wake.notify();
      await loop;
      await http.close();
    },
  };
}
