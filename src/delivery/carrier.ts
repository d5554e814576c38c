import type { Channel, Environment, SmsEncoding } from "../db/schema.js";
import type { MessagePriority, TrafficCategory } from "../messages/traffic.js";
import type { RouteState } from "./carrier-meter.js";

/** The OTP an OTP message carries, for carriers that send the code itself (WhatsApp, voice). */
export interface OtpDetails {
  code: string;
  expirySeconds: number;
  whatsappTemplate: string | null;
  whatsappLanguage: string;
  /** The number a voice OTP calls from, when the account set one; else the carrier's own (VOICE_FROM). */
  voiceCallerId?: string;
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
  /** Its lane: an OTP goes ahead of what waits for a route's window (docs/sms.md#priority). */
  priority: MessagePriority;
  /** What it carries, for routes that take only some traffic; null for messages of before. */
  category: TrafficCategory | null;
  /** When it stops being worth sending; SMPP passes the time left as `validity_period`. Null: never. */
  expiresAt: string | null;
  /** The account's own PE–TM chain (telemarketer ids after the PE), which overrides a route's. */
  tmChain?: readonly string[];
  /** Set on OTP messages. */
  otp?: OtpDetails;
  /** Routes the message must not go out on (an OTP sent again on another route). */
  avoidRoutes?: string[];
  /**
   * Parts of a long message the carrier accepted on earlier tries, from part 1 on: they went out
   * and are never sent again; the send goes on from the next part, on the same SMSC account.
   */
  carriedParts?: readonly CarriedPart[];
}

/** A part of a message that a carrier accepted. */
export interface CarriedPart {
  /** 1-based. */
  part: number;
  carrierMessageId: string;
  /** The `Receipt.carrier` its receipts come back under (`AcceptingRoute.receiptCarrier`). */
  receiptCarrier: string;
}

/**
 * What a carrier that sends a long message part by part (SMPP) reports while it sends: each part
 * the carrier accepted while later parts are still to go, recorded before the next part leaves.
 * `false` means the message is no longer this delivery's to send (its lease was lost): stop.
 */
export type PartRecorder = (part: CarriedPart, route: AcceptingRoute) => Promise<boolean>;

/**
 * A delivery report from the network for one accepted part. `rejected`: the operator refused it
 * before delivery (a DLT scrub failure, docs/dlt-compliance.md): the message fails, refunded.
 */
export interface Receipt {
  carrier: string;
  carrierMessageId: string;
  state: "delivered" | "undelivered" | "rejected";
  errorCode?: string;
  errorMessage?: string;
  /** The carrier's own words, kept for support (`receipt err:623 stat:REJECTD`). */
  carrierError?: string;
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

/** What the sandbox inbox shows of one sandbox delivery (docs/api-reference.md#sandbox). */
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
   * The carrier took the message (its last parts, when earlier ones were carried); one id per
   * part, from part 1, `carriedParts` included. `receipts` are reports already known at
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
  /**
   * Try again later (throttled, queue full, connection down). Parts accepted before it are
   * recorded (`PartRecorder`) and are not sent again.
   */
  | { outcome: "retryable"; errorCode: string; errorMessage: string; retryAfterSeconds?: number }
  /**
   * Never going to be accepted: the message fails and its charge is refunded, or, when earlier
   * parts were carried, it ends undelivered and the parts that never left are refunded.
   */
  | {
      outcome: "permanent";
      errorCode: string;
      errorMessage: string;
      /** The carrier's own code, kept on the message for support (`submit_sm_resp 0x0000045A`). */
      carrierError?: string;
    };

/**
 * One way out of Dakiya: the sandbox inbox, an SMSC over SMPP, the WhatsApp Cloud API, a voice
 * provider. Outcomes are data; a thrown error counts as retryable.
 */
export interface Carrier {
  readonly name: string;
  send(message: OutboundMessage, recordPart?: PartRecorder): Promise<SendResult>;
  /** Connects ahead of the first send, to be ready and to hear receipts (worker processes call it). */
  start?(): void;
  /** What the carrier's connection looks like now, for /readyz. */
  status?(): Record<string, unknown>;
  /** Each SMSC route's connection, for carriers that send over routes (SMPP). */
  routes?(): RouteState[];
  /** The traffic none of its routes may carry, for carriers that send over routes (SMPP). */
  unrouted?(): UnroutedTraffic;
  close?(): Promise<void>;
}

/** Traffic a routed carrier has no route for: its messages fail with `no_route` (docs/routes.md#readiness). */
export interface UnroutedTraffic {
  /** The categories no route carries. */
  categories: TrafficCategory[];
  /** Every route lists `accounts`: an account in none of the lists has no route. */
  accountsListedOnly: boolean;
  /** Every route lists `senders`: a header in none of the lists has no route. */
  sendersListedOnly: boolean;
}

/** The carriers of a process: sandbox traffic always goes to the sandbox; live traffic per channel, if configured. */
export interface Carriers {
  sandbox: Carrier;
  live: Partial<Record<Channel, Carrier>>;
}
