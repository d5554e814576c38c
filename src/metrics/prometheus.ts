import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Channel, Db, Environment } from "../db/schema.js";
import { ENVIRONMENTS } from "../db/schema.js";
import type { ConflictOutcome, TransactionConflict } from "../db/transaction.js";
import type { CarrierBoard } from "../delivery/carrier-board.js";
import type { CarrierMeter, RouteState, SubmitOutcome } from "../delivery/carrier-meter.js";
import type { Clock } from "../lib/clock.js";
import type { Logger } from "../lib/logger.js";
import type { VerifyReason } from "../otp/types.js";
import { type Backlog, BacklogReader } from "./backlog.js";
import { HttpRequestMetrics } from "./http-requests.js";
import type {
  FinalStatus,
  Metrics,
  MetricsListenerConfig,
  OtpSendKind,
  WebhookAttemptOutcome,
} from "./metrics.js";
import { processMetrics } from "./process.js";

const CHANNELS: readonly Channel[] = ["sms", "whatsapp", "voice"];
const FINAL_STATUSES: readonly FinalStatus[] = ["delivered", "undelivered", "failed", "cancelled"];
const OTP_SEND_KINDS: readonly OtpSendKind[] = ["new", "resend", "reroute", "fallback"];
const VERIFY_REASONS: readonly VerifyReason[] = [
  "approved",
  "incorrect_code",
  "expired",
  "max_attempts_reached",
  "already_verified",
  "not_found",
];
const WEBHOOK_OUTCOMES: readonly WebhookAttemptOutcome[] = ["delivered", "retrying", "gave_up"];
const TRANSACTION_CONFLICTS: readonly TransactionConflict[] = ["deadlock", "serialization_failure"];
const CONFLICT_OUTCOMES: readonly ConflictOutcome[] = ["retried", "gave_up"];
const CIRCUIT_STATES: ReadonlyArray<RouteState["circuit"]> = ["closed", "open", "half_open"];

/** What the metrics read at scrape time: the queues in the database, this process's routes. */
export interface MetricsSource {
  db: Db;
  clock: Clock;
  log: Logger;
  carrierBoard: CarrierBoard;
}

/**
 * The Prometheus families of one context (docs/metrics.md). Counters count in process, where
 * the events happen, and never query; gauges of the queues and routes are read at scrape time.
 * No label names a message, a number, an account or a key.
 */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  /** Where `/metrics` listens when not on the main port. */
  readonly listener: MetricsListenerConfig | undefined;
  /** What carriers report submits and receipts to. */
  readonly carriers: CarrierMeter;

  readonly #http = new HttpRequestMetrics();
  readonly #accepted = new Counter({
    name: "dakiya_messages_accepted_total",
    help: "Messages accepted (charged and queued), by channel and environment.",
    labelNames: ["channel", "environment"] as const,
    registers: [this.registry],
  });
  readonly #finished = new Counter({
    name: "dakiya_messages_finished_total",
    help: "Messages that reached a final status (delivered, undelivered, failed), by channel and environment.",
    labelNames: ["channel", "environment", "status"] as const,
    registers: [this.registry],
  });
  readonly #submits = new Counter({
    name: "dakiya_carrier_submits_total",
    help: "Submits to a carrier route (submit_sm, a provider call), by route and outcome.",
    labelNames: ["route", "outcome"] as const,
    registers: [this.registry],
  });
  readonly #receiptLatency = new Histogram({
    name: "dakiya_delivery_receipt_seconds",
    help: "Time from a route accepting a message to its delivery receipt, by route.",
    labelNames: ["route"] as const,
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 21600],
    registers: [this.registry],
  });
  readonly #otpSends = new Counter({
    name: "dakiya_otp_sends_total",
    help: "OTP sends: a new OTP, a resend, the SMS again on another route (reroute, free), or a fallback on another channel.",
    labelNames: ["channel", "environment", "kind"] as const,
    registers: [this.registry],
  });
  readonly #otpRefusals = new Counter({
    name: "dakiya_otp_send_refusals_total",
    help: "OTP sends refused, by environment and error code (rate_limited, resend_cooldown, insufficient_balance, …).",
    labelNames: ["environment", "reason"] as const,
    registers: [this.registry],
  });
  readonly #otpVerifications = new Counter({
    name: "dakiya_otp_verifications_total",
    help: "OTP verifications, by environment and the reason answered (approved, incorrect_code, …).",
    labelNames: ["environment", "reason"] as const,
    registers: [this.registry],
  });
  readonly #webhookAttempts = new Counter({
    name: "dakiya_webhook_attempts_total",
    help: "Webhook attempts, by what came of the delivery: delivered, retrying (failed, tried again later) or gave_up.",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  readonly #transactionConflicts = new Counter({
    name: "dakiya_db_transaction_conflicts_total",
    help: "Transactions PostgreSQL aborted for a deadlock or a serialization conflict, by conflict and outcome: retried (run again) or gave_up (the error went up).",
    labelNames: ["conflict", "outcome"] as const,
    registers: [this.registry],
  });

  constructor(source: MetricsSource, listener?: MetricsListenerConfig) {
    this.listener = listener;
    this.carriers = {
      submit: (route: string, outcome: SubmitOutcome) => this.#submits.inc({ route, outcome }),
      receipt: (route: string, seconds: number) =>
        this.#receiptLatency.observe({ route }, Math.max(0, seconds)),
    };
    this.#startAtZero();
    // Started with the context, so the GC and event loop histograms count from the server's start.
    processMetrics();
    registerBacklogGauges(this.registry, new BacklogReader(source));
    registerRouteGauges(this.registry, source.carrierBoard);
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    this.#http.record(route, method, status, seconds);
  }

  messagesAccepted(channel: Channel, environment: Environment, count = 1): void {
    this.#accepted.inc({ channel, environment }, count);
  }

  messageFinished(channel: Channel, environment: Environment, status: FinalStatus): void {
    this.#finished.inc({ channel, environment, status });
  }

  otpSent(channel: Channel, environment: Environment, kind: OtpSendKind): void {
    this.#otpSends.inc({ channel, environment, kind });
  }

  otpSendRefused(environment: Environment, reason: string): void {
    this.#otpRefusals.inc({ environment, reason });
  }

  otpVerified(environment: Environment, reason: VerifyReason): void {
    this.#otpVerifications.inc({ environment, reason });
  }

  webhookAttempts(outcome: WebhookAttemptOutcome, count: number): void {
    this.#webhookAttempts.inc({ outcome }, count);
  }

  transactionConflict(conflict: TransactionConflict, outcome: ConflictOutcome): void {
    this.#transactionConflicts.inc({ conflict, outcome });
  }

  async render(): Promise<{ contentType: string; text: string }> {
    const [processText, ownText] = await Promise.all([processMetrics().metrics(), this.registry.metrics()]);
    return {
      contentType: this.registry.contentType,
      text: `${processText}\n${ownText}\n${this.#http.exposition()}`,
    };
  }

  /** Every known series at 0 from the start, so a rate over the first increment is right. */
  #startAtZero(): void {
    for (const channel of CHANNELS) {
      for (const environment of ENVIRONMENTS) {
        this.#accepted.inc({ channel, environment }, 0);
        for (const status of FINAL_STATUSES) this.#finished.inc({ channel, environment, status }, 0);
        for (const kind of OTP_SEND_KINDS) this.#otpSends.inc({ channel, environment, kind }, 0);
      }
    }
    for (const environment of ENVIRONMENTS) {
      for (const reason of VERIFY_REASONS) this.#otpVerifications.inc({ environment, reason }, 0);
    }
    for (const outcome of WEBHOOK_OUTCOMES) this.#webhookAttempts.inc({ outcome }, 0);
    for (const conflict of TRANSACTION_CONFLICTS) {
      for (const outcome of CONFLICT_OUTCOMES) this.#transactionConflicts.inc({ conflict, outcome }, 0);
    }
  }
}

