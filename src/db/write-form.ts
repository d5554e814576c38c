import type { Dialect } from "./schema.js";

/*
 * The forms a write of a send (an SMS, a batch's item, an OTP, a verification) takes. A feature
 * writes each rule (a guarded debit, a capped count, an event) once per form, side by side in its
 * own file, and chooses the form in one place, with `writeFormOf`:
 *
 * - `transaction`: an ordinary transaction (`inTransaction`, transaction.ts), one statement after
 *   another, reading answers as it goes. The only form that can store an idempotent answer with
 *   the writes, and the one the other two fall back to when they cannot give the answer
 *   themselves (a guard refused, a conflict): it decides every case.
 * - `one_flight`: PostgreSQL. Every statement sent at once with the COMMIT behind it
 *   (postgres/one-flight.ts), in the lane of the account's other sends (postgres/flight-lanes.ts): one round trip,
 *   the shared rows locked only while the server runs it.
 * - `burst`: SQLite. The writes that arrive in one turn of the event loop run in one transaction
 *   (sqlite/transaction-bursts.ts), a few statements for all of them; a failure of that transaction
 *   fails them all.
 *
 * docs/development.md ("Write paths") lists which operation takes which form.
 */
export type WriteForm = "transaction" | "one_flight" | "burst";

/**
 * The form of a write on `dialect`. One whose answer must commit with it takes a transaction:
 * an answer stored under an Idempotency-Key, or a batch's, made of its items' outcomes as they
 * commit together.
 */
export function writeFormOf(dialect: Dialect, write: { storesAnswer: boolean }): WriteForm {
  if (write.storesAnswer) return "transaction";
  return dialect === "postgres" ? "one_flight" : "burst";
}
