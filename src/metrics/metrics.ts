import type { Channel, Environment } from "../db/schema.js";
import type { ConflictOutcome, TransactionConflict } from "../db/transaction.js";
import { type CarrierMeter, unmetered as unmeteredCarriers } from "../delivery/carrier-meter.js";
import type { VerifyReason } from "../otp/types.js";

export type FinalStatus = "delivered" | "undelivered" | "failed" | "cancelled";
/**
 * An OTP send: a new OTP, a resend of the pending one, its SMS again on another route (free),
 * or its fallback on another channel.
 */
export type OtpSendKind = "new" | "resend" | "reroute" | "fallback";
/** What one webhook attempt led to: the delivery done, tried again later, or given up. */
export type WebhookAttemptOutcome = "delivered" | "retrying" | "gave_up";

/** Where `/metrics` is served: a listener of its own (`METRICS_PORT`), else the main port. */
export interface MetricsListenerConfig {
  host: string;
  port: number;
}

/**
 * What the parts of Dakiya count, where it happens, in process: no call queries the database.
 * `prometheus.ts` implements it for the server and workers (docs/metrics.md); `unmeteredMetrics`
 * stands in for the operator's CLI, which serves no metrics.
 */
export interface Metrics {
  /** What carriers report submits and receipts to. */
  readonly carriers: CarrierMeter;
  /** Where `/metrics` listens when not on the main port. */
  readonly listener: MetricsListenerConfig | undefined;
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  messagesAccepted(channel: Channel, environment: Environment, count?: number): void;
  messageFinished(channel: Channel, environment: Environment, status: FinalStatus): void;
  otpSent(channel: Channel, environment: Environment, kind: OtpSendKind): void;
  otpSendRefused(environment: Environment, reason: string): void;
  otpVerified(environment: Environment, reason: VerifyReason): void;
  webhookAttempts(outcome: WebhookAttemptOutcome, count: number): void;
  /** A transaction PostgreSQL aborted for a deadlock or serialization conflict, run again or given up. */
  transactionConflict(conflict: TransactionConflict, outcome: ConflictOutcome): void;
  /** The Prometheus text exposition of this process and context. */
  render(): Promise<{ contentType: string; text: string }>;
}

export const unmeteredMetrics: Metrics = {
  carriers: unmeteredCarriers,
  listener: undefined,
  httpRequest() {},
  messagesAccepted() {},
  messageFinished() {},
  otpSent() {},
  otpSendRefused() {},
  otpVerified() {},
  webhookAttempts() {},
  transactionConflict() {},
  render: async () => ({ contentType: "text/plain; version=0.0.4; charset=utf-8", text: "" }),
};
