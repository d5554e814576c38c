/**
 * The tables of campaigns (docs/campaigns.md): a campaign, and its recipients that wait, rendered
 * and priced, until the worker feeds them into the queue. src/db/schema.ts holds the rest.
 */
// Spelled as in schema.ts (Timestamp, Environment, SmsEncoding, TemplateCategory), which imports this file and so cannot be imported here.
type Timestamp = string;
type Environment = "live" | "sandbox";
type SmsEncoding = "gsm7" | "ucs2";
type TemplateCategory = "transactional" | "service_implicit" | "service_explicit" | "promotional";

/**
 * `accepting` while its request writes its recipients (never shown: it becomes `scheduled` or
 * `sending` with its charge, or is swept away); `scheduled` until `send_at`; `sending` while
 * recipients wait or messages are queued; then `completed` or `cancelled`.
 */
export type CampaignStatus = "accepting" | "scheduled" | "sending" | "completed" | "cancelled";

export interface CampaignsTable {
  /** `cmp_…` */
  id: string;
  account_id: string;
  environment: Environment;
  name: string;
  template_id: string;
  sender: string;
  /** The template's DLT entity and category as the campaign was accepted: its messages go out under them. */
  entity_id: string;
  category: TemplateCategory;
  status: CampaignStatus;
  send_at: Timestamp | null;
  messages_per_minute: number | null;
  /** Rows the request had. */
  recipients: number;
  accepted: number;
  rejected: number;
  /** What the accepted recipients were charged, in 1/10,000 INR. */
  cost: number;
  /** Given back for recipients that never became messages (a cancel); message refunds are the ledger's. */
  refunded: number;
  /** The first recipient `seq` not yet fed into the queue. */
  next_seq: number;
  /** With `messages_per_minute`: nothing more is fed before this time. */
  paced_until: Timestamp | null;
  /** Past the account's hourly cap on distinct numbers: nothing more is fed before this time. */
  capped_until: Timestamp | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  updated_at: Timestamp;
}

/** A campaign's recipient, checked, rendered and priced, until it is fed into the queue as a message. */
export interface CampaignRecipientsTable {
  campaign_id: string;
  /** Its place among the campaign's accepted recipients, from 0: the order they are fed in. */
  seq: number;
  recipient: string;
  reference: string | null;
  text: string;
  encoding: SmsEncoding;
  segments: number;
  cost: number;
}
