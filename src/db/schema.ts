import type { Kysely, Transaction } from "kysely";

export type Environment = "live" | "sandbox";
export const ENVIRONMENTS: readonly Environment[] = ["live", "sandbox"];

/** Timestamps are RFC 3339 UTC strings with milliseconds, so they sort as text on both dialects. */
type Timestamp = string;

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string;
  created_at: Timestamp;
}

export interface BalancesTable {
  account_id: string;
  environment: Environment;
  /** 1/10,000 INR. */
  balance: number;
  updated_at: Timestamp;
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

export interface Database {
  accounts: AccountsTable;
  balances: BalancesTable;
  ledger_entries: LedgerEntriesTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
}

export type Db = Kysely<Database>;
export type DbOrTrx = Kysely<Database> | Transaction<Database>;
export type Dialect = "sqlite" | "postgres";
