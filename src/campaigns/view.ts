import { sql } from "kysely";
import type { AppContext } from "../context.js";
import type { CampaignStatus, CampaignsTable } from "../db/campaign-schema.js";
import { rowLimit } from "../db/row-limit.js";
import type { DbOrTrx, Environment, MessageStatus } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { formatInr } from "../lib/money.js";

export type CampaignScope = { accountId: string; environment: Environment };

/** Where a campaign's recipients are: waiting to be fed into the queue, or as their message is. */
export type CampaignCounts = Record<"pending" | MessageStatus, number>;

/** A campaign as the API shows it (docs/campaigns.md). */
export interface CampaignView {
  id: string;
  name: string;
  status: Exclude<CampaignStatus, "accepting">;
  environment: Environment;
  template_id: string;
  sender: string;
  send_at: string | null;
  messages_per_minute: number | null;
  recipients: number;
  accepted: number;
  rejected: number;
  counts: CampaignCounts;
  /** Share of the accepted recipients handed to a carrier or ended, 0 to 1. */
  progress: number;
  cost: string;
  refunded: string;
  currency: "INR";
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
}

const MESSAGE_STATUSES: readonly MessageStatus[] = [
  "scheduled",
  "queued",
  "submitted",
  "delivered",
  "undelivered",
  "failed",
  "cancelled",
];

/** A campaign as the API shows it, its counts and refunds read from its messages (`campaignViews`). */
export async function campaignView(db: DbOrTrx, campaign: CampaignsTable): Promise<CampaignView> {
  const [view] = await campaignViews(db, [campaign]);
  return view as CampaignView;
}

/**
 * Campaigns as the API shows them, in order: their messages counted by status through the
 * partial campaign index, and those messages' refunds (only messages that did not go out or were
 * not delivered have any), each in one query for all of them.
 */
export async function campaignViews(
  db: DbOrTrx,
  campaigns: readonly CampaignsTable[],
): Promise<CampaignView[]> {
  if (campaigns.length === 0) return [];
  const ids = campaigns.map((campaign) => campaign.id);
  const [byStatus, refunds] = await Promise.all([
    db
      .selectFrom("messages")
      .select(["campaign_id", "status", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("campaign_id", "in", ids)
      .groupBy(["campaign_id", "status"])
      .execute(),
    sql<{ campaign_id: string; total: number | string | null }>`
      select m.campaign_id, sum(l.amount) as total
      from messages m join ledger_entries l on l.reference = m.id and l.reason = 'sms_refund'
      where m.campaign_id in (${sql.join(ids)}) and m.status in ('failed', 'cancelled', 'undelivered')
      group by m.campaign_id`.execute(db),
  ]);
  const refundOf = new Map(refunds.rows.map((row) => [row.campaign_id, Number(row.total ?? 0)]));
  return campaigns.map((campaign) =>
    toCampaignView(
      campaign,
      byStatus.filter((row) => row.campaign_id === campaign.id),
      refundOf.get(campaign.id) ?? 0,
    ),
  );
}

function toCampaignView(
  campaign: CampaignsTable,
  byStatus: ReadonlyArray<{ status: MessageStatus; n: number | string }>,
  messageRefunds: number,
): CampaignView {
  const counts = Object.fromEntries([
    ["pending", 0],
    ...MESSAGE_STATUSES.map((s) => [s, 0]),
  ]) as CampaignCounts;
  let messages = 0;
  for (const { status, n } of byStatus) {
    counts[status] = Number(n);
    messages += Number(n);
  }
  // Recipients not fed into the queue: still waiting, or given back by a cancel.
  const unfed = campaign.accepted - messages;
  if (campaign.status === "cancelled") counts.cancelled += unfed;
  else counts.pending = unfed;
  const waiting = counts.pending + counts.scheduled + counts.queued;
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status === "accepting" ? "scheduled" : campaign.status,
    environment: campaign.environment,
    template_id: campaign.template_id,
    sender: campaign.sender,
    send_at: campaign.send_at,
    messages_per_minute: campaign.messages_per_minute,
    recipients: campaign.recipients,
    accepted: campaign.accepted,
    rejected: campaign.rejected,
    counts,
    progress: campaign.accepted === 0 ? 1 : Math.round((1 - waiting / campaign.accepted) * 10_000) / 10_000,
    cost: formatInr(Number(campaign.cost)),
    refunded: formatInr(Number(campaign.refunded) + messageRefunds),
    currency: "INR",
    created_at: campaign.created_at,
    started_at: campaign.started_at,
    completed_at: campaign.completed_at,
    cancelled_at: campaign.cancelled_at,
  };
}

/** A campaign of this account and environment; anything else, or one still being accepted, is `not_found`. */
export async function findCampaign(db: DbOrTrx, scope: CampaignScope, id: string): Promise<CampaignsTable> {
  const campaign = await db
    .selectFrom("campaigns")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .where("status", "!=", "accepting")
    .executeTakeFirst();
  if (!campaign) throw new ApiError("not_found", `No campaign ${id}.`, "id");
  return campaign;
}

export async function getCampaign(ctx: AppContext, scope: CampaignScope, id: string): Promise<CampaignView> {
  return campaignView(ctx.db, await findCampaign(ctx.db, scope, id));
}

export interface CampaignListFilter {
  status?: Exclude<CampaignStatus, "accepting"> | undefined;
  /** The id of the last campaign of the previous page. */
  starting_after?: string | undefined;
  limit: number;
}

/** One page of the environment's campaigns, newest first, paged by (created_at, id) as GET /v2/sms is. */
export async function listCampaigns(
  ctx: AppContext,
  scope: CampaignScope,
  filter: CampaignListFilter,
): Promise<{ data: CampaignView[]; has_more: boolean }> {
  let query = ctx.db
    .selectFrom("campaigns")
    .selectAll()
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .where("status", "!=", "accepting");
  if (filter.status !== undefined) query = query.where("status", "=", filter.status);
  if (filter.starting_after !== undefined) {
    const cursor = await findCampaign(ctx.db, scope, filter.starting_after).catch(() => {
      throw new ApiError("not_found", `No campaign ${filter.starting_after} to page from.`, "starting_after");
    });
    query = query.where((eb) =>
      eb(eb.refTuple("created_at", "id"), "<", eb.tuple(cursor.created_at, cursor.id)),
    );
  }
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(rowLimit(filter.limit + 1))
    .execute();
  const page = rows.slice(0, filter.limit);
  return {
    data: await campaignViews(ctx.db, page),
    has_more: rows.length > filter.limit,
  };
}
