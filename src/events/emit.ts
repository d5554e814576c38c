import type { Transaction } from "kysely";
import { isoNow } from "../clock.js";
import type { Database, OtpsTable } from "../db/schema.js";
import { type OtpRow, otpViews } from "../otp/view.js";
import { type EventWriter, recordEvent } from "./outbox.js";

export type OtpEventType = "otp.sent" | "otp.verified" | "otp.failed";

/** Why an OTP ended unverified, as `otp.failed` carries it in `data.reason`. */
export type OtpFailureReason = "expired" | "max_attempts_reached";

/**
 * One event per OTP, each with the OTP as `GET /v2/otp/{id}` shows it (never its code); an
 * `otp.failed` also says why, from the status the OTP ended in.
 */
export async function recordOtpEvents(
  trx: Transaction<Database>,
  writer: EventWriter,
  type: OtpEventType,
  rows: OtpRow[],
): Promise<void> {
  const views = await otpViews(trx, rows, isoNow(writer.clock));
  for (const [index, view] of views.entries()) {
    const row = rows[index] as (typeof rows)[number];
    const data = type === "otp.failed" ? { ...view, reason: failureReason(row.status) } : view;
    await recordEvent(trx, writer, { accountId: row.account_id, environment: row.environment, type, data });
  }
}

function failureReason(status: OtpsTable["status"]): OtpFailureReason {
  if (status === "expired") return "expired";
  if (status === "locked") return "max_attempts_reached";
  throw new Error(`an OTP that is ${status} has not failed`);
}
