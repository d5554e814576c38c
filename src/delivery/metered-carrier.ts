import type { Carrier, SendResult } from "./carrier.js";
import type { CarrierMeter, SubmitOutcome } from "./carrier-meter.js";

/**
 * A carrier whose every send is reported to `meter` as a submit on a route named after the
 * carrier (`whatsapp`, `voice`): for carriers that are one provider API rather than SMSC routes,
 * which report their own.
 */
export function meteredCarrier(carrier: Carrier, meter: CarrierMeter): Carrier {
  return {
    name: carrier.name,
    ...(carrier.start ? { start: () => carrier.start?.() } : {}),
    ...(carrier.status ? { status: () => carrier.status?.() ?? {} } : {}),
    ...(carrier.routes ? { routes: () => carrier.routes?.() ?? [] } : {}),
    ...(carrier.close ? { close: () => carrier.close?.() ?? Promise.resolve() } : {}),
    async send(message) {
      try {
        const result = await carrier.send(message);
        meter.submit(carrier.name, submitOutcome(result));
        return result;
      } catch (error) {
        meter.submit(carrier.name, "temporary_error");
        throw error;
      }
    },
  };
}

/** A provider's 429, or an answer that says when to come back, is a throttle. */
function submitOutcome(result: SendResult): SubmitOutcome {
  if (result.outcome === "accepted") return "accepted";
  if (result.outcome === "permanent") return "permanent_error";
  const throttled = result.retryAfterSeconds !== undefined || /(^|_)(429|130429)$/.test(result.errorCode);
  return throttled ? "throttled" : "temporary_error";
}
