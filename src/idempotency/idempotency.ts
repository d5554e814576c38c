import { createHmac } from "node:crypto";
import type { ExpressionBuilder } from "kysely";
import { isoAfter, isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import type { Database, Environment } from "../db/schema.js";

export interface IdempotencyScope {
  accountId: string;
  environment: Environment;
  key: string;
}

export type Claim =
  | { outcome: "claimed" }
  | { outcome: "replay"; status: number; body: string }
  | { outcome: "in_use" }
  | { outcome: "reused" };

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;
/** How long a first request holds its key; after this a crashed holder's key can be taken over. */
const LOCK_SECONDS = 60;

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
    const inserted = await ctx.db
      .insertInto("idempotency_keys")
      .values({
        account_id: scope.accountId,
        environment: scope.environment,
        key: scope.key,
        request_fingerprint: fingerprint,
        locked_until: isoAfter(ctx.clock, LOCK_SECONDS),
        response_status: null,
        response_body: null,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { outcome: "claimed" };

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
    const takenOver = await ctx.db
      .updateTable("idempotency_keys")
      .set({ locked_until: isoAfter(ctx.clock, LOCK_SECONDS) })
      .where(ofScope(scope))
      .where("locked_until", "=", existing.locked_until)
      .where("response_status", "is", null)
      .executeTakeFirst();
    return Number(takenOver.numUpdatedRows) === 1 ? { outcome: "claimed" } : { outcome: "in_use" };
  }
  return { outcome: "in_use" };
}

/** Stores the response of a claimed key for replay; a 5xx is not stored, so the request can be retried. */
export async function completeIdempotencyKey(
  ctx: AppContext,
  scope: IdempotencyScope,
  status: number,
  body: string,
): Promise<void> {
  if (status >= 500) {
    await ctx.db.deleteFrom("idempotency_keys").where(ofScope(scope)).execute();
    return;
  }
  await ctx.db
    .updateTable("idempotency_keys")
    .set({ response_status: status, response_body: body, locked_until: null })
    .where(ofScope(scope))
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
