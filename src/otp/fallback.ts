import { sql } from "kysely";
import { isBfsiAccount } from "../accounts/update.js";
import type { AppContext } from "../context.js";
import { rowLimit } from "../db/row-limit.js";
import { inTransaction } from "../db/transaction.js";
import type { RouteState } from "../delivery/carrier-meter.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { unseal } from "../lib/sealing.js";
import { queueOtpDelivery, requireChannel } from "./deliveries.js";
import { recordOtpEvents } from "./events.js";
import { firstDelivery, rerouteOtpSms, shouldReroute } from "./reroute.js";
import { getOtpSettings } from "./settings.js";
import { requireVoiceCallerId } from "./voice-caller-id.js";

/**
 * At each pending OTP's deadline, unless its first send reported delivery: a live SMS that went
 * out on one route goes out again on another, free (docs/routes.md), and the channel fallback
 * waits one more deadline for it; otherwise the fallback channel gets the same code, once,
 * charged like any send. `smsRoutes` are the SMS carrier's routes now. Returns how many went out.
 */
export async function sendDueFallbacks(
  ctx: AppContext,
  options: { smsRoutes?: () => RouteState[] } = {},
  limit = 50,
): Promise<number> {
  const now = isoNow(ctx.clock);
  const due = await ctx.db
    .selectFrom("otps")
    .selectAll()
    .where("fallback_due_at", "<=", now)
    .where("status", "=", sql.lit("pending"))
    .orderBy("fallback_due_at")
    .limit(rowLimit(limit))
    .execute();
  let sent = 0;
  for (const otp of due) {
    // Claim it first: whatever happens next, a fallback is tried once.
    const claimed = await ctx.db
      .updateTable("otps")
      .set({ fallback_due_at: null, updated_at: now })
      .where("id", "=", otp.id)
      .where("fallback_due_at", "=", otp.fallback_due_at)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1 || !otp.code_sealed) continue;
    const first = await firstDelivery(ctx.db, otp.id);
    if (first?.status === "delivered" || first?.rerouted?.status === "delivered") continue;
    const scope = { accountId: otp.account_id, environment: otp.environment };
    if (first?.route && shouldReroute(otp, first, options.smsRoutes?.() ?? [])) {
      try {
        const settings = await getOtpSettings(ctx.db, otp.account_id, otp.environment);
        await rerouteOtpSms(ctx, otp, { ...first, route: first.route }, settings);
        sent += 1;
        ctx.metrics.otpSent("sms", otp.environment, "reroute");
        ctx.metrics.messagesAccepted("sms", otp.environment);
        continue;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        ctx.log.warn({ otp_id: otp.id, code: error.code }, "OTP not sent again on another route");
      }
    }
    if (!otp.fallback_channel) continue;
    try {
      const settings = await getOtpSettings(ctx.db, otp.account_id, otp.environment);
      const setup = await requireChannel(ctx, ctx.db, scope, otp.fallback_channel, settings);
      if (setup.channel === "voice") {
        requireVoiceCallerId(ctx, settings.voice_caller_id, await isBfsiAccount(ctx.db, otp.account_id));
      }
      const code = unseal(ctx.secret, otp.code_sealed);
      await inTransaction(ctx, async (trx) => {
        await queueOtpDelivery(
          trx,
          ctx,
          { id: otp.id, ...scope, to: otp.recipient, expiresAt: otp.expires_at },
          setup,
          code,
          settings,
          true,
        );
        await recordOtpEvents(trx, ctx, "otp.sent", [otp]);
      });
      sent += 1;
      ctx.metrics.otpSent(setup.channel, otp.environment, "fallback");
      ctx.metrics.messagesAccepted(setup.channel, otp.environment);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      ctx.log.warn({ otp_id: otp.id, code: error.code }, "OTP fallback not sent");
    }
  }
  if (sent > 0) ctx.queue.notify();
  return sent;
}
