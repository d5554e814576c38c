import type { ColumnType, Generated, Kysely, Transaction } from "kysely";
import type {
  AuditLogTable,
  DashboardSessionsTable,
  MembersTable,
  TwoFactorChallengesTable,
  TwoFactorRecoveryCodesTable,
} from "./console-schema.js";

export type Environment = "live" | "sandbox";
/** What an API key may call (API.md §8d); the rules are in src/keys/scopes.ts. */
export type KeyScope = "full" | "send" | "read";
export const ENVIRONMENTS: readonly Environment[] = ["live", "sandbox"];

/** Timestamps are RFC 3339 UTC strings with milliseconds, so they sort as text on both dialects. */
type Timestamp = string;

export interface AccountsTable {
  id: string;
  email: string;
  created_at: Timestamp;
  /** 1: a bank, NBFC, broker or insurer, whose voice OTPs may call only from a 1600-series number; 0 unless set. */
  bfsi: ColumnType<number, number | undefined, number>;
  /** The account's PE–TM chain, a JSON array of telemarketer ids, overriding its routes'; null: theirs. */
  tm_chain: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1: every member must sign in with a second factor (docs/two-factor.md); 0 unless an owner sets it. */
  require_two_factor: ColumnType<number, number | undefined, number>;
}

export interface BalancesTable {
  account_id: string;
  environment: Environment;
  /** 1/10,000 INR. */
  balance: number;
  updated_at: Timestamp;
  /** 1/10,000 INR: a charge that takes the balance below it sends `balance.low`; null: no alerts. */
  low_balance_threshold: number | null;
  /**
   * Whether the alert of the current dip below the threshold is spent (src/accounts/low-balance.ts):
   * null while armed, else the id of the `balance.low` event sent for it, or THRESHOLD_SET_BELOW.
   */
  low_balance_alerted: string | null;
}

export interface LedgerEntriesTable {
  id: string;
  account_id: string;
  environment: Environment;
  /** Signed 1/10,000 INR: credits positive, debits negative. */
  amount: number;
  balance_after: number;
  reason: string;
  reference: string | null;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  environment: Environment;
  label: string | null;
  prefix: string;
  secret_hash: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  /** Set when the key was rotated with a grace period: it stops working at this time. */
  expires_at: Timestamp | null;
  /** Requests a minute this key may make; null for the server's default (docs/rate-limits.md). */
  rate_limit: number | null;
  /** The secret's last 4 characters, to tell keys apart; null for keys made before they were kept. */
  last_four: string | null;
  /** What the key may call: `full`, `send` or `read` (src/keys/scopes.ts). */
  scope: KeyScope;
  /** A JSON array of canonical CIDRs the key may be used from; null for any address (src/keys/allowed-ips.ts). */
  allowed_ips: string | null;
}

/**
 * A key's token bucket (src/keys/rate-limit.ts): the instant it is full again, and the latest time
 * an instance brought to it, in µs since the epoch.
 */
export interface ApiKeyRateBucketsTable {
  key_id: string;
  full_at_us: number;
  seen_at_us: number;
}

/** The numbers an account has sent SMS to in the clock hour that began at `window_start`. */
export interface SmsRecipientHoursTable {
  window_start: Timestamp;
  account_id: string;
  environment: Environment;
  recipient: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  environment: Environment;
  key: string;
  request_fingerprint: string;
  /** Until then the first request holds the key; after it a crashed holder's claim may be taken over. */
  locked_until: Timestamp | null;
  response_status: number | null;
  response_body: string | null;
  created_at: Timestamp;
}

export type TemplateCategory = "transactional" | "service_implicit" | "service_explicit" | "promotional";
export const TEMPLATE_CATEGORIES: readonly TemplateCategory[] = [
  "transactional",
  "service_implicit",
  "service_explicit",
  "promotional",
];
export type TemplateStatus = "active" | "inactive";

export interface SendersTable {
  account_id: string;
  /** The DLT header: 6 capital letters, or 6 digits for promotional templates. */
  sender: string;
  created_at: Timestamp;
}

/** What a whitelisted call to action is: a URL prefix or a callback number (docs/dlt-compliance.md#whitelisted-links-and-numbers). */
export type CtaKind = "url" | "number";

export interface CtaEntriesTable {
  account_id: string;
  kind: CtaKind;
  /** Canonical: `https://dky.in/app/` (lower-case scheme and host, path as given) or `+9118001234567`. */
  value: string;
  created_at: Timestamp;
}

