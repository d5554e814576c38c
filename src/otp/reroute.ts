import type { AppContext } from "../context.js";
import type { Db, OtpsTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import type { RouteState } from "../delivery/carrier-meter.js";
import { isoAfter, isoNow } from "../lib/clock.js";
import { unseal } from "../lib/sealing.js";
import { chargeAndQueue } from "../messages/store.js";
import { otpDeliveryMessage, otpDeliveryRow, requireChannel } from "./deliveries.js";
import type { OtpSettings } from "./settings.js";

/** The latest send of an OTP on its first channel, and its copy on another route if there is one. */
export interface FirstDelivery {
  messageId: string;
  channel: OtpsTable["channel"];
  status: string;
  route: string | null;
  /** The same SMS sent again on another route; null when it was not. */
  rerouted: { messageId: string; status: string } | null;
}

export async function firstDelivery(db: Db, otpId: string): Promise<FirstDelivery | undefined> {
  const row = await db
    .selectFrom("otp_deliveries as first")
    .innerJoin("messages as message", "message.id", "first.message_id")
    .leftJoin("otp_deliveries as again", (join) =>
      join.onRef("again.otp_id", "=", "first.otp_id").onRef("again.rerouted_from", "=", "first.message_id"),
    )
    .leftJoin("messages as again_message", "again_message.id", "again.message_id")
    .select([
      "first.message_id",
      "first.channel",
      "message.status",
      "message.route",
      "again.message_id as again_id",
      "again_message.status as again_status",
    ])
    .where("first.otp_id", "=", otpId)
    .where("first.is_fallback", "=", 0)
    .where("first.rerouted_from", "is", null)
    .orderBy("first.created_at", "desc")
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    messageId: row.message_id,
    channel: row.channel,
    status: row.status,
    route: row.route,
    rerouted: row.again_id ? { messageId: row.again_id, status: row.again_status ?? "queued" } : null,
  };
}

/**
 * Whether a pending live SMS OTP whose first route has not delivered in time should go out again
 * on another route: once per send, when the message went out on a route (and no receipt said
 * delivered), and another route is bound with its circuit not open.
 */
export function shouldReroute(otp: OtpsTable, first: FirstDelivery, routes: RouteState[]): boolean {
  if (otp.environment !== "live" || otp.channel !== "sms" || first.channel !== "sms") return false;
  if (first.rerouted || first.route === null) return false;
  if (first.status !== "submitted" && first.status !== "undelivered") return false;
  return routes.some((route) => route.name !== first.route && route.bound && route.circuit !== "open");
}

/**
 * Queues the OTP's SMS again, free of charge, to go out on any route but the first one's; the
 * channel fallback, if the OTP has one, waits another `fallback_after_seconds` for it. The
 * customer paid for the first message and pays for nothing here.
 */
export async function rerouteOtpSms(
  ctx: AppContext,
  otp: OtpsTable,
  first: FirstDelivery & { route: string },
  settings: OtpSettings,
): Promise<string> {
  if (!otp.code_sealed) throw new Error(`OTP ${otp.id} has no sealed code to send again`);
  const scope = { accountId: otp.account_id, environment: otp.environment };
  const setup = await requireChannel(ctx, ctx.db, scope, "sms", settings);
  const code = unseal(ctx.secret, otp.code_sealed);
  // The copy may not outlive the OTP: the worker gives up on it when the OTP expires.
  const secondsLeft = Math.max(
    1,
    Math.floor((Date.parse(otp.expires_at) - ctx.clock.now().getTime()) / 1000),
  );
  const address = { id: otp.id, ...scope, to: otp.recipient, expiresAt: otp.expires_at };
  const message = {
    ...otpDeliveryMessage(ctx, address, setup, code, { ...settings, expiry_seconds: secondsLeft }, [
      first.route,
    ]),
    cost: 0,
  };
  await inTransaction(ctx, async (trx) => {
    await chargeAndQueue(trx, ctx, message);
    await trx
      .insertInto("otp_deliveries")
      .values({ ...otpDeliveryRow(address, message, false), rerouted_from: first.messageId })
      .execute();
    if (otp.fallback_channel) {
      await trx
        .updateTable("otps")
        .set({
          fallback_due_at: isoAfter(ctx.clock, settings.fallback_after_seconds),
          updated_at: isoNow(ctx.clock),
        })
        .where("id", "=", otp.id)
        .where("status", "=", "pending")
        .where("fallback_due_at", "is", null)
        .execute();
    }
  });
  return message.id;
}
