import type { AppContext } from "../context.js";
import { commitInLane, sendLane } from "../db/flight-lanes.js";
import { debitWithLedgerEntry, FlightRefused, statementOf } from "../db/one-flight.js";
import type { MessagesTable } from "../db/schema.js";
import { newId } from "../ids.js";
import { insertMessage } from "./messages.js";
import { countSmsRecipientInFlight } from "./recipient-cap.js";

/**
 * PostgreSQL: a checked and priced send's writes (its recipient counted under the hourly cap,
 * the message queued, the charge with its ledger entry) in one round trip (src/db/one-flight.ts).
 * Answers false, having written nothing, on SQLite or when the cap or the balance refused: the
 * caller's transaction then runs, and gives the error it has always given.
 */
export async function queueSmsInOneFlight(ctx: AppContext, row: MessagesTable): Promise<boolean> {
  if (ctx.dialect !== "postgres") return false;
  const scope = { accountId: row.account_id, environment: row.environment };
  const own = [statementOf(insertMessage.compile(ctx.db, row))];
  // The rows every send of the account shares: locked only until the COMMIT behind them, and
  // once by a shared flight (src/db/flight-lanes.ts).
  const shared = [countSmsRecipientInFlight(ctx, scope, row.recipient)];
  if (row.cost > 0) {
    shared.push(
      debitWithLedgerEntry({
        id: newId("led"),
        accountId: row.account_id,
        environment: row.environment,
        amount: row.cost,
        reason: `${row.channel}_charge`,
        reference: row.id,
        createdAt: row.created_at,
      }),
    );
  }
  try {
    await commitInLane(ctx.db, sendLane(scope, row.recipient), { own, shared });
    return true;
  } catch (error) {
    if (error instanceof FlightRefused) return false;
    throw error;
  }
}