function registerBacklogGauges(registry: Registry, backlog: BacklogReader): void {
  const byState = (
    name: string,
    help: string,
    read: (backlog: Backlog) => [due: number, waiting: number],
  ) => {
    const metric: Gauge<"state"> = new Gauge({
      name,
      help,
      labelNames: ["state"] as const,
      registers: [registry],
      collect: async () => {
        const [due, waiting] = read(await backlog.current());
        metric.set({ state: "due" }, due);
        metric.set({ state: "retry_wait" }, waiting);
      },
    });
  };
  const single = (name: string, help: string, read: (backlog: Backlog) => number) => {
    const metric: Gauge = new Gauge({
      name,
      help,
      registers: [registry],
      collect: async () => metric.set(read(await backlog.current())),
    });
  };
  byState(
    "dakiya_queue_messages",
    "Queued messages (global, from the database): state=due can be sent now, state=retry_wait waits for a retry time.",
    (b) => [b.messagesDue, b.messagesWaiting],
  );
  single(
    "dakiya_queue_oldest_age_seconds",
    "How long the queued message due the longest has waited since it fell due (its send, or its retry time); 0 when none is due.",
    (b) => b.oldestMessageDueSeconds,
  );
  byState(
    "dakiya_webhook_backlog",
    "Pending webhook deliveries (global, from the database): state=due can be posted now, state=retry_wait waits for a retry time.",
    (b) => [b.webhookDeliveriesDue, b.webhookDeliveriesWaiting],
  );
  single(
    "dakiya_webhook_oldest_age_seconds",
    "How long the webhook delivery due the longest has waited since it fell due; 0 when none is due.",
    (b) => b.oldestWebhookDueSeconds,
  );
  single(
    "dakiya_events_unrelayed",
    "Events not yet fanned out into webhook deliveries (global, from the database).",
    (b) => b.eventsUnrelayed,
  );
}

/** One series per route of this process's carriers, read from the carrier board at scrape time. */
function registerRouteGauges(registry: Registry, board: CarrierBoard): void {
  const perRoute = (name: string, help: string, value: (route: RouteState) => number) => {
    const metric: Gauge<"route"> = new Gauge({
      name,
      help,
      labelNames: ["route"] as const,
      registers: [registry],
      collect: () => {
        metric.reset();
        for (const route of board.routes()) metric.set({ route: route.name }, value(route));
      },
    });
  };
  perRoute("dakiya_route_bound", "1 while the route is bound to its SMSC, else 0.", (route) =>
    route.bound ? 1 : 0,
  );
  perRoute("dakiya_route_window", "Outstanding submits the route allows at once.", (route) => route.window);
  perRoute("dakiya_route_in_flight", "Submits awaiting the route's answer now.", (route) => route.inFlight);
  const circuit: Gauge<"route" | "state"> = new Gauge({
    name: "dakiya_route_circuit",
    help: "The route's circuit breaker: 1 for its current state (closed, open, half_open), 0 for the others.",
    labelNames: ["route", "state"] as const,
    registers: [registry],
    collect: () => {
      circuit.reset();
      for (const route of board.routes()) {
        for (const state of CIRCUIT_STATES)
          circuit.set({ route: route.name, state }, route.circuit === state ? 1 : 0);
      }
    },
  });
}
