import { TRAFFIC_CATEGORIES, type TrafficCategory } from "../../messages/traffic.js";
import type { OutboundMessage, UnroutedTraffic } from "../carrier.js";

/** What selection needs to know of a route. */
export interface Weighted {
  readonly name: string;
  readonly priority: number;
  readonly weight: number;
}

/**
 * The order in which a message tries routes: by priority, lowest first; within a priority, the
 * turn of smooth weighted round-robin (nginx's) first, then the others by weight. Over many
 * messages each route of a priority gets its weight's share of the first tries; a route the
 * caller leaves out (unbound, circuit open) takes no turn, so its share goes to the others.
 */
export class RouteOrder<R extends Weighted> {
  readonly #current = new Map<string, number>();
  readonly #tiers: R[][];

  constructor(routes: readonly R[]) {
    const byPriority = new Map<number, R[]>();
    for (const route of routes) {
      byPriority.set(route.priority, [...(byPriority.get(route.priority) ?? []), route]);
      this.#current.set(route.name, 0);
    }
    this.#tiers = [...byPriority.entries()].sort(([a], [b]) => a - b).map(([, tier]) => tier);
  }

  /** The routes of `eligible` in the order to try them; takes one turn of each priority's rotation. */
  next(eligible: (route: R) => boolean): R[] {
    const order: R[] = [];
    for (const tier of this.#tiers) {
      const candidates = tier.filter(eligible);
      const first = this.#turn(candidates);
      if (!first) continue;
      order.push(first, ...candidates.filter((r) => r !== first).sort((a, b) => b.weight - a.weight));
    }
    return order;
  }

  #turn(candidates: R[]): R | undefined {
    let best: R | undefined;
    let total = 0;
    for (const route of candidates) {
      const current = (this.#current.get(route.name) ?? 0) + route.weight;
      this.#current.set(route.name, current);
      total += route.weight;
      if (!best || current > (this.#current.get(best.name) ?? 0)) best = route;
    }
    if (best) this.#current.set(best.name, (this.#current.get(best.name) ?? 0) - total);
    return best;
  }
}

/**
 * What a route carries (docs/routes.md#routes-by-traffic): a message goes only to routes whose
 * every list holds it; a list left out (undefined) holds everything.
 */
export interface RouteTraffic {
  categories: ReadonlySet<TrafficCategory> | undefined;
  /** Account ids. */
  accounts: ReadonlySet<string> | undefined;
  /** Sender headers, upper case. */
  senders: ReadonlySet<string> | undefined;
}

export const ANY_TRAFFIC: RouteTraffic = { categories: undefined, accounts: undefined, senders: undefined };

/**
 * Whether a route of `traffic` may carry the message. A message of before categories (category
 * null) goes only to routes that list none; headers compare case-insensitively.
 */
export function carries(
  traffic: RouteTraffic,
  message: Pick<OutboundMessage, "category" | "accountId" | "sender">,
): boolean {
  const { categories, accounts, senders } = traffic;
  if (categories && (message.category === null || !categories.has(message.category))) return false;
  if (accounts && !accounts.has(message.accountId)) return false;
  if (senders && (message.sender === null || !senders.has(message.sender.toUpperCase()))) return false;
  return true;
}

/** The traffic no route of `routes` may carry: a message of it fails with `no_route`. */
export function unroutedTraffic(routes: ReadonlyArray<{ traffic: RouteTraffic }>): UnroutedTraffic {
  return {
    categories: TRAFFIC_CATEGORIES.filter((category) =>
      routes.every(({ traffic }) => traffic.categories !== undefined && !traffic.categories.has(category)),
    ),
    accountsListedOnly: routes.every(({ traffic }) => traffic.accounts !== undefined),
    sendersListedOnly: routes.every(({ traffic }) => traffic.senders !== undefined),
  };
}
