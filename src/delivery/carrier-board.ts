import type { Carriers, UnroutedTraffic } from "./carrier.js";
import type { RouteState } from "./carrier-meter.js";

/**
 * The live carriers the delivery workers of this process send through, as /readyz shows them.
 * A worker puts its carriers up while it runs; the board depends on no delivery code, so the
 * HTTP side reads it without importing the worker or the carriers.
 */
export class CarrierBoard {
  readonly #shown = new Set<Carriers["live"]>();

  /** Shows `live` until the returned function is called. */
  show(live: Carriers["live"]): () => void {
    this.#shown.add(live);
    return () => {
      this.#shown.delete(live);
    };
  }

  /** Each shown carrier's connection, under `channel:name`, e.g. `sms:smpp`. */
  statuses(): Record<string, Record<string, unknown>> {
    const statuses: Record<string, Record<string, unknown>> = {};
    for (const live of this.#shown) {
      for (const [channel, carrier] of Object.entries(live)) {
        if (carrier.status) statuses[`${channel}:${carrier.name}`] = carrier.status();
      }
    }
    return statuses;
  }

  /** Every shown carrier's routes (SMSC connections). */
  routes(): RouteState[] {
    const routes: RouteState[] = [];
    for (const live of this.#shown) {
      for (const carrier of Object.values(live)) routes.push(...(carrier.routes?.() ?? []));
    }
    return routes;
  }

  /**
   * The traffic no route of the shown routed carriers may carry, their reports merged (a
   * category is unrouted when none carries it); null when no shown carrier sends over routes.
   */
  unrouted(): UnroutedTraffic | null {
    const reports: UnroutedTraffic[] = [];
    for (const live of this.#shown) {
      for (const carrier of Object.values(live)) {
        const report = carrier.unrouted?.();
        if (report) reports.push(report);
      }
    }
    const [first, ...others] = reports;
    if (!first) return null;
    return {
      categories: first.categories.filter((category) => others.every((r) => r.categories.includes(category))),
      accountsListedOnly: reports.every((r) => r.accountsListedOnly),
      sendersListedOnly: reports.every((r) => r.sendersListedOnly),
    };
  }
}
