import type { DbOrTrx } from "../db/schema.js";
import { type Clock, isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { AuditActor, AuditEntry } from "./types.js";

/**
 * Writes one audit row for a change, in the transaction that makes the change (`trx`), so the
 * change and its record commit or roll back together.
 */
export async function recordAudit(trx: DbOrTrx, clock: Clock, entry: AuditEntry): Promise<void> {
  const { actor, clientAddress } = entry.origin;
  await trx
    .insertInto("audit_log")
    .values({
      id: newId("aud"),
      account_id: entry.accountId,
      environment: entry.environment,
      actor_type: actor.type,
      actor_id: actorId(actor),
      actor_label: actor.type === "member" ? actor.email : null,
      action: entry.action,
      target_type: entry.target.type,
      target_id: entry.target.id,
      client_address: clientAddress,
      before: entry.before ? JSON.stringify(entry.before) : null,
      after: entry.after ? JSON.stringify(entry.after) : null,
      created_at: isoNow(clock),
    })
    .execute();
}

function actorId(actor: AuditActor): string | null {
  return actor.type === "cli" ? null : actor.id;
}
