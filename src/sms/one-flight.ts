import { chargeInOneFlight, chargeOf } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import { commitInLane, sendLane } from "../db/flight-lanes.js";
import { FlightRefused, statementOf } from "../db/one-flight.js";
import type { MessagesTable } from "../db/schema.js";
import { transactionConflictOf } from "../db/transaction.js";
import { insertMessage } from "./messages.js";
import { countSmsRecipientInFlight } from "./recipient-cap.js";

/**
 * PostgreSQL: a checked and priced send's writes (its recipient counted under the hourly cap,
 * the message queued, the charge with its ledger entry) in one round trip (src/db/one-flight.ts),
 * taking their rows in the lock order (src/accounts/ledger.ts). Answers false, having written
 * nothing, on SQLite, when the cap or the balance refused, or when PostgreSQL aborted the flight
 * for a conflict: the caller's transaction then runs, and gives the answer it has always given.
 */
export async function queueSmsInOneFlight(ctx: AppContext, row: MessagesTable): Promise<boolean> {
  if (ctx.dialect !== "postgres") return false;
  const scope = { accountId: row.account_id, environment: row.environment };
  const recipient = countSmsRecipientInFlight(ctx, scope, row.recipient);
  const debit = row.cost > 0 ? chargeInOneFlight(scope, chargeOf(row), row.created_at) : undefined;
  try {
    await commitInLane(ctx, sendLane(scope, row.recipient), {
      own: [statementOf(insertMessage.compile(ctx.db, row)), recipient.claim],
      counters: [recipient.count],
      debit,
    });
    return true;
  } catch (error) {
    if (error instanceof FlightRefused || transactionConflictOf(error)) return false;
    throw error;
  }
}
