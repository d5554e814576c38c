/** Typed client for the dashboard API (`/dashboard/api/*`, see docs/dashboard-api.md). */
import type { TemplateWarning } from "../../src/dlt/template-rules";

export type Environment = "live" | "sandbox";
export const ENVIRONMENTS: readonly Environment[] = ["live", "sandbox"];

export type MessageStatus =
  | "scheduled"
  | "queued"
  | "submitted"
  | "delivered"
  | "undelivered"
  | "failed"
  | "cancelled";
export const MESSAGE_STATUSES: readonly MessageStatus[] = [
  "scheduled",
  "queued",
  "submitted",
  "delivered",
  "undelivered",
  "failed",
  "cancelled",
];

/** A message can be cancelled while it waits: the server refuses (409) once a delivery took it. */
export function isCancellable(message: Message): boolean {
  return message.status === "scheduled" || message.status === "queued";
}

/** The lane a message waits in: OTPs go first, bulk traffic last (docs/sms.md). */
export type MessagePriority = "otp" | "transactional" | "bulk";

export type Channel = "sms" | "whatsapp" | "voice";
export const CHANNELS: readonly Channel[] = ["sms", "whatsapp", "voice"];

export type TemplateCategory = "transactional" | "service_implicit" | "service_explicit" | "promotional";
export const TEMPLATE_CATEGORIES: readonly TemplateCategory[] = [
  "transactional",
  "service_implicit",
  "service_explicit",
  "promotional",
];

export type Role = "owner" | "admin" | "developer" | "finance" | "viewer";
export const ROLES: readonly Role[] = ["owner", "admin", "developer", "finance", "viewer"];

export interface SignedInMember {
  id: string;
  email: string;
  role: Role;
  /** Whether the member signs in with a second factor. */
  two_factor: boolean;
}

export interface SessionInfo {
  /** `require_two_factor`: every member must sign in with a second factor. */
  account: { id: string; require_two_factor: boolean };
  member: SignedInMember;
  /** The dashboard routes (`METHOD /dashboard/api/path`) the member's role may call. */
  allowed: string[];
  csrf_token: string;
}

/** A right password for a member with a second factor: no session yet, a challenge to answer with a code. */
export interface TwoFactorChallenge {
  two_factor_required: true;
  challenge: string;
}

/** The second step of signing in: a code from the authenticator app, or a recovery code. */
export type SecondFactor = { code: string } | { recovery_code: string };

export interface TwoFactorSetup {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}

export interface TeamMember {
  id: string;
  email: string;
  role: Role;
  status: "invited" | "active";
  created_at: string;
  last_sign_in_at: string | null;
}

export interface InvitedMember extends TeamMember {
  /** Shown once: the link where the invitee sets a password. */
  invite_url: string;
  invite_expires_at: string;
}

export interface Overview {
  balances: Record<Environment, string>;
  currency: "INR";
  messages: Message[];
}

/** What a message report's rows count (docs/reports.md). */
export type ReportGroup = "day" | "template" | "sender" | "status" | "channel";

/** A report's period: India-time days, YYYY-MM-DD, both included; the server's defaults when left out. */
export interface ReportPeriod {
  from?: string;
  to?: string;
}

export interface MessageReportRow {
  /** The day, template id, sender, status or channel; null for messages without a template or sender. */
  key: string | null;
  messages: number;
  segments: number;
  delivered: number;
  undelivered: number;
  failed: number;
  cancelled: number;
  /** INR charged net of refunds, like `"12.5000"`. */
  cost: string;
}

export interface MessageReport {
  from: string;
  to: string;
  group_by: ReportGroup;
  /** By day: every day of the period, oldest first, zeros included; else most messages first. */
  data: MessageReportRow[];
}

export interface OtpReportRow {
  channel: Channel;
  sent: number;
  verified: number;
  /** verified / sent, 0 to 1; null when none was sent. */
  conversion_rate: number | null;
  median_seconds_to_verify: number | null;
}

