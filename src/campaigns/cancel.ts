import { applyLedgerChange } from "../accounts/ledger.js";
import { recordAudit } from "../audit/record.js";
import { campaignSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { MessagesTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import { isoNow } from "../lib/clock.js";
import { recordMessageEvents } from "../messages/events.js";
import { cancellable, cancelledColumns } from "../sms/cancel.js";
import { type CampaignScope, type CampaignView, campaignView, findCampaign } from "./view.js";

/**
 * Cancels a scheduled or sending campaign (docs/campaigns.md): the recipients not yet fed and
 * its messages no delivery has taken (by the rule of POST /v2/sms/{id}/cancel, each with
 * `sms.cancelled`) end, and what they cost comes back in one `campaign_refund`, all in one
 * transaction. Messages already handed to a carrier, or being handed, go on. It takes the
 * campaign's row first, then its messages, then the balance: the order of the feed (campaign
 * first) and of deliveries (message, then balance), so none of them can deadlock with it.
 */
export async function cancelCampaign(
  ctx: AppContext,
  scope: CampaignScope,
  id: string,
  origin: ChangeOrigin,
  record?: RecordAnswer<CampaignView>,
): Promise<CampaignView> {
  const cancelled = await inTransaction(ctx, async (trx) => {
    const now = isoNow(ctx.clock);
    const campaign = await trx
      .updateTable("campaigns")
      .set({ status: "cancelled", cancelled_at: now, updated_at: now })
      .where("id", "=", id)
      .where("account_id", "=", scope.accountId)
      .where("environment", "=", scope.environment)
      .where("status", "in", ["scheduled", "sending"])
      .returningAll()
      .executeTakeFirst();
    if (!campaign) return undefined;

    const messages: MessagesTable[] = await trx
      .updateTable("messages")
      .set(cancelledColumns(now))
      .where("campaign_id", "=", campaign.id)
      .where((eb) => cancellable(eb, now))
      .returningAll()
      .execute();
    await recordMessageEvents(
      trx,
      ctx,
      messages.map((row) => ({ type: "sms.cancelled" as const, row, carrierMessageIds: [] })),
    );
    const unfed = await trx
      .deleteFrom("campaign_recipients")
      .where("campaign_id", "=", campaign.id)
      .returning("cost")
      .execute();
    const refund =
      unfed.reduce((sum, recipient) => sum + Number(recipient.cost), 0) +
      messages.reduce((sum, message) => sum + Number(message.cost), 0);
    if (refund > 0) {
      await applyLedgerChange(trx, ctx.clock, {
        accountId: campaign.account_id,
        environment: campaign.environment,
        amount: refund,
        reason: "campaign_refund",
        reference: campaign.id,
      });
    }
    await trx.updateTable("campaigns").set({ refunded: refund }).where("id", "=", campaign.id).execute();
    await recordAudit(trx, ctx.clock, {
      accountId: campaign.account_id,
      environment: campaign.environment,
      origin,
      action: "campaign.cancelled",
      target: { type: "campaign", id: campaign.id },
      before: campaignSnapshot(campaign),
    });
    const view = await campaignView(trx, { ...campaign, refunded: refund });
    await record?.(trx, view);
    return view;
  });
  if (cancelled) return cancelled;
  const campaign = await findCampaign(ctx.db, scope, id);
  throw new ApiError(
    "not_cancellable",
    `Campaign ${campaign.id} is already ${campaign.status}: there is nothing left to cancel.`,
    "id",
  );
}
