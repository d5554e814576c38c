import { requireAccountExists } from "../accounts/accounts.js";
import { recordAudit } from "../audit/record.js";
import { apiKeySnapshot, keyRotationSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import { MAX_RATE_LIMIT } from "../config.js";
import type { AppContext } from "../context.js";
import type { ApiKeysTable, DbOrTrx, Environment, KeyScope } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoAfter, isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { allowedIpsOf, parseAllowedIps, storedAllowedIps } from "./allowed-ips.js";
import { isKeyScope, KEY_SCOPES } from "./scopes.js";
import { DISPLAY_PREFIX_LENGTH, DISPLAY_SUFFIX_LENGTH, generateSecret, hashSecret } from "./secrets.js";

export interface ApiKey {
  id: string;
  environment: Environment;
  label: string | null;
  prefix: string;
  /** The secret's last 4 characters (null for keys made before they were kept): `dk_live_Ab3x…9fQz`. */
  last_four: string | null;
  created_at: string;
  last_used_at: string | null;
  /** Only for a key rotated with a grace period: when it stops working. */
  expires_at: string | null;
  /** Requests a minute this key may make; null for the server's default (docs/rate-limits.md). */
  rate_limit: number | null;
  /** What it may call: `full`, `send` (sends and OTP verification only) or `read` (GETs only). */
  scope: KeyScope;
  /** The addresses and CIDRs it may be used from, canonical; null for any address. */
  allowed_ips: string[] | null;
}

export interface CreatedApiKey extends ApiKey {
  /** Shown once; only its SHA-256 is stored. */
  secret: string;
}

/** The grace periods a rotation may leave the old key: none, 1 hour, 24 hours, 7 days. */
export const ROTATION_GRACE_SECONDS = [0, 3_600, 86_400, 604_800] as const;
export const MAX_LABEL_LENGTH = 64;

export interface NewKey {
  accountId: string;
  environment: Environment;
  label?: string | null;
  rateLimit?: number | null;
  /** `full` when not given. */
  scope?: string;
  /** Addresses and CIDRs (src/keys/allowed-ips.ts); null or not given for any address. */
  allowedIps?: readonly string[] | null;
}

export async function createKey(
  ctx: AppContext,
  input: NewKey,
  origin: ChangeOrigin,
): Promise<CreatedApiKey> {
  const label = normaliseLabel(input.label);
  const rateLimit = checkRateLimit(input.rateLimit ?? null);
  const scope = checkScope(input.scope ?? "full");
  const allowedIps = storedAllowedIps(parseAllowedIps(input.allowedIps));
  return inTransaction(ctx, async (trx) => {
    await requireAccountExists(trx, input.accountId);
    const key = await insertKey(trx, ctx, {
      accountId: input.accountId,
      environment: input.environment,
      label,
      rateLimit,
      scope,
      allowedIps,
    });
    await recordAudit(trx, ctx.clock, {
      accountId: input.accountId,
      environment: key.environment,
      origin,
      action: "key.created",
      target: { type: "api_key", id: key.id },
      after: apiKeySnapshot(key),
    });
    return key;
  });
}

/** Gives a key its own request rate (requests a minute), or with `null` the server's default again. */
export async function setKeyRateLimit(
  ctx: AppContext,
  input: { accountId: string; keyId: string; rateLimit: number | null },
  origin: ChangeOrigin,
): Promise<ApiKey> {
  const rateLimit = checkRateLimit(input.rateLimit);
  return inTransaction(ctx, async (trx) => {
    const before = await liveKeyRow(trx, ctx, input);
    const row = await trx
      .updateTable("api_keys")
      .set({ rate_limit: rateLimit })
      .where("id", "=", before.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, ctx.clock, {
      accountId: input.accountId,
      environment: row.environment,
      origin,
      action: "key.rate_limit_changed",
      target: { type: "api_key", id: row.id },
      before: apiKeySnapshot(toApiKey(before)),
      after: apiKeySnapshot(toApiKey(row)),
    });
    return toApiKey(row);
  });
}

/** The key `keyId` of the account, unless it is gone or its grace period has ended; else `not_found`. */
async function liveKeyRow(
  db: DbOrTrx,
  ctx: AppContext,
  key: { accountId: string; keyId: string },
): Promise<ApiKeysTable> {
  const row = await db
    .selectFrom("api_keys")
    .selectAll()
    .where("account_id", "=", key.accountId)
    .where("id", "=", key.keyId)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", isoNow(ctx.clock))]))
    .executeTakeFirst();
  if (!row) throw keyNotFound(key.keyId);
  return row;
}

export async function listKeys(ctx: AppContext, accountId: string): Promise<ApiKey[]> {
  await requireAccountExists(ctx.db, accountId);
  const rows = await ctx.db
    .selectFrom("api_keys")
    .selectAll()
    .where("account_id", "=", accountId)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", isoNow(ctx.clock))]))
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map(toApiKey);
}

/** Deletes a key. The row is gone when this returns, so every instance refuses the key from then on. */
export async function deleteKey(
  ctx: AppContext,
  accountId: string,
  keyId: string,
  origin: ChangeOrigin,
): Promise<void> {
  await inTransaction(ctx, async (trx) => {
    const row = await trx
      .deleteFrom("api_keys")
      .where("account_id", "=", accountId)
      .where("id", "=", keyId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw keyNotFound(keyId);
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment: row.environment,
      origin,
      action: "key.deleted",
      target: { type: "api_key", id: row.id },
      before: apiKeySnapshot(toApiKey(row)),
    });
  });
}