export interface OtpReport {
  from: string;
  to: string;
  data: OtpReportRow[];
}

export interface Balance {
  environment: Environment;
  balance: string;
  currency: "INR";
}

/** A balance and its low-balance alert (docs/money.md#low-balance-alerts). */
export interface LowBalance {
  environment: Environment;
  balance: string;
  /** Null: no alerts. */
  low_balance_threshold: string | null;
  below_threshold: boolean;
}

export interface ApiKey {
  id: string;
  environment: Environment;
  label: string | null;
  prefix: string;
  /** The secret's last 4 characters; null for keys made before they were kept. */
  last_four: string | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  /** What the key may call: everything, only sends and OTP verification, or only reads. */
  scope: KeyScope;
  /** Canonical CIDRs the key may be used from; null for any address. */
  allowed_ips: string[] | null;
}

export const KEY_SCOPES = ["full", "send", "read"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface NewApiKey {
  environment: Environment;
  label?: string;
  scope: KeyScope;
  allowed_ips?: string[];
}

export interface ApiKeyWithSecret extends ApiKey {
  secret: string;
}

export interface RotatedKeys {
  key: ApiKeyWithSecret;
  rotated: ApiKey | null;
}

export interface Message {
  id: string;
  status: MessageStatus;
  environment: Environment;
  channel: Channel;
  to: string;
  sender: string | null;
  template_id: string | null;
  reference: string | null;
  text: string;
  encoding: string;
  segments: number;
  cost: string;
  currency: "INR";
  error_code: string | null;
  error_message: string | null;
  /** The carrier's own code for a refusal or non-delivery (`receipt err:623 stat:REJECTD`), for support. */
  carrier_error: string | null;
  carrier_message_ids: string[];
  route: string | null;
  priority: MessagePriority;
  /** When the message stops being worth sending; unsent by then, it fails and is refunded. */
  expires_at: string | null;
  /** When a scheduled message joins the queue (asked for, or the promotional window's opening). */
  send_at: string | null;
  created_at: string;
  submitted_at: string | null;
  delivered_at: string | null;
  undelivered_at: string | null;
  failed_at: string | null;
  cancelled_at: string | null;
  /**
   * The charge given back: all of it when the message failed or was cancelled, the parts never
   * sent of a long message only partly sent; `null` for a message that was not refunded.
   */
  refund: Refund | null;
}

export interface Refund {
  amount: string;
  refunded_at: string;
}

export interface MessageDetail extends Message {
  history: Array<{ status: MessageStatus; at: string }>;
  attempts: number;
}

/** A message in the list: with the name the account gave its template (null without one). */
export interface ListedMessage extends Message {
  template_name: string | null;
}

export interface MessagePage {
  data: ListedMessage[];
  has_more: boolean;
}

/** The most messages one CSV download of the Messages page holds (the server's cap). */
export const MESSAGES_CSV_LIMIT = 100_000;

export interface MessageFilters {
  status?: MessageStatus | undefined;
  channel?: Channel | undefined;
  to?: string | undefined;
  /** Days of India time, YYYY-MM-DD, both included (`to` being the number, the range ends at `until`). */
  from?: string | undefined;
  until?: string | undefined;
  before?: string | undefined;
  limit?: number | undefined;
}

/** A credit, charge or refund of one environment's balance; amounts are signed INR strings. */
export interface LedgerEntry {
  id: string;
  amount: string;
  balance_after: string;
  reason: string;
  reference: string | null;
  /** The message a charge or refund was for; null for other entries. */
  message_id: string | null;
  created_at: string;
}

export interface LedgerPage {
  data: LedgerEntry[];
  has_more: boolean;
}

/** Days of India time, YYYY-MM-DD, both included. */
export interface DateRange {
  from?: string | undefined;
  to?: string | undefined;
}

/** A value a before/after snapshot of the audit log holds. */
export type AuditValue = string | number | boolean | null | string[];

/** One change of the audit log (docs/audit.md). */
export interface AuditEntry {
  id: string;
  created_at: string;
  actor: { type: "member" | "key" | "cli"; id: string | null; label: string | null };
  action: string;
  target: { type: string; id: string | null };
  environment: Environment | null;
  client_address: string | null;
  before: Record<string, AuditValue> | null;
  after: Record<string, AuditValue> | null;
}

export interface AuditFilters {
  action?: string | undefined;
  actor?: string | undefined;
  target?: string | undefined;
  /** RFC 3339, included. */
  created_after?: string | undefined;
  /** RFC 3339, excluded. */
  created_before?: string | undefined;
  starting_after?: string | undefined;
  limit?: number | undefined;
}

export interface SandboxDelivery {
  id: string;
  message_id: string;
  channel: Channel;
  to: string;
  text: string;
  /** The passcode, when the message is an OTP's delivery; null for any other message. */
  otp_code: string | null;
  created_at: string;
}

export interface Sender {
  sender: string;
  created_at: string;
}

/** A whitelisted call to action: a URL prefix or a callback number, in canonical form. */
export type CtaKind = "url" | "number";

export interface CtaEntry {
  kind: CtaKind;
  value: string;
  created_at: string;
}

export type TemplateStatus = "active" | "inactive";

export interface Template {
  id: string;
  template_id: string;
  entity_id: string;
  name: string;
  category: TemplateCategory;
  content: string;
  placeholders: string[];
  senders: string[];
  status: TemplateStatus;
  /** Why the template has more than 3 variables, as given on the DLT portal; null when none. */
  variables_justification: string | null;
  /** TRAI's template rules it breaks, each with the reason and the fix; empty when none. */
  warnings: TemplateWarning[];
  created_at: string;
  updated_at: string;
}

/** The account's PE–TM chain and the hash each of its principal entities' messages carry. */
export interface TmChain {
  /** Telemarketer ids after the PE, in order; null: the operator's routes' chain. */
  tm_chain: string[] | null;
  entities: Array<{ entity_id: string; hash: string | null }>;
}
export type { TemplateWarning };

export interface NewTemplate {
  template_id: string;
  entity_id: string;
  name: string;
  category: TemplateCategory;
  senders: string[];
  content: string;
  variables_justification: string;
}

/** What an edit of a template may change (its template id stays); only the fields given change. */
export interface TemplateChange {
  name?: string;
  entity_id?: string;
  category?: TemplateCategory;
  senders?: string[];
  content?: string;
  /** An empty string clears it. */
  variables_justification?: string;
}

export interface OtpSettings {
  expiry_seconds: number;
  max_attempts: number;
  resend_cooldown_seconds: number;
  fallback_after_seconds: number;
  length: number;
  sms_template_id: string | null;
  sms_sender: string | null;
  whatsapp_template: string | null;
  whatsapp_language: string;
  test_numbers: Record<string, string>;
  /** The number voice OTPs call from; null: the server's default. */
  voice_caller_id: string | null;
}

/** The settings as the console reads them, with what it shows beside them (read-only). */
export interface OtpSettingsView extends OtpSettings {
  /** A bank, NBFC, broker or insurer (set by the operator): voice calls only from 1600-series numbers. */
  bfsi: boolean;
  /** The server's caller ID (VOICE_FROM), used when `voice_caller_id` is null. */
  default_voice_caller_id: string | null;
  /** Why voice OTPs would be refused as things stand, or null. */
  voice_refusal: string | null;
}

/** The events an endpoint can subscribe to (`webhook.test` goes only to the endpoint tested). */
export const WEBHOOK_EVENT_TYPES = [
  "sms.submitted",
  "sms.delivered",
  "sms.undelivered",
  "sms.failed",
  "sms.cancelled",
  "otp.sent",
  "otp.verified",
  "otp.failed",
  "balance.low",
  "campaign.completed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Subscribes an endpoint to every event, including types added later. */
export const ALL_WEBHOOK_EVENTS = "*";

export type WebhookStatus = "enabled" | "disabled";

/** Why a disabled endpoint is disabled: by hand, it answered 410 Gone, or 5 days of failures. */
export type WebhookDisabledReason = "manual" | "gone" | "failing";

export interface WebhookEndpoint {
  id: string;
  environment: Environment;
  url: string;
  events: string[];
  description: string | null;
  status: WebhookStatus;
  disabled_reason: WebhookDisabledReason | null;
  /** Since when every attempt has failed; null while the endpoint answers. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  secret: string;
}

export interface NewWebhookEndpoint {
  url: string;
  events: string[];
  description?: string | undefined;
}

export interface WebhookEndpointChange {
  url?: string;
  events?: string[];
  description?: string;
  status?: WebhookStatus;
}

export interface WebhookAttempt {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  /** `null` when no answer came (refused connection, timeout, blocked address). */
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: string;
}

export type CampaignStatus = "scheduled" | "sending" | "completed" | "cancelled";

/** Whether a campaign may still be cancelled: the server refuses (409) once it has ended. */
export function isCampaignRunning(campaign: Campaign): boolean {
  return campaign.status === "scheduled" || campaign.status === "sending";
}

/** One recipient of a campaign: a number, a value for each placeholder, and an optional id of yours. */
export interface CampaignRecipient {
  to: string;
  variables?: Record<string, string>;
  reference?: string;
}

export interface NewCampaign {
  name: string;
  template_id: string;
  sender: string;
  /** RFC 3339; the campaign starts then (up to 30 days ahead). */
  send_at?: string;
  messages_per_minute?: number;
  recipients: CampaignRecipient[];
}

/** Accepted recipients by where they are: pending (not yet in the queue), or their message's status. */
export type CampaignCounts = Record<"pending" | MessageStatus, number>;

export interface Campaign {
  id: string;
  name: string;
  status: CampaignStatus;
  environment: Environment;
  template_id: string;
  sender: string;
  send_at: string | null;
  messages_per_minute: number | null;
  /** Rows the request had. */
  recipients: number;
  accepted: number;
  rejected: number;
  counts: CampaignCounts;
  /** Share handed to a carrier or ended, 0 to 1. */
  progress: number;
  cost: string;
  refunded: string;
  currency: "INR";
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
}

/** A recipient the server refused: its place in the request (from 0), its number, and why. */
export interface RecipientError {
  index: number;
  to: string;
  error: { code: string; message: string; param?: string };
}

/** What a campaign would accept and charge, without sending it. */
export interface CampaignPreview {
  recipients: number;
  accepted: number;
  rejected: number;
  cost: string;
  balance: string;
  currency: "INR";
  /** The first 1,000 refused recipients, in request order. */
  errors: RecipientError[];
}

export interface CreatedCampaign extends Campaign {
  errors: RecipientError[];
}

/** An error answered by the server in its envelope, or a network failure made to look like one. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | undefined;
  /** Seconds from `Retry-After`, when the server sent it. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, code: string, message: string, param?: string, retryAfterSeconds?: number) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.param = param;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

const BASE = "/dashboard/api";

let csrfToken: string | undefined;
let onSignedOut: (() => void) | undefined;
let onTwoFactorRequired: (() => void) | undefined;

/** The token every changing request sends back; it comes with each session response. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when the server holds the member to setting up two-factor sign-in first. */
export function setTwoFactorRequiredHandler(handler: (() => void) | undefined): void {
  onTwoFactorRequired = handler;
}

/** Called when the server says the session is gone, so the app can return to sign-in. */
export function setSignedOutHandler(handler: (() => void) | undefined): void {
  onSignedOut = handler;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Query = Record<string, string | number | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal | undefined;
}

async function request<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["X-CSRF-Token"] = csrfToken;

  let response: Response;
  try {
    response = await fetch(BASE + path + queryString(options.query), {
      method,
      headers,
      credentials: "same-origin",
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(
      0,
      "network_error",
      "Could not reach the server. Check your connection and try again.",
    );
  }

  if (response.status === 204) return undefined as T;
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) return body as T;

  const error = toApiError(response, body);
  if (error.status === 401 && error.code === "not_signed_in") onSignedOut?.();
  if (error.code === "two_factor_required") onTwoFactorRequired?.();
  throw error;
}

function queryString(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function toApiError(response: Response, body: unknown): ApiError {
  const retryAfter = Number(response.headers.get("Retry-After"));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  const envelope = (body as { error?: { code?: unknown; message?: unknown; param?: unknown } } | undefined)
    ?.error;
  if (envelope && typeof envelope.code === "string" && typeof envelope.message === "string") {
    const param = typeof envelope.param === "string" ? envelope.param : undefined;
    return new ApiError(response.status, envelope.code, envelope.message, param, retryAfterSeconds);
  }
  return new ApiError(
    response.status,
    "unexpected_response",
    `The server answered ${response.status} ${response.statusText}.`.replace(/ \.$/, "."),
    undefined,
    retryAfterSeconds,
  );
}

function webhookPath(id: string, action?: string): string {
  return `/webhooks/${encodeURIComponent(id)}${action ? `/${action}` : ""}`;
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

export const api = {
  getSetup: (signal?: AbortSignal) => request<{ needed: boolean }>("GET", "/setup", { signal }),
  setUp: (email: string, password: string) =>
    request<SessionInfo>("POST", "/setup", { body: { email, password } }),

  getSession: (signal?: AbortSignal) => request<SessionInfo>("GET", "/session", { signal }),
  signIn: (email: string, password: string) =>
    request<SessionInfo | TwoFactorChallenge>("POST", "/session", { body: { email, password } }),
  answerChallenge: (challenge: string, factor: SecondFactor) =>
    request<SessionInfo>("POST", "/session/two-factor", { body: { challenge, ...factor } }),
  signOut: () => request<void>("DELETE", "/session"),
  acceptInvite: (token: string, password: string) =>
    request<SessionInfo | TwoFactorChallenge>("POST", "/invites/accept", { body: { token, password } }),
  setUpTwoFactor: () => request<TwoFactorSetup>("POST", "/two-factor/setup"),
  enableTwoFactor: (code: string) =>
    request<{ recovery_codes: string[] }>("POST", "/two-factor/enable", { body: { code } }),
  disableTwoFactor: (password: string) =>
    request<void>("POST", "/two-factor/disable", { body: { password } }),
  newRecoveryCodes: (password: string) =>
    request<{ recovery_codes: string[] }>("POST", "/two-factor/recovery-codes", { body: { password } }),
  requireTwoFactor: (required: boolean) =>
    request<{ require_two_factor: boolean }>("PATCH", "/two-factor/policy", { body: { required } }),
  listMembers: (signal?: AbortSignal) => request<{ data: TeamMember[] }>("GET", "/members", { signal }),
  inviteMember: (email: string, role: Role) =>
    request<InvitedMember>("POST", "/members", { body: { email, role } }),
  changeMemberRole: (id: string, role: Role) =>
    request<TeamMember>("PATCH", `/members/${encodeURIComponent(id)}`, { body: { role } }),
  removeMember: (id: string) => request<void>("DELETE", `/members/${encodeURIComponent(id)}`),

  overview: (environment: Environment, signal?: AbortSignal) =>
    request<Overview>("GET", "/overview", { query: { environment }, signal }),
  reportMessages: (
    environment: Environment,
    params: ReportPeriod & { group_by?: ReportGroup },
    signal?: AbortSignal,
  ) => request<MessageReport>("GET", "/reports/messages", { query: { environment, ...params }, signal }),
  reportOtp: (environment: Environment, params: ReportPeriod, signal?: AbortSignal) =>
    request<OtpReport>("GET", "/reports/otp", { query: { environment, ...params }, signal }),
  addSandboxCredits: (amount: string) => request<Balance>("POST", "/sandbox/credits", { body: { amount } }),
  billing: (environment: Environment, signal?: AbortSignal) =>
    request<LowBalance>("GET", "/billing", { query: { environment }, signal }),
  setLowBalanceThreshold: (environment: Environment, threshold: string | null) =>
    request<LowBalance>("PATCH", "/billing", {
      query: { environment },
      body: { low_balance_threshold: threshold },
    }),

  listKeys: (environment: Environment, signal?: AbortSignal) =>
    request<{ data: ApiKey[] }>("GET", "/keys", { query: { environment }, signal }),
  createKey: (key: NewApiKey) => request<ApiKeyWithSecret>("POST", "/keys", { body: key }),
  rotateKey: (id: string, graceSeconds: number) =>
    request<RotatedKeys>("POST", `/keys/${encodeURIComponent(id)}/rotate`, {
      body: { grace_seconds: graceSeconds },
    }),
  deleteKey: (id: string) => request<void>("DELETE", `/keys/${encodeURIComponent(id)}`),

  listMessages: (environment: Environment, filters: MessageFilters, signal?: AbortSignal) =>
    request<MessagePage>("GET", "/messages", { query: { environment, ...filters }, signal }),
  listLedger: (
    environment: Environment,
    range: DateRange & { before?: string | undefined; limit?: number | undefined },
    signal?: AbortSignal,
  ) => request<LedgerPage>("GET", "/ledger", { query: { environment, ...range }, signal }),
  /** Where the browser downloads the ledger as CSV (the session cookie goes with it). */
  ledgerCsvUrl: (environment: Environment, range: DateRange) =>
    `${BASE}/ledger.csv${queryString({ environment, ...range })}`,
  /**
   * Where the browser downloads every message the filters match as CSV, the newest
   * MESSAGES_CSV_LIMIT of them (the session cookie goes with it).
   */
  messagesCsvUrl: (environment: Environment, filters: Omit<MessageFilters, "before" | "limit">) =>
    `${BASE}/messages/export.csv${queryString({ environment, ...filters })}`,
  getMessage: (environment: Environment, id: string, signal?: AbortSignal) =>
    request<MessageDetail>("GET", `/messages/${encodeURIComponent(id)}`, { query: { environment }, signal }),
  cancelMessage: (environment: Environment, id: string) =>
    request<Message>("POST", `/messages/${encodeURIComponent(id)}/cancel`, {
      query: { environment },
      body: {},
    }),

  listAudit: (filters: AuditFilters, signal?: AbortSignal) =>
    request<{ data: AuditEntry[]; has_more: boolean }>("GET", "/audit", { query: { ...filters }, signal }),

  sandboxInbox: (limit: number, signal?: AbortSignal) =>
    request<{ data: SandboxDelivery[] }>("GET", "/sandbox/messages", { query: { limit }, signal }),

  listSenders: (signal?: AbortSignal) => request<{ data: Sender[] }>("GET", "/senders", { signal }),
  addSender: (sender: string) => request<Sender>("POST", "/senders", { body: { sender } }),
  removeSender: (sender: string) => request<void>("DELETE", `/senders/${encodeURIComponent(sender)}`),

  listCtaEntries: (signal?: AbortSignal) => request<{ data: CtaEntry[] }>("GET", "/cta", { signal }),
  addCtaEntry: (kind: CtaKind, value: string) => request<CtaEntry>("POST", "/cta", { body: { kind, value } }),
  removeCtaEntry: (kind: CtaKind, value: string) =>
    request<void>("DELETE", "/cta", { query: { kind, value } }),

  listTemplates: (signal?: AbortSignal) => request<{ data: Template[] }>("GET", "/templates", { signal }),
  addTemplate: (template: NewTemplate) => request<Template>("POST", "/templates", { body: template }),
  updateTemplate: (templateId: string, change: TemplateChange) =>
    request<Template>("PATCH", `/templates/${encodeURIComponent(templateId)}`, { body: change }),
  removeTemplate: (templateId: string) =>
    request<void>("DELETE", `/templates/${encodeURIComponent(templateId)}`),
  setTemplateStatus: (templateId: string, status: TemplateStatus) =>
    request<Template>("POST", `/templates/${encodeURIComponent(templateId)}/status`, { body: { status } }),

  tmChain: (signal?: AbortSignal) => request<TmChain>("GET", "/tm-chain", { signal }),
  setTmChain: (tmChain: string[] | null) =>
    request<TmChain>("PUT", "/tm-chain", { body: { tm_chain: tmChain } }),

  listWebhooks: (environment: Environment, signal?: AbortSignal) =>
    request<{ data: WebhookEndpoint[] }>("GET", "/webhooks", { query: { environment }, signal }),
  createWebhook: (environment: Environment, endpoint: NewWebhookEndpoint) =>
    request<WebhookEndpointWithSecret>("POST", "/webhooks", { query: { environment }, body: endpoint }),
  getWebhook: (environment: Environment, id: string, signal?: AbortSignal) =>
    request<WebhookEndpointWithSecret>("GET", webhookPath(id), { query: { environment }, signal }),
  updateWebhook: (environment: Environment, id: string, change: WebhookEndpointChange) =>
    request<WebhookEndpoint>("PATCH", webhookPath(id), { query: { environment }, body: change }),
  deleteWebhook: (environment: Environment, id: string) =>
    request<void>("DELETE", webhookPath(id), { query: { environment } }),
  rotateWebhookSecret: (environment: Environment, id: string) =>
    request<WebhookEndpointWithSecret>("POST", webhookPath(id, "rotate-secret"), {
      query: { environment },
      body: {},
    }),
  testWebhook: (environment: Environment, id: string) =>
    request<{ id: string; type: "webhook.test" }>("POST", webhookPath(id, "test"), {
      query: { environment },
      body: {},
    }),
  /** One page, newest first: `before` is the id of the last attempt of the newer page. */
  listWebhookAttempts: (
    environment: Environment,
    id: string,
    page: { limit: number; before?: string | undefined },
    signal?: AbortSignal,
  ) =>
    request<{ data: WebhookAttempt[]; has_more: boolean }>("GET", webhookPath(id, "attempts"), {
      query: { environment, limit: page.limit, ...(page.before ? { before: page.before } : {}) },
      signal,
    }),
  replayWebhook: (environment: Environment, id: string, since: string) =>
    request<{ webhook_id: string; since: string; queued: number }>("POST", webhookPath(id, "replay"), {
      query: { environment },
      body: { since },
    }),

  listCampaigns: (
    environment: Environment,
    page: { starting_after?: string | undefined; limit: number },
    signal?: AbortSignal,
  ) =>
    request<{ data: Campaign[]; has_more: boolean }>("GET", "/campaigns", {
      query: { environment, ...page },
      signal,
    }),
  getCampaign: (environment: Environment, id: string, signal?: AbortSignal) =>
    request<Campaign>("GET", `/campaigns/${encodeURIComponent(id)}`, { query: { environment }, signal }),
  previewCampaign: (environment: Environment, campaign: NewCampaign, signal?: AbortSignal) =>
    request<CampaignPreview>("POST", "/campaigns/preview", {
      query: { environment },
      body: campaign,
      signal,
    }),
  createCampaign: (environment: Environment, campaign: NewCampaign) =>
    request<CreatedCampaign>("POST", "/campaigns", { query: { environment }, body: campaign }),
  cancelCampaign: (environment: Environment, id: string) =>
    request<Campaign>("POST", `/campaigns/${encodeURIComponent(id)}/cancel`, {
      query: { environment },
      body: {},
    }),

  getOtpSettings: (environment: Environment, signal?: AbortSignal) =>
    request<OtpSettingsView>("GET", "/otp-settings", { query: { environment }, signal }),
  updateOtpSettings: (environment: Environment, changes: Partial<OtpSettings>) =>
    request<OtpSettingsView>("PATCH", "/otp-settings", { query: { environment }, body: changes }),
};
