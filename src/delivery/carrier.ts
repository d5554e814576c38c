import type { Channel, Environment } from "../db/schema.js";
import type { SmsEncoding } from "../dlt/encoding.js";
import type { RouteState } from "./carrier-meter.js";

/** The OTP an OTP message carries, for carriers that send the code itself (WhatsApp, voice). */
export interface OtpDetails {
  code: string;
  expirySeconds: number;
  whatsappTemplate: string | null;
  whatsappLanguage: string;
}

/** What a carrier needs to deliver one message. */
export interface OutboundMessage {
  id: string;
  accountId: string;
  environment: Environment;
  channel: Channel;
  to: string;
  sender: string | null;
  templateId: string | null;
  entityId: string | null;
  text: string;
  encoding: SmsEncoding;
  segments: number;
  /** Set on OTP messages. */
  otp?: OtpDetails;
  /** Routes the message must not go out on (an OTP sent again on another route). */
  avoidRoutes?: string[];
}

/** A delivery report from the network for one accepted part. */
export interface Receipt {
  carrier: string;
  carrierMessageId: string;
  state: "delivered" | "undelivered";
  errorCode?: string;
  errorMessage?: string;
}

/** The route of a routed carrier that accepted a message. */
export interface AcceptingRoute {
  name: string;
  /**
   * The `Receipt.carrier` the message's receipts come back under: a routed carrier's ids are
   * unique per SMSC account only, so its parts are stored and matched per account.
   */
  receiptCarrier: string;
}

/** What the sandbox inbox shows of one sandbox delivery (API.md §7). */
export interface SandboxInboxEntry {
  id: string;
  accountId: string;
  channel: Channel;
  to: string;
  /** Exactly what would have been sent or spoken. */
  text: string;
}

export type SendResult =
  /**
   * The carrier took the message; one id per part. `receipts` are reports already known at
   * acceptance; `inbox` is the sandbox inbox entry the acceptance produces. Both are recorded in
   * the transaction that records the acceptance.
   */
  | {
      outcome: "accepted";
      carrierMessageIds: string[];
      receipts?: Receipt[];
      inbox?: SandboxInboxEntry;
      /** The route that took it, for carriers that send over routes (SMPP). */
      route?: AcceptingRoute;
    }
  /** Try again later (throttled, queue full, connection down). */
  | { outcome: "retryable"; errorCode: string; errorMessage: string; retryAfterSeconds?: number }
  /** Never going to be accepted: the message fails and its charge is refunded. */
  | { outcome: "permanent"; errorCode: string; errorMessage: string };

/**
 * One way out of Dakiya: the sandbox inbox, an SMSC over SMPP, the WhatsApp Cloud API, a voice
 * provider. Outcomes are data; a thrown error counts as retryable.
 */
export interface Carrier {
  readonly name: string;
  send(message: OutboundMessage): Promise<SendResult>;
  /** Connects ahead of the first send, to be ready and to hear receipts (worker processes call it). */
  start?(): void;
  /** What the carrier's connection looks like now, for /readyz. */
  status?(): Record<string, unknown>;
  /** Each SMSC route's connection, for carriers that send over routes (SMPP). */
  routes?(): RouteState[];
  close?(): Promise<void>;
}

/** The carriers of a process: sandbox traffic always goes to the sandbox; live traffic per channel, if configured. */
export interface Carriers {
  sandbox: Carrier;
  live: Partial<Record<Channel, Carrier>>;
}
