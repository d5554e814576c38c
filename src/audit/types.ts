import type { Environment } from "../db/schema.js";

/** Who made a change: a member signed in to the console, an API key, or the operator's CLI. */
export type AuditActor =
  | { type: "member"; id: string; email: string }
  | { type: "key"; id: string }
  | { type: "cli" };

/** Who made a change and from which address: what every change function takes, to record it. */
export interface ChangeOrigin {
  actor: AuditActor;
  /** The client's address as the server sees it (TRUST_PROXY decides); null for the CLI. */
  clientAddress: string | null;
}

/** A member as the log names them: by id, with the email they had then. */
export function memberActor(member: { memberId: string; email: string }): AuditActor {
  return { type: "member", id: member.memberId, email: member.email };
}

/** Changes made by the operator's CLI, on the machine itself. */
export const CLI_ORIGIN: ChangeOrigin = { actor: { type: "cli" }, clientAddress: null };

/** Every action the log records, `<target>.<what happened>` (docs/audit.md lists them). */
export const AUDIT_ACTIONS = [
  "key.created",
  "key.rotated",
  "key.deleted",
  "key.rate_limit_changed",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "template.created",
  "template.updated",
  "template.deleted",
  "sender.created",
  "sender.deleted",
  "cta_entry.created",
  "cta_entry.deleted",
  "otp_settings.updated",
  "account.updated",
  "credits.added",
  "low_balance_threshold.updated",
  "member.invited",
  "member.role_changed",
  "member.removed",
  "member.joined",
  "member.password_reset",
  "member.password_set",
  "two_factor.enabled",
  "two_factor.disabled",
  "two_factor.recovery_codes_replaced",
  "two_factor.requirement_changed",
  "two_factor.reset",
  "sign_in.succeeded",
  "sign_in.failed",
  "campaign.created",
  "campaign.cancelled",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditTargetType =
  | "api_key"
  | "webhook_endpoint"
  | "template"
  | "sender"
  | "cta_entry"
  | "otp_settings"
  | "account"
  | "balance"
  | "member"
  | "campaign";

export type SnapshotValue = string | number | boolean | null | readonly string[];
declare const SNAPSHOT: unique symbol;
/**
 * A short picture of a target before or after a change: only the fields that its function in
 * snapshots.ts allows, never a secret, a hash or a token. Branded, so that nothing else (a row
 * spread into an object) can be recorded by mistake.
 */
export type AuditSnapshot = Readonly<Record<string, SnapshotValue>> & { readonly [SNAPSHOT]: true };

/** One change to record. */
export interface AuditEntry {
  accountId: string;
  /** Null where the change is not of one environment (templates, senders, the account itself). */
  environment: Environment | null;
  origin: ChangeOrigin;
  action: AuditAction;
  target: { type: AuditTargetType; id: string | null };
  before?: AuditSnapshot | null;
  after?: AuditSnapshot | null;
}
