import { randomBytes } from "node:crypto";
import { sql, type Transaction } from "kysely";
import { recordAudit } from "../audit/record.js";
import { webhookSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import { lockForUpdate } from "../db/locks.js";
import {
  type Database,
  type DbOrTrx,
  type Dialect,
  type Environment,
  EVENT_TYPES,
  type WebhookDisabledReason,
  type WebhookEndpointStatus,
  type WebhookEndpointsTable,
} from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoAfter, isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { seal, unseal } from "../lib/sealing.js";
import { lockingRows, lockOrder, type RowLock } from "./locks.js";
import { SECRET_PREFIX } from "./signing.js";
import { checkWebhookUrl } from "./ssrf.js";

/** An endpoint as the API shows it; `secret` only where the contract shows it (create, get, rotate). */
export interface WebhookEndpoint {
  id: string;
  environment: Environment;
  url: string;
  events: string[];
  description: string | null;
  status: WebhookEndpointStatus;
  /** Why a disabled endpoint is disabled: `manual`, `gone` (it answered 410) or `failing` (5 days). */
  disabled_reason: WebhookDisabledReason | null;
  /** Since when every attempt has failed; null while the endpoint answers. */
  failing_since: string | null;
  secret?: string;
  created_at: string;
  updated_at: string;
}

/** Whose endpoints: an API key's account and environment; the CLI may leave the environment open. */
export interface EndpointScope {
  accountId: string;
  environment?: Environment;
}

export const ALL_EVENTS = "*";
export const MAX_ENDPOINTS_PER_ENVIRONMENT = 16;
/** How long a replaced secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** Checks event names and normalises the list: duplicates dropped, `*` alone when present. */
export function normalizeEventTypes(events: string[]): string[] {
  if (events.length === 0) {
    throw new ApiError("invalid_request", `events must list at least one event type, or "*".`, "events");
  }
  events.forEach((type, index) => {
    if (type !== ALL_EVENTS && !(EVENT_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(
        "invalid_request",
        `Unknown event type "${type}"; use "*" or one of ${EVENT_TYPES.join(", ")}.`,
        `events.${index}`,
      );
    }
  });
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)];
}

export function subscribesTo(events: string[], type: string): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}

export async function createEndpoint(
  ctx: AppContext,
  scope: Required<EndpointScope>,
  input: { url: string; events?: string[]; description?: string | null },
  origin: ChangeOrigin,
): Promise<WebhookEndpoint> {
  const url = await checkWebhookUrl(input.url, scope.environment, ctx.outboundWebhooks);
  const events = normalizeEventTypes(input.events ?? [ALL_EVENTS]);
  const now = isoNow(ctx.clock);
  const secret = generateWebhookSecret();
  const row: WebhookEndpointsTable = {
    id: newId("whk"),
    account_id: scope.accountId,
    environment: scope.environment,
    url,
    events: JSON.stringify(events),
    description: input.description ?? null,
    status: "enabled",
    disabled_reason: null,
    secret_sealed: seal(ctx.secret, secret),
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
  };
  await inTransaction(ctx, async (trx) => {
    await lockForUpdate(trx, ctx.dialect, `webhook_endpoints:${scope.accountId}:${scope.environment}`);
    const existing = await trx
      .selectFrom("webhook_endpoints")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .executeTakeFirstOrThrow();
    if (Number(existing.n) >= MAX_ENDPOINTS_PER_ENVIRONMENT) {
      throw new ApiError(
        "invalid_request",
        `An environment can have at most ${MAX_ENDPOINTS_PER_ENVIRONMENT} webhook endpoints; delete one first.`,
      );
    }
    await trx.insertInto("webhook_endpoints").values(row).execute();
    await recordAudit(trx, ctx.clock, {
      ...auditTarget(row, origin),
      action: "webhook.created",
      after: webhookSnapshot(toEndpoint(row)),
    });
  });
  return { ...toEndpoint(row), secret };
}

export async function listEndpoints(ctx: AppContext, scope: EndpointScope): Promise<WebhookEndpoint[]> {
  let query = ctx.db.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", scope.accountId);
  if (scope.environment) query = query.where("environment", "=", scope.environment);
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").execute();
  return rows.map(toEndpoint);
}

/** One endpoint, with its secret. */
export async function getEndpoint(
  ctx: AppContext,
  scope: EndpointScope,
  id: string,
): Promise<WebhookEndpoint> {
  const row = await findEndpoint(ctx.db, scope, id);
  return { ...toEndpoint(row), secret: unseal(ctx.secret, row.secret_sealed) };
}

