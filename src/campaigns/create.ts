import { sql } from "kysely";
import { applyLedgerChange } from "../accounts/ledger.js";
import { recordAudit } from "../audit/record.js";
import { campaignSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { CampaignsTable } from "../db/campaign-schema.js";
import { insertRows } from "../db/prepared.js";
import type { DbOrTrx } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import { isoNow, isoTime } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { type CampaignRequest, type CheckedRecipient, checkCampaign, type RecipientError } from "./check.js";
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

  return inTransaction(ctx, async (trx) => {
    const balance = await lockedBalance(trx, ctx, campaign);
    const { cost, unpaid } = payable(checked.accepted, balance);
    for (let at = 0; at < unpaid.length; at += RECIPIENT_CHUNK) {
      await trx
        .deleteFrom("campaign_recipients")
        .where("campaign_id", "=", campaign.id)
        .where("seq", "in", unpaid.slice(at, at + RECIPIENT_CHUNK))
        .execute();
    }
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

/** The balance, locked until the transaction ends on PostgreSQL (SQLite's write transactions run one at a time). */
async function lockedBalance(trx: DbOrTrx, ctx: AppContext, campaign: CampaignsTable): Promise<number> {
  const lock = ctx.dialect === "postgres" ? sql`for update` : sql``;
  const { rows } = await sql<{ balance: number | string }>`
    select balance from balances
    where account_id = ${campaign.account_id} and environment = ${campaign.environment}
    ${lock}`.execute(trx);
  return Number(rows[0]?.balance ?? 0);
}

/** The recipients the balance pays for, in order, each if what is left covers it; the seq of the others. */
function payable(
  recipients: readonly CheckedRecipient[],
  balance: number,
): { cost: number; unpaid: number[] } {
  let left = balance;
  const unpaid: number[] = [];
  recipients.forEach((recipient, seq) => {
    if (recipient.cost <= left) left -= recipient.cost;
    else unpaid.push(seq);
  });
  return { cost: balance - left, unpaid };
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
  for (const { id } of abandoned) {
    await inTransaction(ctx, async (trx) => {
      const gone = await trx
        .deleteFrom("campaigns")
        .where("id", "=", id)
        .where("status", "=", "accepting")
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) === 1) {
        await trx.deleteFrom("campaign_recipients").where("campaign_id", "=", id).execute();
      }
    });
  }
  return abandoned.length;
}
