import { applyLedgerChange, getBalance } from "../accounts/ledger.js";
import { recordAudit } from "../audit/record.js";
import { campaignSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { CampaignsTable } from "../db/campaign-schema.js";
import { insertRows } from "../db/prepared.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import { isoNow, isoTime } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import {
  type CampaignRequest,
  type CheckedCampaign,
  type CheckedRecipient,
  checkCampaign,
  type RecipientError,
} from "./check.js";
import { type CampaignScope, type CampaignView, campaignView } from "./view.js";

/** Recipients written per statement while a campaign is accepted. */
const RECIPIENT_CHUNK = 2_000;
/** A campaign left `accepting` this long was abandoned by a crash: the maintenance sweep removes it. */
export const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/** POST /v2/campaigns's answer: the campaign, and each recipient that was refused. */
export interface CampaignAnswer extends CampaignView {
  errors: RecipientError[];
}

/**
 * Accepts a campaign (docs/campaigns.md): every recipient checked and priced (check.ts), then
 * written in chunks of short statements while the campaign is `accepting`, which nothing else
 * sees; then, in one short transaction, the balance pays for the recipients it covers (in row
 * order; the rest are refused `insufficient_balance`, as batch items are), the campaign becomes
 * `scheduled` or `sending`, and the answer is stored under the Idempotency-Key. A crash before
 * that transaction commits leaves an `accepting` campaign, never charged nor fed, which the
 * maintenance sweep deletes; after it, the whole campaign stands.
 */
export async function createCampaign(
  ctx: AppContext,
  principal: CampaignScope,
  request: CampaignRequest,
  origin: ChangeOrigin,
  record?: RecordAnswer<CampaignAnswer>,
): Promise<CampaignAnswer> {
  const checked = await checkCampaign(ctx, principal, request);
  const now = isoNow(ctx.clock);
  const campaign: CampaignsTable = {
    id: newId("cmp"),
    account_id: principal.accountId,
    environment: principal.environment,
    name: request.name,
    template_id: checked.template.template_id,
    sender: checked.sender,
    entity_id: checked.template.entity_id,
    category: checked.template.category,
    status: "accepting",
    send_at: checked.sendAt === undefined ? null : isoTime(checked.sendAt),
    messages_per_minute: request.messages_per_minute ?? null,
    recipients: request.recipients.length,
    accepted: 0,
    rejected: 0,
    cost: 0,
    refunded: 0,
    next_seq: 0,
    paced_until: null,
    capped_until: null,
    created_at: now,
    started_at: null,
    completed_at: null,
    cancelled_at: null,
    updated_at: now,
  };
  await ctx.db.insertInto("campaigns").values(campaign).execute();
  for (let at = 0; at < checked.accepted.length; at += RECIPIENT_CHUNK) {
    const chunk = checked.accepted.slice(at, at + RECIPIENT_CHUNK);
    await insertRows(
      ctx.db,
      "campaign_recipients",
      chunk.map((recipient, i) => ({ campaign_id: campaign.id, seq: at + i, ...recipient })),
    );
  }

  // The balance as read pays for the recipients it covers; those it does not are refused and
  // deleted before the charge, outside its transaction, so the balance is held only briefly. If
  // a send took some of it meanwhile, the guarded debit refuses and the rest is paid for again.
  const unpaid: number[] = [];
  for (;;) {
    const balance = await getBalance(ctx.db, campaign.account_id, campaign.environment);
    const { cost, refused } = payable(checked.accepted, new Set(unpaid), balance);
    for (let at = 0; at < refused.length; at += RECIPIENT_CHUNK) {
      await ctx.db
        .deleteFrom("campaign_recipients")
        .where("campaign_id", "=", campaign.id)
        .where("seq", "in", refused.slice(at, at + RECIPIENT_CHUNK))
        .execute();
    }
    unpaid.push(...refused);
    try {
      return await acceptCharged(ctx, campaign, checked, unpaid, cost, origin, record);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "insufficient_balance")) throw error;
    }
  }
}

