import type { Transaction } from "kysely";
import { isoNow } from "../clock.js";
import type { Database, Dialect, MessagesTable, OtpsTable } from "../db/schema.js";
import type { FinalStatus, Metrics } from "../metrics/metrics.js";
import { type OtpRow, otpViews } from "../otp/view.js";
import { toMessageView } from "../sms/messages.js";
import { type EventWriter, recordEvent, recordEvents } from "./outbox.js";

export type MessageEventType = "sms.submitted" | "sms.delivered" | "sms.undelivered" | "sms.failed";
export type OtpEventType = "otp.sent" | "otp.verified" | "otp.failed";

/** Why an OTP ended unverified, as `otp.failed` carries it in `data.reason`. */
export type OtpFailureReason = "expired" | "max_attempts_reached";

const FINAL_STATUS_OF: Partial<Record<MessageEventType, FinalStatus>> = {
  "sms.delivered": "delivered",
  "sms.undelivered": "undelivered",
  "sms.failed": "failed",
};

/**
 * A message's status change, with the message as `GET /v2/sms/{id}` shows it after the change.
 * Every change of a message to a final status comes through here, so it is counted here too.
 */
export async function recordMessageEvent(
  trx: Transaction<Database>,
  writer: EventWriter & { metrics: Metrics },
  type: MessageEventType,
  row: MessagesTable,
  carrierMessageIds: string[],
): Promise<void> {
  await recordEvent(trx, writer, {
    accountId: row.account_id,
    environment: row.environment,
    type,
    data: toMessageView(row, carrierMessageIds),
  });
  const finalStatus = FINAL_STATUS_OF[type];
  if (finalStatus) writer.metrics.messageFinished(row.channel, row.environment, finalStatus);
}

/** Several messages' status changes, in order, in multi-row inserts (`recordEvents`). */
export async function recordMessageEvents(
  trx: Transaction<Database>,
  writer: EventWriter & { metrics: Metrics; dialect: Dialect },
  changes: ReadonlyArray<{ type: MessageEventType; row: MessagesTable; carrierMessageIds: string[] }>,
): Promise<void> {
  await recordEvents(
    trx,
    writer,
    changes.map(({ type, row, carrierMessageIds }) => ({
      accountId: row.account_id,
      environment: row.environment,
      type,
      data: toMessageView(row, carrierMessageIds),
    })),
  );
  for (const { type, row } of changes) {
    const finalStatus = FINAL_STATUS_OF[type];
    if (finalStatus) writer.metrics.messageFinished(row.channel, row.environment, finalStatus);
  }
}

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