export async function updateEndpoint(
  ctx: AppContext,
  scope: Required<EndpointScope>,
  id: string,
  patch: { url?: string; events?: string[]; description?: string | null; status?: WebhookEndpointStatus },
  origin: ChangeOrigin,
): Promise<WebhookEndpoint> {
  const changes: Partial<WebhookEndpointsTable> = {};
  if (patch.url !== undefined) {
    changes.url = await checkWebhookUrl(patch.url, scope.environment, ctx.outboundWebhooks);
  }
  if (patch.events !== undefined) changes.events = JSON.stringify(normalizeEventTypes(patch.events));
  if (patch.description !== undefined) changes.description = patch.description;
  const now = isoNow(ctx.clock);
  const row = await inTransaction(ctx, async (trx) => {
    // Locked, so a DELETE meanwhile makes this a 404 and two changes of its status take turns.
    const current = await findEndpoint(trx, scope, id, { dialect: ctx.dialect, lock: "no key update" });
    const update = { ...changes };
    if (patch.status === "enabled" && current.status !== "enabled") {
      Object.assign(update, { status: "enabled", disabled_reason: null, failing_since: null });
    }
    const disabling = patch.status === "disabled" && current.status !== "disabled";
    if (disabling) Object.assign(update, { status: "disabled", disabled_reason: "manual" });
    if (Object.keys(update).length === 0) return current;
    const updated = await trx
      .updateTable("webhook_endpoints")
      .set({ ...update, updated_at: now })
      .where("id", "=", current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (disabling) await giveUpPendingDeliveries(trx, ctx.dialect, current.id, now);
    await recordAudit(trx, ctx.clock, {
      ...auditTarget(current, origin),
      action: "webhook.updated",
      before: webhookSnapshot(toEndpoint(current)),
      after: webhookSnapshot(toEndpoint(updated)),
    });
    return updated;
  });
  return toEndpoint(row);
}

export async function deleteEndpoint(
  ctx: AppContext,
  scope: EndpointScope,
  id: string,
  origin: ChangeOrigin,
): Promise<void> {
  await inTransaction(ctx, async (trx) => {
    let query = trx
      .deleteFrom("webhook_endpoints")
      .where("id", "=", id)
      .where("account_id", "=", scope.accountId);
    if (scope.environment) query = query.where("environment", "=", scope.environment);
    const row = await query.returningAll().executeTakeFirst();
    if (!row) throw endpointNotFound(id);
    await recordAudit(trx, ctx.clock, {
      ...auditTarget(row, origin),
      action: "webhook.deleted",
      before: webhookSnapshot(toEndpoint(row)),
    });
  });
}

/** Who changed the endpoint, and which: the audit entry's common part. */
function auditTarget(row: WebhookEndpointsTable, origin: ChangeOrigin) {
  return {
    accountId: row.account_id,
    environment: row.environment,
    origin,
    target: { type: "webhook_endpoint", id: row.id },
  } as const;
}

/**
 * Replaces the signing secret. The replaced one keeps signing too, for 24 hours, so receivers can
 * switch over without dropping a delivery; a second rotation within them drops the oldest. A
 * replaced secret sealed under an earlier DAKIYA_SECRET is dropped at once: it cannot be
 * unsealed to sign, and would fail every delivery for those 24 hours.
 */
export async function rotateSecret(
  ctx: AppContext,
  scope: Required<EndpointScope>,
  id: string,
  origin: ChangeOrigin,
): Promise<WebhookEndpoint> {
  const secret = generateWebhookSecret();
  const row = await inTransaction(ctx, async (trx) => {
    const current = await findEndpoint(trx, scope, id, { dialect: ctx.dialect, lock: "no key update" });
    const keepsSigning = opensUnder(ctx.secret, current.secret_sealed);
    // Neither secret is recorded: only that the rotation happened, by whom.
    await recordAudit(trx, ctx.clock, { ...auditTarget(current, origin), action: "webhook.secret_rotated" });
    return trx
      .updateTable("webhook_endpoints")
      .set({
        secret_sealed: seal(ctx.secret, secret),
        previous_secret_sealed: keepsSigning ? current.secret_sealed : null,
        previous_secret_expires_at: keepsSigning ? isoAfter(ctx.clock, ROTATION_OVERLAP_SECONDS) : null,
        updated_at: isoNow(ctx.clock),
      })
      .where("id", "=", current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { ...toEndpoint(row), secret };
}

function opensUnder(serverSecret: string, sealed: string): boolean {
  try {
    unseal(serverSecret, sealed);
    return true;
  } catch {
    return false;
  }
}

/**
 * The endpoint `id` of `scope`, or 404. With `lock` (in a transaction), its row stays locked until
 * the transaction ends, in that mode (see locks.ts); one deleted meanwhile is not found.
 */
export async function findEndpoint(
  db: DbOrTrx,
  scope: EndpointScope,
  id: string,
  lock?: { dialect: Dialect; lock: RowLock },
): Promise<WebhookEndpointsTable> {
  let query = db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", scope.accountId);
  if (scope.environment) query = query.where("environment", "=", scope.environment);
  if (lock) query = lockingRows(query, lock.dialect, lock.lock);
  const row = await query.executeTakeFirst();
  if (!row) throw endpointNotFound(id);
  return row;
}

/**
 * A disabled endpoint's waiting deliveries end unsent (a replay can send them again). The caller
 * holds the endpoint's row; the deliveries are locked in lock order (locks.ts).
 */
export async function giveUpPendingDeliveries(
  trx: Transaction<Database>,
  dialect: Dialect,
  endpointId: string,
  now: string,
): Promise<void> {
  const pending = trx
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("endpoint_id", "=", endpointId)
    .where("state", "=", sql.lit("pending"));
  await trx
    .updateTable("webhook_deliveries")
    .set({ state: "failed", next_attempt_at: null, lease_owner: null, lease_until: null, updated_at: now })
    .$call((update) =>
      dialect === "postgres"
        ? update.where("id", "in", pending.orderBy(lockOrder(dialect)).forNoKeyUpdate())
        : update.where("endpoint_id", "=", endpointId).where("state", "=", sql.lit("pending")),
    )
    .execute();
}

export function endpointNotFound(id: string): ApiError {
  return new ApiError("not_found", `No webhook endpoint ${id}.`);
}

export function toEndpoint(row: WebhookEndpointsTable): WebhookEndpoint {
  return {
    id: row.id,
    environment: row.environment,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
