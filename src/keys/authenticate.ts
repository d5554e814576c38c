import { timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context.js";
import { prepareQuery } from "../db/prepared.js";
import type { ApiKeysTable, Environment, KeyScope } from "../db/schema.js";
import { isoNow, isoTime } from "../lib/clock.js";
import { type AllowedIps, compiledAllowedIps } from "./allowed-ips.js";
import { hashSecret, isWellFormedSecret } from "./secrets.js";

export interface KeyPrincipal {
  keyId: string;
  accountId: string;
  environment: Environment;
}

/** A key as authentication finds it: who it acts for, what it may call and from where, and its own request rate. */
export interface AuthenticatedKey extends KeyPrincipal {
  /** Requests a minute; null for the server's default. */
  rateLimit: number | null;
  scope: KeyScope;
  /** The addresses it may be used from; null for any. */
  allowedIps: AllowedIps | null;
  lastUsedAt: string | null;
}

/** `last_used_at` is rewritten at most this often per key, so auth is not a write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

const keyBySecretHash = prepareQuery<{ secretHash: string; now: string }, KeyRow>((db, param) =>
  db
    .selectFrom("api_keys")
    .select([
      "id",
      "account_id",
      "environment",
      "secret_hash",
      "last_used_at",
      "rate_limit",
      "scope",
      "allowed_ips",
    ])
    .where("secret_hash", "=", param("secretHash"))
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", param("now"))])),
);

type KeyRow = Pick<
  ApiKeysTable,
  | "id"
  | "account_id"
  | "environment"
  | "secret_hash"
  | "last_used_at"
  | "rate_limit"
  | "scope"
  | "allowed_ips"
>;

/**
 * Resolves a bearer token to its key, with its scope and allowlist, in one query. Always reads
 * the database (no cache), so a deleted or expired key is refused on every instance the moment
 * its row changes; only the allowlist's compiled form is kept, keyed by its stored text.
 */
export async function authenticateKey(ctx: AppContext, token: string): Promise<AuthenticatedKey | undefined> {
  if (!isWellFormedSecret(token)) return undefined;
  const secretHash = hashSecret(token);
  const now = isoTime(ctx.clock.now().getTime());
  const [row] = (await keyBySecretHash.execute(ctx.db, { secretHash, now })).rows;
  if (!row || !timingSafeEqual(Buffer.from(row.secret_hash), Buffer.from(secretHash))) return undefined;
  return {
    keyId: row.id,
    accountId: row.account_id,
    environment: row.environment,
    rateLimit: row.rate_limit,
    scope: row.scope,
    allowedIps: row.allowed_ips === null ? null : compiledAllowedIps(row.allowed_ips),
    lastUsedAt: row.last_used_at,
  };
}

/** Records that a key was used for a request it is allowed to make (at most once a minute per key). */
export async function noteKeyUsed(ctx: AppContext, key: AuthenticatedKey): Promise<void> {
  const now = ctx.clock.now().getTime();
  if (key.lastUsedAt !== null && now - Date.parse(key.lastUsedAt) < LAST_USED_RESOLUTION_MS) return;
  await ctx.db
    .updateTable("api_keys")
    .set({ last_used_at: isoNow(ctx.clock) })
    .where("id", "=", key.keyId)
    .execute();
}