/**
 * Creates a key with the same environment and label, and deletes the old one at once or, with a
 * grace period, lets it work until then so deployments can switch over.
 */
export async function rotateKey(
  ctx: AppContext,
  input: { accountId: string; keyId: string; graceSeconds: number },
  origin: ChangeOrigin,
): Promise<{ key: CreatedApiKey; rotated: ApiKey | null }> {
  if (!(ROTATION_GRACE_SECONDS as readonly number[]).includes(input.graceSeconds)) {
    throw new ApiError(
      "invalid_request",
      `grace period must be one of ${ROTATION_GRACE_SECONDS.join(", ")} seconds.`,
      "grace_seconds",
    );
  }
  return inTransaction(ctx, async (trx) => {
    const old = await liveKeyRow(trx, ctx, input);
    // The new key inherits the old one's rate, scope and allowlist: a rotation must not lift a restriction.
    const key = await insertKey(trx, ctx, {
      accountId: input.accountId,
      environment: old.environment,
      label: old.label,
      rateLimit: old.rate_limit,
      scope: old.scope,
      allowedIps: old.allowed_ips,
    });
    const rotation = {
      accountId: input.accountId,
      environment: old.environment,
      origin,
      action: "key.rotated",
      target: { type: "api_key", id: old.id },
    } as const;
    if (input.graceSeconds === 0) {
      await trx.deleteFrom("api_keys").where("id", "=", old.id).execute();
      await recordAudit(trx, ctx.clock, {
        ...rotation,
        before: apiKeySnapshot(toApiKey(old)),
        after: keyRotationSnapshot(key, null),
      });
      return { key, rotated: null };
    }
    const graceEnd = isoAfter(ctx.clock, input.graceSeconds);
    // A key already rotating out never gets a longer life from a second rotation.
    const expiresAt = old.expires_at !== null && old.expires_at < graceEnd ? old.expires_at : graceEnd;
    await trx.updateTable("api_keys").set({ expires_at: expiresAt }).where("id", "=", old.id).execute();
    await recordAudit(trx, ctx.clock, {
      ...rotation,
      before: apiKeySnapshot(toApiKey(old)),
      after: keyRotationSnapshot(key, expiresAt),
    });
    return { key, rotated: toApiKey({ ...old, expires_at: expiresAt }) };
  });
}

async function insertKey(
  trx: DbOrTrx,
  ctx: AppContext,
  key: {
    accountId: string;
    environment: Environment;
    label: string | null;
    rateLimit: number | null;
    scope: KeyScope;
    /** The column's JSON text. */
    allowedIps: string | null;
  },
): Promise<CreatedApiKey> {
  const secret = generateSecret(key.environment);
  const row: ApiKeysTable = {
    id: newId("key"),
    account_id: key.accountId,
    environment: key.environment,
    label: key.label,
    prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
    secret_hash: hashSecret(secret),
    last_four: secret.slice(-DISPLAY_SUFFIX_LENGTH),
    created_at: isoNow(ctx.clock),
    last_used_at: null,
    expires_at: null,
    rate_limit: key.rateLimit,
    scope: key.scope,
    allowed_ips: key.allowedIps,
  };
  await trx.insertInto("api_keys").values(row).execute();
  return { ...toApiKey(row), secret };
}

function toApiKey(row: ApiKeysTable): ApiKey {
  return {
    id: row.id,
    environment: row.environment,
    label: row.label,
    prefix: row.prefix,
    last_four: row.last_four,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    rate_limit: row.rate_limit,
    scope: row.scope,
    allowed_ips: allowedIpsOf(row.allowed_ips),
  };
}

function normaliseLabel(label: string | null | undefined): string | null {
  const trimmed = label?.trim() ?? "";
  if (trimmed.length > MAX_LABEL_LENGTH) {
    throw new ApiError("invalid_request", `label must be at most ${MAX_LABEL_LENGTH} characters.`, "label");
  }
  return trimmed === "" ? null : trimmed;
}

function checkRateLimit(rateLimit: number | null): number | null {
  if (rateLimit !== null && (!Number.isInteger(rateLimit) || rateLimit < 1 || rateLimit > MAX_RATE_LIMIT)) {
    throw new ApiError(
      "invalid_request",
      `rate limit must be a whole number of requests a minute from 1 to ${MAX_RATE_LIMIT}.`,
      "rate_limit",
    );
  }
  return rateLimit;
}

function checkScope(scope: string): KeyScope {
  if (!isKeyScope(scope)) {
    throw new ApiError("invalid_request", `scope must be one of ${KEY_SCOPES.join(", ")}.`, "scope");
  }
  return scope;
}

function keyNotFound(keyId: string): ApiError {
  return new ApiError("not_found", `No API key ${keyId} on this account.`, "key");
}
