import type { Transaction } from "kysely";
import type { Database, MessagesTable, OtpsTable } from "../db/schema.js";
import { type EventWriter, type NewEvent, recordEvent } from "../events/outbox.js";
import { isoNow } from "../lib/clock.js";
import type { OtpDetailsView } from "./types.js";
import { firstDeliveries, type OtpRow, otpView, otpViews } from "./view.js";

/*
 * The OTP events, built here whatever form the write takes: in a transaction (`recordEvent`), in
 * one flight (`eventInsert`), in a burst (`recordEvents`).
 */

type OtpEventType = "otp.sent" | "otp.verified" | "otp.failed";

/** Why an OTP ended unverified, as `otp.failed` carries it in `data.reason`. */
type OtpFailureReason = "expired" | "max_attempts_reached";

/**
 * The event of an OTP, with the OTP as `GET /v2/otp/{id}` shows it (`view`, never its code); an
 * `otp.failed` also says why, from the status the OTP ended in.
 */
export function otpEvent(type: OtpEventType, otp: OtpRow, view: OtpDetailsView): NewEvent {
  const data = type === "otp.failed" ? { ...view, reason: failureReason(otp.status) } : view;
  return { accountId: otp.account_id, environment: otp.environment, type, data };
}

/** The `otp.sent` of an OTP just made, whose deliveries are known: its first message, if it has one. */
export function newOtpSent(otp: OtpsTable, message: MessagesTable | undefined, now: string): NewEvent {
  return otpEvent("otp.sent", otp, otpView(otp, firstDeliveries(message), now));
}

/** One event per OTP, in the caller's transaction, with the deliveries it reads there. */
export async function recordOtpEvents(
  trx: Transaction<Database>,
  writer: EventWriter,
  type: OtpEventType,
  rows: OtpRow[],
): Promise<void> {
  const views = await otpViews(trx, rows, isoNow(writer.clock));
  for (const [index, view] of views.entries()) {
    await recordEvent(trx, writer, otpEvent(type, rows[index] as OtpRow, view));
  }
}

function failureReason(status: OtpsTable["status"]): OtpFailureReason {
  if (status === "expired") return "expired";
  if (status === "locked") return "max_attempts_reached";
  throw new Error(`an OTP that is ${status} has not failed`);
}