/**
 * The campaign's one transaction: its charge, the campaign made `scheduled` or `sending` (it was
 * `accepting`, which nothing else sees), its audit row and the answer under the Idempotency-Key.
 */
function acceptCharged(
  ctx: AppContext,
  campaign: CampaignsTable,
  checked: CheckedCampaign,
  unpaid: readonly number[],
  cost: number,
  origin: ChangeOrigin,
  record: RecordAnswer<CampaignAnswer> | undefined,
): Promise<CampaignAnswer> {
  return inTransaction(ctx, async (trx) => {
    if (cost > 0) {
      await applyLedgerChange(trx, ctx.clock, {
        accountId: campaign.account_id,
        environment: campaign.environment,
        amount: -cost,
        reason: "campaign_charge",
        reference: campaign.id,
      });
    }
    const errors = [
      ...checked.errors,
      ...unpaid.map((seq) =>
        unpaidError(checked.rowOf[seq] as number, checked.accepted[seq] as CheckedRecipient),
      ),
    ].sort((a, b) => a.index - b.index);
    const accepted: CampaignsTable = {
      ...campaign,
      status: campaign.send_at === null ? "sending" : "scheduled",
      accepted: checked.accepted.length - unpaid.length,
      rejected: errors.length,
      cost,
      updated_at: isoNow(ctx.clock),
    };
    const updated = await trx
      .updateTable("campaigns")
      .set({
        status: accepted.status,
        accepted: accepted.accepted,
        rejected: accepted.rejected,
        cost,
        updated_at: accepted.updated_at,
      })
      .where("id", "=", campaign.id)
      .where("status", "=", "accepting")
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) {
      throw new Error(`campaign ${campaign.id} was swept away while it was being accepted`);
    }
    await recordAudit(trx, ctx.clock, {
      accountId: campaign.account_id,
      environment: campaign.environment,
      origin,
      action: "campaign.created",
      target: { type: "campaign", id: campaign.id },
      after: campaignSnapshot(accepted),
    });
    const answer: CampaignAnswer = { ...(await campaignView(trx, accepted)), errors };
    await record?.(trx, answer);
    return answer;
  });
}

/**
 * What the balance pays for: each recipient in order, but those already refused, while what is
 * left covers it. Answers their cost and the seq of the recipients it newly refuses.
 */
function payable(
  recipients: readonly CheckedRecipient[],
  refusedBefore: ReadonlySet<number>,
  balance: number,
): { cost: number; refused: number[] } {
  let left = balance;
  const refused: number[] = [];
  recipients.forEach((recipient, seq) => {
    if (refusedBefore.has(seq)) return;
    if (recipient.cost <= left) left -= recipient.cost;
    else refused.push(seq);
  });
  return { cost: balance - left, refused };
}

function unpaidError(index: number, recipient: CheckedRecipient): RecipientError {
  return {
    index,
    to: recipient.recipient,
    error: {
      code: "insufficient_balance",
      message: "The balance does not cover this recipient's message.",
    },
  };
}

/**
 * Deletes campaigns a crash left `accepting` more than ABANDONED_AFTER_MS ago, with their
 * recipients: never charged nor fed, they were never there for anyone. Returns how many.
 */
export async function purgeAbandonedCampaigns(ctx: AppContext, now: Date): Promise<number> {
  const abandoned = await ctx.db
    .selectFrom("campaigns")
    .select("id")
    .where("status", "=", "accepting")
    .where("created_at", "<", isoTime(now.getTime() - ABANDONED_AFTER_MS))
    .execute();
  let purged = 0;
  for (const { id } of abandoned) {
    purged += await inTransaction(ctx, async (trx) => {
      const gone = await trx
        .deleteFrom("campaigns")
        .where("id", "=", id)
        .where("status", "=", "accepting")
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) return 0;
      await trx.deleteFrom("campaign_recipients").where("campaign_id", "=", id).execute();
      return 1;
    });
  }
  return purged;
}
