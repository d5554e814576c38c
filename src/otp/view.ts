import type { AppContext } from "../context.js";
import { prepareQuery } from "../db/prepared.js";
import type { DbOrTrx, Environment, MessagesTable, OtpsTable } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import type { OtpDetailsView } from "./types.js";

export type OtpRow = Pick<
  OtpsTable,
  | "id"
  | "status"
  | "environment"
  | "recipient"
  | "channel"
  | "expires_at"
  | "attempts"
  | "max_attempts"
  | "sends"
  | "created_at"
  | "account_id"
>;

/** GET /v2/otp/{id}: an OTP of the key's account and environment. */
export async function getOtp(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  id: string,
): Promise<OtpDetailsView> {
  const otp = await ctx.db
    .selectFrom("otps")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .executeTakeFirst();
  if (!otp) throw new ApiError("not_found", `No OTP ${id}.`, "id");
  const [view] = await otpViews(ctx.db, [otp], isoNow(ctx.clock));
  return view as OtpDetailsView;
}

/**
 * The views of OTP rows, with their deliveries read in one query (in the caller's transaction,
 * so an event shows the delivery queued with it). A pending OTP past its expiry shows `expired`.
 */
export async function otpViews(db: DbOrTrx, rows: OtpRow[], now: string): Promise<OtpDetailsView[]> {
  if (rows.length === 0) return [];
  // One OTP (an event of a verification) is the common case: its query is compiled once.
  const deliveries =
    rows.length === 1
      ? (await deliveriesOfOne.execute(db, { otpId: (rows[0] as OtpRow).id })).rows
      : await selectDeliveries(db)
          .where(
            "otp_deliveries.otp_id",
            "in",
            rows.map((row) => row.id),
          )
          .execute();
  return rows.map((otp) =>
    otpView(
      otp,
      deliveries
        .filter((d) => d.otp_id === otp.id)
        .map((d) => ({
          message_id: d.message_id,
          channel: d.channel,
          fallback: d.is_fallback === 1,
          status: d.status,
          created_at: d.created_at,
        })),
      now,
    ),
  );
}

function selectDeliveries(db: DbOrTrx) {
  return db
    .selectFrom("otp_deliveries")
    .innerJoin("messages", "messages.id", "otp_deliveries.message_id")
    .select([
      "otp_deliveries.otp_id",
      "otp_deliveries.message_id",
      "otp_deliveries.channel",
      "otp_deliveries.is_fallback",
      "otp_deliveries.created_at",
      "messages.status",
    ])
    .orderBy("otp_deliveries.created_at")
    .orderBy("otp_deliveries.is_fallback");
}

type DeliveryRow = Awaited<ReturnType<ReturnType<typeof selectDeliveries>["execute"]>>[number];

const deliveriesOfOne = prepareQuery<{ otpId: string }, DeliveryRow>((db, param) =>
  selectDeliveries(db).where("otp_deliveries.otp_id", "=", param("otpId")),
);

/** The view of an OTP whose deliveries are known. */
/** The deliveries of an OTP just made: its first message, if it has one. */
export function firstDeliveries(
  message: Pick<MessagesTable, "id" | "channel" | "status" | "created_at"> | undefined,
): OtpDetailsView["deliveries"] {
  return message
    ? [
        {
          message_id: message.id,
          channel: message.channel,
          fallback: false,
          status: message.status,
          created_at: message.created_at,
        },
      ]
    : [];
}

export function otpView(otp: OtpRow, deliveries: OtpDetailsView["deliveries"], now: string): OtpDetailsView {
  return {
    id: otp.id,
    status: otp.status === "pending" && otp.expires_at <= now ? "expired" : otp.status,
    environment: otp.environment,
    to: otp.recipient,
    channel: otp.channel,
    expires_at: otp.expires_at,
    attempts_remaining: Math.max(0, otp.max_attempts - otp.attempts),
    sends: otp.sends,
    created_at: otp.created_at,
    deliveries,
  };
}
