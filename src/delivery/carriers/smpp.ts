import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import { RecentMap } from "../../lib/recent-map.js";
import type { MessagePriority } from "../../messages/traffic.js";
import type {
  Carrier,
  OutboundMessage,
  PartRecorder,
  Receipt,
  SendResult,
  UnroutedTraffic,
} from "../carrier.js";
import { type CarrierMeter, type RouteState, unmetered } from "../carrier-meter.js";
import { REJECTION_MEANINGS, statusCarrierError, statusHex } from "./dlt-rejections.js";
import { carries, RouteOrder, unroutedTraffic } from "./route-selection.js";
import type { SmppRoute } from "./smpp-config.js";
import { isStandardStatus, type RouteAttempt, SmppRouteLink } from "./smpp-route.js";

export const SMPP_CARRIER = "smpp";

/** How long a send waits for a first bind of any route (a worker that just started). */
const BIND_WAIT_MS = 5_000;
/**
 * Acceptance times kept for the receipt latency metric, at most, shared equally by the routes;
 * older ones are forgotten first.
 */
const ACCEPTANCES_KEPT = 50_000;

export type SmppStatus = {
  bound: boolean;
  window: number;
  in_flight: number;
};

export interface SmppCarrier extends Carrier {
  /** All routes together: bound when any is, their windows and in-flight submits summed. */
  status(): SmppStatus;
  routes(): RouteState[];
  unrouted(): UnroutedTraffic;
}

export interface SmppCarrierDeps {
  log: Logger;
  onReceipt: (receipt: Receipt) => Promise<boolean>;
  meter?: CarrierMeter;
  /** What messages' `expiresAt` is measured against (the context's clock); the system's by default. */
  clock?: Clock;
}

/**
 * Live SMS over one or more SMSC routes (docs/routes.md). A message goes only to routes that
 * carry its traffic (category, account, sender), and fails with `no_route` when none is
 * configured to; among them, to the usable route of the lowest priority (weights share equal
 * priorities), where it waits for the window behind messages of higher priority only. It moves
 * to the next route when its route's window stays full past the route's wait, or the route
 * answers a temporary error or nothing at all. A permanent refusal fails it on the spot. It is on one route at a time, and
 * reaches a second only when the first never answered (which may then have sent it). The rest of
 * a long message whose first parts were carried goes only to routes of the same SMSC account.
 */
