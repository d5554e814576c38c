/**
 * The tables of the console's people (docs/team.md): members, their sessions and second factors,
 * and the audit log of what anyone changed. src/db/schema.ts holds the rest and the `Database`.
 */
import type { ColumnType } from "kysely";
import type { MemberStatus, Role } from "../members/roles.js";

// Spelled as in schema.ts (Timestamp, Environment), which imports this file and so cannot be imported here.
type Timestamp = string;
type Environment = "live" | "sandbox";

export interface MembersTable {
  id: string;
  account_id: string;
  /** Lower case; one member per email in the installation, since an email signs in to one account. */
  email: string;
  /** argon2id; null while the invite is not accepted. */
  password_hash: string | null;
  role: Role;
  status: MemberStatus;
  /** SHA-256 of an open invite's or password reset's one-time token; null when none is open. */
  invite_token_hash: string | null;
  invite_expires_at: Timestamp | null;
  created_at: Timestamp;
  last_sign_in_at: Timestamp | null;
  /** The TOTP secret, sealed (src/two-factor/secret-box.ts); null without two-factor sign-in. */
  two_factor_secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  /** A secret being enrolled, sealed, until a code from it confirms it. */
  two_factor_pending_secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  two_factor_enabled_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  /** The TOTP time step of the last code accepted: a code of it or before is refused (no replay). */
  two_factor_last_time_step: ColumnType<number | null, number | null | undefined, number | null>;
}

/** One of a member's ten recovery codes, kept as its SHA-256; each works once. */
export interface TwoFactorRecoveryCodesTable {
  id: string;
  member_id: string;
  code_hash: string;
  created_at: Timestamp;
  used_at: Timestamp | null;
}

/** Between a right password and the second factor: single use, 5 minutes. */
export interface TwoFactorChallengesTable {
  /** SHA-256 of the opaque challenge the sign-in answered. */
  token_hash: string;
  member_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface DashboardSessionsTable {
  id: string;
  /** SHA-256 of the cookie's token: the token itself is never stored. */
  token_hash: string;
  member_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  /** The earlier of the idle timeout and the absolute lifetime. */
  expires_at: Timestamp;
}

/** Who made a change recorded in the audit log: a console member, an API key, or the operator's CLI. */
export type AuditActorType = "member" | "key" | "cli";

/** One change, as the audit log keeps it (docs/audit.md): written in the change's transaction, never edited. */
export interface AuditLogTable {
  /** `aud_…` */
  id: string;
  account_id: string;
  /** The environment the change belongs to; null for what both share (templates, senders, the account). */
  environment: Environment | null;
  actor_type: AuditActorType;
  /** The member's or the key's id; null for the CLI. */
  actor_id: string | null;
  /** What people recognise the actor by: a member's email; null otherwise. */
  actor_label: string | null;
  /** `key.created`, `webhook.secret_rotated`, … (src/audit/types.ts). */
  action: string;
  target_type: string;
  target_id: string | null;
  client_address: string | null;
  /** JSON of the allow-listed fields before and after the change (src/audit/snapshots.ts); never a secret. */
  before: string | null;
  after: string | null;
  created_at: Timestamp;
}
