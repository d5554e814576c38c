import { createHmac } from "node:crypto";
import type { ExpressionBuilder } from "kysely";
import type { AppContext } from "../context.js";
import type { Database, DbOrTrx, Environment } from "../db/schema.js";
import { isoAfter, isoNow } from "../lib/clock.js";

export interface IdempotencyScope {
  accountId: string;
  environment: Environment;
  key: string;
}

/**
 * `holder` names this request's hold on the key (the row's `locked_until` as the claim set it):
 * only the current holder may store an answer or release the key, so a request whose hold lapsed
 * and was taken over can no longer commit anything under it.
 */
export type Claim =
  | { outcome: "claimed"; holder: string }
  | { outcome: "replay"; status: number; body: string }
  | { outcome: "in_use" }
  | { outcome: "reused" };

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;

/**
 * Identifies a request by method, path and body, with object keys sorted so key order does not
 * matter. Keyed with the server secret: a plain hash of a body holding a 6-digit code would give
 * the code away to anyone reading the table, after a million guesses.
 */
export function requestFingerprint(secret: string, method: string, path: string, body: unknown): string {
  return createHmac("sha256", secret)
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest("hex");
}

/**
 * Takes the key for this request, or says what happened to it before. The row is the lock:
 * exactly one of any number of concurrent requests (on any process) inserts it.
 */
export async function claimIdempotencyKey(
  ctx: AppContext,
  scope: IdempotencyScope,
  fingerprint: string,
): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = isoNow(ctx.clock);
    const holder = isoAfter(ctx.clock, ctx.idempotencyLockSeconds);
    const inserted = await ctx.db
      .insertInto("idempotency_keys")
      .values({
        account_id: scope.accountId,
        environment: scope.environment,
        key: scope.key,
        request_fingerprint: fingerprint,
        locked_until: holder,
        response_status: null,
        response_body: null,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { outcome: "claimed", holder };

    const existing = await ctx.db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where(ofScope(scope))
      .executeTakeFirst();
    if (!existing) continue; // released by a failed first request in between: try to insert again
    if (existing.created_at <= isoAfter(ctx.clock, -IDEMPOTENCY_RETENTION_SECONDS)) {
      await ctx.db
        .deleteFrom("idempotency_keys")
        .where(ofScope(scope))
        .where("created_at", "=", existing.created_at)
        .execute();
      continue;
    }
    if (existing.request_fingerprint !== fingerprint) return { outcome: "reused" };
    if (existing.response_status !== null && existing.response_body !== null) {
      return { outcome: "replay", status: existing.response_status, body: existing.response_body };
    }
    if (existing.locked_until !== null && existing.locked_until > now) return { outcome: "in_use" };
    // The first request's process died holding the key: take it over, if nobody else just did.
    // Its effect, if it had one, committed together with its answer, which would be replayed above.
    const newHolder = isoAfter(ctx.clock, ctx.idempotencyLockSeconds);
    const takenOver = await ctx.db
      .updateTable("idempotency_keys")
      .set({ locked_until: newHolder })
      .where(ofScope(scope))
      .where("locked_until", "=", existing.locked_until)
      .where("response_status", "is", null)
      .executeTakeFirst();
    return Number(takenOver.numUpdatedRows) === 1
      ? { outcome: "claimed", holder: newHolder }
      : { outcome: "in_use" };
  }
  return { outcome: "in_use" };
}

/**
 * Stores the answer of a held key for replay. Given the transaction of the request's effect, the
 * answer commits with the effect or not at all. False when this request no longer holds the key
 * (its hold lapsed and another request took the key over, or already answered under it).
 */
export async function storeIdempotentResponse(
  db: DbOrTrx,
  scope: IdempotencyScope,
  holder: string,
  status: number,
  body: string,
): Promise<boolean> {
  const stored = await db
    .updateTable("idempotency_keys")
    .set({ response_status: status, response_body: body, locked_until: null })
    .where(ofScope(scope))
    .where("locked_until", "=", holder)
    .where("response_status", "is", null)
    .executeTakeFirst();
  return Number(stored.numUpdatedRows) === 1;
}

/**
 * Frees a held key whose request answered with an error: an error never has an effect, so a
 * retry (corrected or not) runs as new. An answer already stored is never released.
 */
export async function releaseIdempotencyKey(
  db: DbOrTrx,
  scope: IdempotencyScope,
  holder: string,
): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where(ofScope(scope))
    .where("locked_until", "=", holder)
    .where("response_status", "is", null)
    .execute();
}

/** Deletes keys past their 24 hours. */
export async function purgeExpiredIdempotencyKeys(ctx: AppContext): Promise<number> {
  const result = await ctx.db
    .deleteFrom("idempotency_keys")
    .where("created_at", "<=", isoAfter(ctx.clock, -IDEMPOTENCY_RETENTION_SECONDS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The row of one key: `.where(ofScope(scope))` on any query of the table. */
function ofScope(scope: IdempotencyScope) {
  return (eb: ExpressionBuilder<Database, "idempotency_keys">) =>
    eb.and({ account_id: scope.accountId, environment: scope.environment, key: scope.key });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