export function createSmppCarrier(routes: readonly SmppRoute[], deps: SmppCarrierDeps): SmppCarrier {
  const log = deps.log.child({ carrier: SMPP_CARRIER });
  const meter = deps.meter ?? unmetered;
  const clock = deps.clock;
  const now = clock ? () => clock.now().getTime() : Date.now;
  let bindWaiters: Array<() => void> = [];

  const links = routes.map(
    (route) =>
      new SmppRouteLink(
        route,
        {
          log,
          meter,
          onReceipt: (receipt) => storeReceipt(receipt),
          now,
          onBound: () => {
            const waiters = bindWaiters;
            bindWaiters = [];
            for (const wake of waiters) wake();
          },
        },
        SMPP_CARRIER,
      ),
  );
  const order = new RouteOrder(links.map((link) => ({ ...link.config, link })));
  const unrouted = unroutedTraffic(routes);
  if (unrouted.categories.length > 0 || unrouted.accountsListedOnly || unrouted.sendersListedOnly) {
    log.warn({ unrouted }, "some SMS traffic has no SMSC route: it fails with no_route");
  }
  // When each route's messages awaiting a receipt were accepted, by the SMSC's message id: plain
  // numbers under the SMSC's own id strings. Objects under joined keys took more memory and, as
  // the store turned over, left more garbage in V8's old generation.
  const keptPerRoute = Math.ceil(ACCEPTANCES_KEPT / Math.max(1, links.length));
  const acceptedAt = new Map(links.map((link) => [link, new RecentMap<string, number>(keptPerRoute)]));

  async function storeReceipt(receipt: Receipt): Promise<boolean> {
    const stored = await deps.onReceipt(receipt);
    if (stored) {
      for (const [link, times] of acceptedAt) {
        if (link.receiptCarrier !== receipt.carrier) continue;
        const at = times.take(receipt.carrierMessageId);
        // Acceptances from before this process started are not known here: no latency for them.
        if (at === undefined) continue;
        meter.receipt(link.name, Math.max(0, (Date.now() - at) / 1000));
        break;
      }
    }
    return stored;
  }

  function remember(link: SmppRouteLink, ids: string[]): void {
    const times = acceptedAt.get(link);
    const at = Date.now();
    for (const id of ids) times?.set(id, at);
  }

  function start(): void {
    for (const link of links) link.start();
  }

  async function waitForAnyBind(ms: number): Promise<void> {
    if (links.some((link) => link.bound)) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      bindWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * A route for the message, with a place in its window taken: the usable routes in selection
   * order, each for at most its window wait; then whichever bound route has room first.
   */
  async function takeRoute(
    skip: ReadonlySet<string>,
    priority: MessagePriority,
  ): Promise<SmppRouteLink | undefined> {
    for (const { link } of order.next(({ link }) => !skip.has(link.name) && link.usable())) {
      if (await link.acquire(priority)) {
        if (begin(link)) return link;
      }
    }
    const open = links.filter((link) => !skip.has(link.name) && link.bound && link.breaker.allows());
    if (open.length === 0) return undefined;
    const timeoutMs = Math.max(...open.map((l) => l.config.submitTimeoutMs));
    const link = await firstWithRoom(open, timeoutMs, priority);
    return link && begin(link) ? link : undefined;
  }

  /** The route goes ahead if it is still bound and its circuit still lets the message through. */
  function begin(link: SmppRouteLink): boolean {
    if (link.bound && link.breaker.allows()) {
      link.breaker.begin();
      return true;
    }
    link.release();
    return false;
  }

  async function firstWithRoom(candidates: SmppRouteLink[], timeoutMs: number, priority: MessagePriority) {
    const controller = new AbortController();
    const tries = candidates.map((link) =>
      link
        .acquire(priority, { timeoutMs, signal: controller.signal })
        .then((got) => (got ? link : undefined)),
    );
    const winner = await new Promise<SmppRouteLink | undefined>((resolve) => {
      let left = tries.length;
      for (const attempt of tries) {
        void attempt.then((link) => {
          left -= 1;
          if (link || left === 0) resolve(link);
        });
      }
    });
    controller.abort();
    // A place granted to another route in the same instant goes back.
    for (const attempt of tries) void attempt.then((link) => link && link !== winner && link.release());
    return winner;
  }

  return {
    name: SMPP_CARRIER,
    start,
    async send(message: OutboundMessage, recordPart?: PartRecorder): Promise<SendResult> {
      const avoided = new Set(message.avoidRoutes ?? []);
      const carrying = links.filter((link) => carries(link.config.traffic, message));
      // An OTP's copy for another route, when only the route it avoids carries its traffic, is
      // as unroutable as a message no route carries: no later try would find another.
      if (carrying.every((link) => avoided.has(link.name))) return noRoute(message);
      start();
      await waitForAnyBind(BIND_WAIT_MS);
      const skip = new Set(avoided);
      for (const link of links) if (!carrying.includes(link)) skip.add(link.name);
      // Parts carried before came back under their SMSC account's receipts: the rest joins them.
      const account = message.carriedParts?.[0]?.receiptCarrier;
      if (account !== undefined) {
        for (const link of links) if (link.receiptCarrier !== account) skip.add(link.name);
      }
      let last: SendResult | undefined;
      for (;;) {
        const link = await takeRoute(skip, message.priority);
        if (!link) break;
        skip.add(link.name);
        const attempt = await link.send(message, (part, route) => {
          remember(link, [part.carrierMessageId]);
          return recordPart ? recordPart(part, route) : Promise.resolve(true);
        });
        if (attempt.kind === "accepted") {
          // The parts before the last were remembered as they were recorded.
          remember(link, attempt.carrierMessageIds.slice(-1));
          return {
            outcome: "accepted",
            carrierMessageIds: attempt.carrierMessageIds,
            route: { name: link.name, receiptCarrier: link.receiptCarrier },
          };
        }
        if (attempt.kind === "refused") return refused(link, attempt);
        if (attempt.kind === "expired") return expired(attempt);
        if (attempt.kind === "abandoned") {
          return {
            outcome: "retryable",
            errorCode: "lease_lost",
            errorMessage: "The message was taken over by another delivery while it was being sent.",
          };
        }
        last = temporaryResult(attempt);
        // Parts already accepted stay where they went: the message goes back to the queue, and
        // its next try sends the parts not yet accepted.
        if (attempt.partial) return last;
        log.debug(
          { message_id: message.id, route: link.name, error: last.errorCode },
          "trying the next route",
        );
      }
      return last ?? unavailable(carrying);
    },
    status: () => ({
      bound: links.some((link) => link.bound),
      window: links.reduce((sum, link) => sum + link.config.window, 0),
      in_flight: links.reduce((sum, link) => sum + link.state().inFlight, 0),
    }),
    routes: () => links.map((link) => link.state()),
    unrouted: () => unrouted,
    async close() {
      await Promise.all(links.map((link) => link.close()));
    },
  };
}

/**
 * A permanent refusal: named by the route's table of operator rejections when it has the status
 * (docs/dlt-compliance.md); else a standard SMPP status by its name in lower case
 * (`esme_rinvdstadr`), a vendor's own as `carrier_rejected`. The status itself is kept for support.
 */
function refused(link: SmppRouteLink, attempt: Extract<RouteAttempt, { kind: "refused" }>): SendResult {
  const standard = isStandardStatus(attempt.code);
  const rejection = link.config.rejections.status(attempt.code);
  const what = attempt.parts > 1 ? `part ${attempt.part} of ${attempt.parts}` : "the message";
  const refusedWith = `The SMSC refused ${what}: ${standard ? attempt.status : statusHex(attempt.code)}.`;
  return {
    outcome: "permanent",
    errorCode: rejection ?? (standard ? attempt.status.toLowerCase() : "carrier_rejected"),
    errorMessage: rejection ? `${REJECTION_MEANINGS[rejection]} ${refusedWith}` : refusedWith,
    carrierError: statusCarrierError(attempt.code, standard ? attempt.status : undefined),
  };
}

function temporaryResult(attempt: Extract<RouteAttempt, { kind: "temporary" }>) {
  if (attempt.status === undefined) {
    return {
      outcome: "retryable",
      errorCode: "smsc_no_response",
      errorMessage: "The SMSC did not answer the submit.",
    } as const;
  }
  return {
    outcome: "retryable",
    errorCode: attempt.status.toLowerCase(),
    errorMessage: `The SMSC answered ${attempt.status}.`,
  } as const;
}

/** No configured route takes the message's traffic: no try would ever send it. */
function noRoute(message: OutboundMessage): SendResult {
  const traffic = [
    `category ${message.category ?? "unknown"}`,
    `account ${message.accountId}`,
    `sender ${message.sender ?? "none"}`,
  ].join(", ");
  return {
    outcome: "permanent",
    errorCode: "no_route",
    errorMessage: `No SMSC route carries this message's traffic (${traffic}).`,
  };
}

/**
 * The message expired before a part went out. Parts already carried stay carried: the message
 * then ends undelivered, charged for them, and the rest is refunded, as when an SMSC refuses a
 * later part for good.
 */
function expired(attempt: Extract<RouteAttempt, { kind: "expired" }>): SendResult {
  return {
    outcome: "permanent",
    errorCode: "expired",
    errorMessage: attempt.partial
      ? `The message expired before part ${attempt.part} of ${attempt.parts} could be submitted.`
      : "The message expired before it could be submitted.",
  };
}

function unavailable(links: SmppRouteLink[]): SendResult {
  const bound = links.some((link) => link.bound);
  return {
    outcome: "retryable",
    errorCode: "smsc_unavailable",
    errorMessage: bound ? "No SMSC route can take the message now." : "Not bound to the SMSC.",
    retryAfterSeconds: 2,
  };
}
