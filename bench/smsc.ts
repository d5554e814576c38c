// The benchmark's SMSC: the development SMSC of `dakiya dev-smsc` (src/dev-smsc/server.ts) on a
// free port of loopback, logging nothing. It binds anyone with the configured credentials,
// answers every submit_sm at once with a message id, answers enquire_link and unbind, and counts;
// it reads PDUs from their bytes, cheaper a submit than the `smpp` package's server, and nothing
// is recorded per message (the test SMSC in test/helpers/smsc.ts records every byte, which is too
// slow to stand in for a carrier here). `onSubmit` lets a scenario watch the destinations it
// cares about. With `receiptDelayMs` it also sends a DELIVRD delivery receipt (deliver_sm) for
// every accepted submit that long after it.

import smpp from "smpp";
import { type DevSmsc, startDevSmsc } from "../src/dev-smsc/server.js";

export type BenchSmsc = DevSmsc;

export interface BenchSmscOptions {
  systemId: string;
  password: string;
  /** Send a DELIVRD receipt this many ms after each accepted submit; no receipts when unset. */
  receiptDelayMs?: number;
  /** Leave Nagle's algorithm on (the default for a Node socket); off (TCP_NODELAY) otherwise. */
  nagle?: boolean;
  /** Told of every accepted submit_sm: its destination_addr and when it arrived (Date.now()). */
  onSubmit?: (destination: string, receivedAt: number) => void;
}

export function startBenchSmsc(options: BenchSmscOptions): Promise<BenchSmsc> {
  const { onSubmit } = options;
  return startDevSmsc({
    systemId: options.systemId,
    password: options.password,
    receiptDelayMs: options.receiptDelayMs,
    nagle: options.nagle,
    onEvent: onSubmit
      ? (event) => {
          if (event.type === "submit_sm" && event.status === smpp.errors.ESME_ROK) {
            onSubmit(event.submit.destinationAddr, event.at);
          }
        }
      : undefined,
  });
}