export interface TemplatesTable {
  id: string;
  account_id: string;
  /** DLT content template id: a numeric string, beyond JavaScript's safe integers. */
  template_id: string;
  /** DLT principal entity (PE) id. */
  entity_id: string;
  name: string;
  category: TemplateCategory;
  /** Content with named placeholders `{#name#}`. */
  content: string;
  /** JSON array of the placeholder names, in order of first appearance. */
  placeholders: string;
  /** JSON array of the senders the template may go out under. */
  senders: string;
  status: TemplateStatus;
  /** Why the template has more than 3 variables, as given on the DLT portal; null when none was given. */
  variables_justification: string | null;
  /** JSON array of the TRAI template rules it breaks, `{code, message}` (src/dlt/template-rules.ts). */
  warnings: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type Channel = "sms" | "whatsapp" | "voice";

/** How an SMS's text is packed: GSM 03.38 7-bit, or UCS-2 (src/dlt/encoding.ts). */
export type SmsEncoding = "gsm7" | "ucs2";
export type MessageStatus =
  | "scheduled"
  | "queued"
  | "submitted"
  | "delivered"
  | "undelivered"
  | "failed"
  | "cancelled";

export interface MessagesTable {
  id: string;
  account_id: string;
  environment: Environment;
  channel: Channel;
  recipient: string;
  sender: string | null;
  template_id: string | null;
  entity_id: string | null;
  reference: string | null;
  text: string;
  encoding: SmsEncoding;
  segments: number;
  /** What was debited, in 1/10,000 INR. */
  cost: number;
  status: MessageStatus;
  error_code: string | null;
  error_message: string | null;
  /** The carrier's own code for a refusal or non-delivery, for support (`receipt err:623 stat:REJECTD`). */
  carrier_error: string | null;
  /** The carrier that accepted (or last tried) the message. */
  carrier: string | null;
  /** The carrier route that accepted the message (SMS over SMPP); null for the others. */
  route: string | null;
  attempts: number;
  /** Queue: when a queued message may next be tried. */
  next_attempt_at: Timestamp | null;
  /** Queue: a worker's claim; once it passes, another worker may take the message. */
  lease_until: Timestamp | null;
  lease_owner: string | null;
  created_at: Timestamp;
  submitted_at: Timestamp | null;
  delivered_at: Timestamp | null;
  undelivered_at: Timestamp | null;
  failed_at: Timestamp | null;
  updated_at: Timestamp;
  /** An OTP message's real text and code, sealed with the server secret while it is queued. */
  sealed: string | null;
  /** Its lane in the queue: 0 OTP, 1 transactional, 2 bulk, 3 bulk held to the promotional window. */
  priority: number;
  /** What it carries (`otp` or its template's category); null for messages of before. */
  category: string | null;
  /** Unsent by then, it fails as `expired` and is refunded; null for messages of before. */
  expires_at: Timestamp | null;
  /** When the sender asked it to go out (or the promotional window's next opening). */
  send_at: Timestamp | null;
  cancelled_at: Timestamp | null;
}

/** `rejected`: the operator refused the part before delivery (a receipt's DLT scrub failure). */
export type PartStatus = "submitted" | "delivered" | "undelivered" | "rejected";

export interface CarrierMessagesTable {
  /** What receipts come back under: the carrier's name, or `smpp:<smsc>` for an SMPP route's account. */
  carrier: string;
  carrier_message_id: string;
  message_id: string;
  /** 1-based part number of a concatenated message. */
  part: number;
  status: PartStatus;
  error_code: string | null;
  updated_at: Timestamp;
}

export interface SandboxMessagesTable {
  id: string;
  account_id: string;
  message_id: string;
  channel: Channel;
  recipient: string;
  /** Exactly what would have been sent or spoken. */
  text: string;
  created_at: Timestamp;
}

export type OtpStatus = "pending" | "approved" | "expired" | "locked" | "cancelled";

export interface OtpSettingsTable {
  account_id: string;
  environment: Environment;
  expiry_seconds: number;
  max_attempts: number;
  resend_cooldown_seconds: number;
  fallback_after_seconds: number;
  code_length: number;
  sms_template_id: string | null;
  sms_sender: string | null;
  whatsapp_template: string | null;
  whatsapp_language: string;
  /** JSON object: E.164 number → its fixed code. */
  test_numbers: string;
  /** E.164 number voice OTPs call from; null: the operator's VOICE_FROM. */
  voice_caller_id: string | null;
  updated_at: Timestamp;
}

export interface OtpsTable {
  id: string;
  account_id: string;
  environment: Environment;
  recipient: string;
  /** HMAC-SHA-256 of the code under the server secret. */
  code_hash: string;
  /** The code sealed with the server secret while it may still be resent; cleared when the OTP ends. */
  code_sealed: string | null;
  status: OtpStatus;
  attempts: number;
  max_attempts: number;
  sends: number;
  channel: Channel;
  fallback_channel: Channel | null;
  /**
   * When the fallback channel, or a live SMS's second route, is tried unless the first send
   * reported delivery; null once settled.
   */
  fallback_due_at: Timestamp | null;
  /** 1 for a test number with a fixed code: nothing is delivered or charged. */
  is_test: number;
  expires_at: Timestamp;
  last_sent_at: Timestamp;
  approved_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OtpDeliveriesTable {
  otp_id: string;
  message_id: string;
  channel: Channel;
  is_fallback: number;
  /** Set on the same SMS sent again on another route: the message it repeats (free of charge). */
  rerouted_from: string | null;
  created_at: Timestamp;
}

/**
 * What a report counts of messages (docs/reports.md), by account, environment, India-time day of
 * creation, channel, template and sender ('' for none) and status: the daily totals, and the
 * deltas the database's triggers append until src/reports/fold.ts adds them to those totals.
 */
export interface MessageReportDaysTable {
  account_id: string;
  environment: Environment;
  /** YYYY-MM-DD, India time. */
  day: string;
  channel: Channel;
  template_id: string;
  sender: string;
  status: MessageStatus;
  messages: number;
  segments: number;
  /** 1/10,000 INR charged net of refunds. */
  cost: number;
}

export interface MessageReportDeltasTable extends MessageReportDaysTable {
  id: Generated<number>;
}

/**
 * What a report counts of OTPs (docs/reports.md), by the India day of creation, the channel first
 * sent on, and the whole seconds from creation to approval (-1: not approved).
 */
export interface OtpReportDaysTable {
  account_id: string;
  environment: Environment;
  day: string;
  channel: Channel;
  seconds_to_verify: number;
  otps: number;
}

export interface OtpReportDeltasTable extends OtpReportDaysTable {
  id: Generated<number>;
}

/** A fixed-window counter: how often `key` was hit in the window that began at `window_start`. */
export interface RateLimitCountersTable {
  key: string;
  window_start: Timestamp;
  count: number;
  expires_at: Timestamp;
}

export const EVENT_TYPES = [
  "sms.submitted",
  "sms.delivered",
  "sms.undelivered",
  "sms.failed",
  "sms.cancelled",
  "otp.sent",
  "otp.verified",
  "otp.failed",
  "balance.low",
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The event outbox (docs/events.md): written in the transaction of the change it reports. */
export interface EventsTable {
  /** `evt_…` */
  id: string;
  account_id: string;
  environment: Environment;
  type: EventType;
  /** JSON: the message or OTP object as the API shows it. */
  data: string;
  created_at: Timestamp;
  /** Feed order, first key: the writing transaction's id on PostgreSQL, 0 on SQLite (src/events/event-order.ts). */
  txid: number;
  /** Feed order, second key: 1, 2, … per account, environment and `txid`. */
  seq: number;
  /** When the webhook relay made this event's per-endpoint deliveries; null until then. */
  fanned_out_at: Timestamp | null;
}

export type WebhookEndpointStatus = "enabled" | "disabled";
/** Why an endpoint was disabled: by its owner, by a 410 answer, or after 5 days of failures. */
export type WebhookDisabledReason = "manual" | "gone" | "failing";

export interface WebhookEndpointsTable {
  /** `whk_…` */
  id: string;
  account_id: string;
  environment: Environment;
  url: string;
  /** JSON array of event types, or `["*"]` for all. */
  events: string;
  description: string | null;
  status: WebhookEndpointStatus;
  disabled_reason: WebhookDisabledReason | null;
  /** The signing secret (`whsec_…`), sealed with the server secret: it is shown again on request. */
  secret_sealed: string;
  /** After a rotation, the replaced secret keeps signing too until `previous_secret_expires_at`. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Timestamp | null;
  /** When the current run of failed attempts began; null after any success. */
  failing_since: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type WebhookDeliveryState = "pending" | "succeeded" | "failed";

/** One event to one endpoint: a queue entry that workers claim with a lease. */
export interface WebhookDeliveriesTable {
  /** `{endpoint_id}:{event_id}` */
  id: string;
  endpoint_id: string;
  event_id: string;
  state: WebhookDeliveryState;
  /** Attempts made so far; the next waits the retry schedule's entry for this count. */
  attempts: number;
  /** When a pending delivery is next due; null once it has ended. */
  next_attempt_at: Timestamp | null;
  lease_owner: string | null;
  lease_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** 1 for the first attempt of a delivery (a replay starts again at 1). */
  attempt: number;
  /** The answer's HTTP status; null when none came (refused, unreachable, timed out). */
  status_code: number | null;
  /** A short reason for a failure; null on success. Never the secret or the payload. */
  error: string | null;
  duration_ms: number;
  created_at: Timestamp;
}

export interface Database {
  accounts: AccountsTable;
  balances: BalancesTable;
  ledger_entries: LedgerEntriesTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  senders: SendersTable;
  templates: TemplatesTable;
  cta_entries: CtaEntriesTable;
  messages: MessagesTable;
  carrier_messages: CarrierMessagesTable;
  sandbox_messages: SandboxMessagesTable;
  otp_settings: OtpSettingsTable;
  otps: OtpsTable;
  otp_deliveries: OtpDeliveriesTable;
  members: MembersTable;
  dashboard_sessions: DashboardSessionsTable;
  two_factor_recovery_codes: TwoFactorRecoveryCodesTable;
  two_factor_challenges: TwoFactorChallengesTable;
  rate_limit_counters: RateLimitCountersTable;
  api_key_rate_buckets: ApiKeyRateBucketsTable;
  sms_recipient_hours: SmsRecipientHoursTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  audit_log: AuditLogTable;
  message_report_days: MessageReportDaysTable;
  message_report_deltas: MessageReportDeltasTable;
  otp_report_days: OtpReportDaysTable;
  otp_report_deltas: OtpReportDeltasTable;
}

export type Db = Kysely<Database>;
export type DbOrTrx = Kysely<Database> | Transaction<Database>;
export type Dialect = "sqlite" | "postgres";
