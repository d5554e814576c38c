import { timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context.js";
import { prepareQuery } from "../db/prepared.js";
import type { ApiKeysTable, Environment } from "../db/schema.js";
import { isoNow, isoTime } from "../lib/clock.js";
import { hashSecret, isWellFormedSecret } from "./secrets.js";

export interface KeyPrincipal {
  keyId: string;
  accountId: string;
  environment: Environment;
}

/** A key as authentication finds it: who it acts for, and its own request rate if it has one. */
export interface AuthenticatedKey extends KeyPrincipal {
  /** Requests a minute; null for the server's default. */
  rateLimit: number | null;
}

/** `last_used_at` is rewritten at most this often per key, so auth is not a write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

const keyBySecretHash = prepareQuery<{ secretHash: string; now: string }, KeyRow>((db, param) =>
  db
    .selectFrom("api_keys")
    .select(["id", "account_id", "environment", "secret_hash", "last_used_at", "rate_limit"])
    .where("secret_hash", "=", param("secretHash"))
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", param("now"))])),
);

type KeyRow = Pick<
  ApiKeysTable,
  "id" | "account_id" | "environment" | "secret_hash" | "last_used_at" | "rate_limit"
>;

/**
 * Resolves a bearer token to its key. Always reads the database (no cache), so a deleted or
 * expired key is refused on every instance the moment its row changes.
 */
export async function authenticateKey(ctx: AppContext, token: string): Promise<AuthenticatedKey | undefined> {
  if (!isWellFormedSecret(token)) return undefined;
  const secretHash = hashSecret(token);
  const now = ctx.clock.now();
  const [row] = (await keyBySecretHash.execute(ctx.db, { secretHash, now: isoTime(now.getTime()) })).rows;
  if (!row || !timingSafeEqual(Buffer.from(row.secret_hash), Buffer.from(secretHash))) return undefined;

  if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
    await ctx.db
      .updateTable("api_keys")
      .set({ last_used_at: isoNow(ctx.clock) })
      .where("id", "=", row.id)
      .execute();
  }
  return {
    keyId: row.id,
    accountId: row.account_id,
    environment: row.environment,
    rateLimit: row.rate_limit,
  };
}
