import { sql, type Transaction } from "kysely";
import { rowLimit } from "../db/row-limit.js";
import type { Database, Db, DbOrTrx, Dialect, EventsTable, WebhookDeliveriesTable } from "../db/schema.js";

/**
 * Takes up to `limit` events that no relay has fanned out to webhook endpoints yet, oldest first,
 * for the caller's transaction (which marks them). On PostgreSQL, relays in other workers skip
 * the rows one holds instead of waiting for them. The lock is the one the relay's mark needs (no
 * key changes): a FOR UPDATE would also block the KEY SHARE lock that a replay's new delivery
 * takes on its event, while the relay waits for that delivery's id: a deadlock.
 */
export async function claimEventsToFanOut(
  trx: Transaction<Database>,
  dialect: Dialect,
  limit: number,
): Promise<Array<Pick<EventsTable, "id" | "account_id" | "environment" | "type">>> {
  const lock = dialect === "postgres" ? sql`for no key update skip locked` : sql``;
  const result = await sql<Pick<EventsTable, "id" | "account_id" | "environment" | "type">>`
    select id, account_id, environment, type from events
    where fanned_out_at is null
    order by created_at
    limit ${rowLimit(limit)}
    ${lock}`.execute(trx);
  return result.rows;
}

/**
 * Leases due webhook deliveries to `owner`: of the `candidates` oldest due, at most `perEndpoint`
 * of any one endpoint less what `inFlight` says the worker already has of it, and none of
 * `skipEndpoints` (those it already has enough of), so one endpoint's backlog cannot fill a
 * claim. A delivery whose lease ran out is due again. `candidates` is written into the claim's
 * text (`rowLimit`): pass few distinct values (the dispatcher passes powers of two).
 */
export async function claimDueWebhookDeliveries(
  db: Db,
  dialect: Dialect,
  claim: {
    owner: string;
    now: string;
    leaseUntil: string;
    /** How many of the oldest due deliveries to choose from, and so to take at most. */
    candidates: number;
    perEndpoint: number;
    /** Requests the worker has in flight, by endpoint. */
    inFlight: ReadonlyMap<string, number>;
    skipEndpoints: string[];
  },
): Promise<Array<Pick<WebhookDeliveriesTable, "id" | "endpoint_id" | "event_id" | "attempts">>> {
  const lock = dialect === "postgres" ? sql`for update skip locked` : sql``;
  const skip =
    claim.skipEndpoints.length === 0 ? sql`` : sql`and endpoint_id not in (${sql.join(claim.skipEndpoints)})`;
  // Cast, since PostgreSQL cannot type a parameter compared only with other parameters. Bound
  // rather than inlined, so the statement's text changes only with the number of endpoints.
  const count = (n: number) => sql`cast(${n} as integer)`;
  const roomOf =
    claim.inFlight.size === 0
      ? count(claim.perEndpoint)
      : sql`case endpoint_id ${sql.join(
          [...claim.inFlight].map(
            ([id, n]) => sql`when ${id} then ${count(Math.max(0, claim.perEndpoint - n))}`,
          ),
          sql` `,
        )} else ${count(claim.perEndpoint)} end`;
  const result = await sql<Pick<WebhookDeliveriesTable, "id" | "endpoint_id" | "event_id" | "attempts">>`
    update webhook_deliveries
    set lease_owner = ${claim.owner}, lease_until = ${claim.leaseUntil}
    where id in (
      select id from (
        select id, endpoint_id, next_attempt_at,
          row_number() over (partition by endpoint_id order by next_attempt_at, id) as endpoint_rank
        from (
          select id, endpoint_id, next_attempt_at from webhook_deliveries
          where state = 'pending'
            and next_attempt_at <= ${claim.now}
            and (lease_until is null or lease_until < ${claim.now})
            ${skip}
          order by next_attempt_at
          limit ${rowLimit(claim.candidates)}
          ${lock}
        ) as candidates
      ) as ranked
      where endpoint_rank <= ${roomOf}
    )
    returning id, endpoint_id, event_id, attempts`.execute(db);
  return result.rows;
}

/**
 * The query for an endpoint besides `busy` with a due delivery that no one holds: for each
 * endpoint, one probe of the index by endpoint and next attempt. Asked by the due time alone,
 * the database would read the busy endpoints' whole backlog to find none.
 */
export function anotherEndpointWithDueDeliveries(db: DbOrTrx, now: string, busy: string[]) {
  return db
    .selectFrom("webhook_endpoints as w")
    .select("w.id")
    .where("w.id", "not in", busy)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("webhook_deliveries as d")
          .select("d.id")
          .whereRef("d.endpoint_id", "=", "w.id")
          .where("d.state", "=", sql.lit("pending"))
          .where("d.next_attempt_at", "<=", now)
          .where((inner) => inner.or([inner("d.lease_until", "is", null), inner("d.lease_until", "<", now)])),
      ),
    )
    .limit(rowLimit(1));
}
