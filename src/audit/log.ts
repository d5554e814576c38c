import { rowLimit } from "../db/row-limit.js";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { ApiError } from "../errors.js";
import type { SnapshotValue } from "./types.js";

/** An audit row as the console, the dashboard API and the CLI show it. */
export interface AuditRecord {
  id: string;
  created_at: string;
  actor: { type: string; id: string | null; label: string | null };
  action: string;
  target: { type: string; id: string | null };
  environment: Environment | null;
  client_address: string | null;
  before: Record<string, SnapshotValue> | null;
  after: Record<string, SnapshotValue> | null;
}

export interface AuditFilter {
  /** An exact action (`key.created`), or a target's every action (`key`, `webhook`). */
  action?: string | undefined;
  /** `member`, `key` or `cli`; or an actor's id or email. */
  actor?: string | undefined;
  /** A target type (`api_key`) or a target's id (`key_…`, a DLT template id). */
  target?: string | undefined;
  /** RFC 3339: rows at or after it. */
  createdAfter?: string | undefined;
  /** RFC 3339: rows before it. */
  createdBefore?: string | undefined;
  /** The last row of the page before: this page starts after it. */
  startingAfter?: string | undefined;
  limit: number;
}

export const MAX_AUDIT_PAGE = 100;

/** One page of an account's audit log, newest first. Rows of other accounts are never read. */
export async function listAuditLog(
  db: DbOrTrx,
  accountId: string,
  filter: AuditFilter,
): Promise<{ data: AuditRecord[]; has_more: boolean }> {
  let query = db.selectFrom("audit_log").selectAll().where("account_id", "=", accountId);
  if (filter.startingAfter !== undefined) {
    const cursor = await db
      .selectFrom("audit_log")
      .select(["created_at", "id"])
      .where("account_id", "=", accountId)
      .where("id", "=", filter.startingAfter)
      .executeTakeFirst();
    if (!cursor) {
      throw new ApiError(
        "invalid_request",
        `No audit entry ${filter.startingAfter} to page from.`,
        "starting_after",
      );
    }
    query = query.where((eb) =>
      eb.or([
        eb("created_at", "<", cursor.created_at),
        eb.and([eb("created_at", "=", cursor.created_at), eb("id", "<", cursor.id)]),
      ]),
    );
  }
  const { action, actor, target } = filter;
  if (action !== undefined && action !== "") {
    query = action.includes(".")
      ? query.where("action", "=", action)
      : // Every action starting `<action>.`: '/' is the character after '.'.
        query.where("action", ">", `${action}.`).where("action", "<", `${action}/`);
  }
  if (actor !== undefined && actor !== "") {
    query = query.where((eb) =>
      eb.or([
        eb("actor_type", "=", actor as never),
        eb("actor_id", "=", actor),
        eb("actor_label", "=", actor),
      ]),
    );
  }
  if (target !== undefined && target !== "") {
    query = query.where((eb) => eb.or([eb("target_type", "=", target), eb("target_id", "=", target)]));
  }
  if (filter.createdAfter !== undefined) query = query.where("created_at", ">=", filter.createdAfter);
  if (filter.createdBefore !== undefined) query = query.where("created_at", "<", filter.createdBefore);
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(rowLimit(filter.limit + 1))
    .execute();
  return {
    data: rows.slice(0, filter.limit).map((row) => ({
      id: row.id,
      created_at: row.created_at,
      actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
      action: row.action,
      target: { type: row.target_type, id: row.target_id },
      environment: row.environment,
      client_address: row.client_address,
      before: row.before === null ? null : JSON.parse(row.before),
      after: row.after === null ? null : JSON.parse(row.after),
    })),
    has_more: rows.length > filter.limit,
  };
}
