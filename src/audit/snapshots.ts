/**
 * What the audit log keeps of each kind of target: a function per target that names the fields it
 * keeps, one by one. A row is never spread into a snapshot, so a column added later (a secret, a
 * hash) stays out until someone adds it here on purpose. Never kept: key secrets and their hashes,
 * webhook signing secrets, passwords and their hashes, session and invite tokens, TOTP secrets,
 * recovery codes, OTP codes (the test numbers' fixed codes included).
 */
import type { Environment, TemplateCategory, TemplateStatus } from "../db/schema.js";
import { formatInr } from "../lib/money.js";
import type { AuditSnapshot, SnapshotValue } from "./types.js";

function snapshot(fields: Record<string, SnapshotValue>): AuditSnapshot {
  return fields as AuditSnapshot;
}

export function apiKeySnapshot(key: {
  environment: Environment;
  label: string | null;
  prefix: string;
  last_four: string | null;
  rate_limit: number | null;
  expires_at: string | null;
  scope: string;
  allowed_ips: readonly string[] | null;
}): AuditSnapshot {
  return snapshot({
    environment: key.environment,
    label: key.label,
    prefix: key.prefix,
    last_four: key.last_four,
    rate_limit: key.rate_limit,
    expires_at: key.expires_at,
    scope: key.scope,
    allowed_ips: key.allowed_ips === null ? null : [...key.allowed_ips],
  });
}

/**
 * A rotated key after its rotation: when it stops working (null: it was deleted at once) and the
 * key that replaces it, by id and display prefix.
 */
export function keyRotationSnapshot(
  replacement: { id: string; prefix: string; last_four: string | null },
  expiresAt: string | null,
): AuditSnapshot {
  return snapshot({
    expires_at: expiresAt,
    replaced_by: replacement.id,
    replacement_prefix: replacement.prefix,
    replacement_last_four: replacement.last_four,
  });
}

export function webhookSnapshot(endpoint: {
  url: string;
  events: readonly string[];
  description: string | null;
  status: string;
}): AuditSnapshot {
  return snapshot({
    url: urlWithoutCredentials(endpoint.url),
    events: [...endpoint.events],
    description: endpoint.description,
    status: endpoint.status,
  });
}

/**
 * A receiver's URL may carry its own token in the query or the user part; the log keeps the
 * scheme, host and path only.
 */
export function urlWithoutCredentials(url: string): string {
  if (!URL.canParse(url)) return "";
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

export function templateSnapshot(template: {
  template_id: string;
  entity_id: string;
  name: string;
  category: TemplateCategory;
  content: string;
  senders: readonly string[];
  status: TemplateStatus;
}): AuditSnapshot {
  return snapshot({
    template_id: template.template_id,
    entity_id: template.entity_id,
    name: template.name,
    category: template.category,
    content: template.content,
    senders: [...template.senders],
    status: template.status,
  });
}

export function senderSnapshot(sender: { sender: string }): AuditSnapshot {
  return snapshot({ sender: sender.sender });
}

export function ctaEntrySnapshot(entry: { kind: string; value: string }): AuditSnapshot {
  return snapshot({ kind: entry.kind, value: entry.value });
}

/** The test numbers are kept without their fixed codes: a code is as good as a password. */
export function otpSettingsSnapshot(settings: {
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
  voice_caller_id: string | null;
}): AuditSnapshot {
  return snapshot({
    expiry_seconds: settings.expiry_seconds,
    max_attempts: settings.max_attempts,
    resend_cooldown_seconds: settings.resend_cooldown_seconds,
    fallback_after_seconds: settings.fallback_after_seconds,
    length: settings.length,
    sms_template_id: settings.sms_template_id,
    sms_sender: settings.sms_sender,
    whatsapp_template: settings.whatsapp_template,
    whatsapp_language: settings.whatsapp_language,
    test_numbers: Object.keys(settings.test_numbers).sort(),
    voice_caller_id: settings.voice_caller_id,
  });
}

export function accountSnapshot(account: {
  bfsi: boolean;
  tm_chain: readonly string[] | null;
}): AuditSnapshot {
  return snapshot({ bfsi: account.bfsi, tm_chain: account.tm_chain === null ? null : [...account.tm_chain] });
}

/** A balance in INR, as the API writes money (`"100.0000"`). */
export function balanceSnapshot(balance: {
  balance: number;
  amount?: number;
  reference?: string | null;
}): AuditSnapshot {
  return snapshot({
    balance: formatInr(balance.balance),
    ...(balance.amount === undefined ? {} : { amount: formatInr(balance.amount) }),
    ...(balance.reference === undefined ? {} : { reference: balance.reference }),
  });
}

/** A balance's low-balance alert threshold in INR; null: no alert. */
export function thresholdSnapshot(threshold: number | null): AuditSnapshot {
  return snapshot({ low_balance_threshold: threshold === null ? null : formatInr(threshold) });
}

/** Whether the account requires every member to sign in with a second factor. */
export function twoFactorRequirementSnapshot(required: boolean): AuditSnapshot {
  return snapshot({ require_two_factor: required });
}

/** A console member: who, with which role, and whether they joined yet. */
export function memberSnapshot(member: { email: string; role: string; status: string }): AuditSnapshot {
  return snapshot({ email: member.email, role: member.role, status: member.status });
}

/** A campaign as sent: what it sends, to how many, for how much, and when. */
export function campaignSnapshot(campaign: {
  name: string;
  template_id: string;
  sender: string;
  accepted: number;
  cost: number;
  send_at: string | null;
}): AuditSnapshot {
  return snapshot({
    name: campaign.name,
    template_id: campaign.template_id,
    sender: campaign.sender,
    recipients: campaign.accepted,
    cost: formatInr(campaign.cost),
    send_at: campaign.send_at,
  });
}
