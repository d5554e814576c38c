import { sql } from "kysely";
import { isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { recordOtpEvents } from "../events/emit.js";
import { unseal } from "./codes.js";
import { queueOtpDelivery, requireChannel } from "./deliveries.js";
import { getOtpSettings } from "./settings.js";

/**
 * Sends the fallback of every pending OTP whose first channel has not reported delivery by its
 * deadline: the same code, once, charged like any send. Returns how many went out.
 */
export async function sendDueFallbacks(ctx: AppContext, limit = 50): Promise<number> {
  const now = isoNow(ctx.clock);
  const due = await ctx.db
    .selectFrom("otps")
    .selectAll()
    .where("fallback_due_at", "<=", now)
    .where("status", "=", sql.lit("pending"))
    .orderBy("fallback_due_at")
    .limit(limit)
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
    if (Number(claimed.numUpdatedRows) !== 1 || !otp.fallback_channel || !otp.code_sealed) continue;
    const first = await ctx.db
      .selectFrom("otp_deliveries")
      .innerJoin("messages", "messages.id", "otp_deliveries.message_id")
      .select("messages.status")
      .where("otp_deliveries.otp_id", "=", otp.id)
      .where("otp_deliveries.is_fallback", "=", 0)
      .orderBy("otp_deliveries.created_at", "desc")
      .executeTakeFirst();
    if (first?.status === "delivered") continue;
    const scope = { accountId: otp.account_id, environment: otp.environment };
    try {
      const settings = await getOtpSettings(ctx.db, otp.account_id, otp.environment);
      const setup = await requireChannel(ctx, ctx.db, scope, otp.fallback_channel, settings);
      const code = unseal(ctx.secret, otp.code_sealed);
      await ctx.db.transaction().execute(async (trx) => {
        await queueOtpDelivery(
          trx,
          ctx,
          { id: otp.id, ...scope, to: otp.recipient },
          setup,
          code,
          settings,
          true,
        );
        await recordOtpEvents(trx, ctx, "otp.sent", [otp]);
      });
      sent += 1;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      ctx.log.warn({ otp_id: otp.id, code: error.code }, "OTP fallback not sent");
    }
  }
  if (sent > 0) ctx.queue.notify();
  return sent;
}
