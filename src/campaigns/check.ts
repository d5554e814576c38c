import { setImmediate } from "node:timers/promises";
import type { AppContext } from "../context.js";
import type { CampaignRecipientsTable } from "../db/campaign-schema.js";
import type { Template } from "../dlt/registry.js";
import { ApiError } from "../errors.js";
import { requireIndianMobile } from "../lib/phone.js";
import { type BatchItemError, refusal } from "../sms/batch.js";
import { ctaWhitelistFor, prepareSendable, readSendRegistry, requireSendable } from "../sms/send.js";
import { scheduledTime } from "../sms/timing.js";
import type { CampaignScope } from "./view.js";

export const MAX_CAMPAIGN_RECIPIENTS = 100_000;
const CHECK_SLICE = 2_000;
/** The campaign routes' body limit: 100,000 recipients with their variables. */
export const CAMPAIGN_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

export interface CampaignRecipient {
  to: string;
  variables?: Record<string, string>;
  reference?: string;
}

export interface CampaignRequest {
  name: string;
  template_id: string;
  sender: string;
  send_at?: string;
  messages_per_minute?: number;
  recipients: CampaignRecipient[];
}

/** A recipient that cannot be sent: its row (from 0), its number as given, and why. */
export interface RecipientError extends BatchItemError {
  index: number;
  to: string;
}

/** A recipient that passed every check, rendered and priced, as it waits to be fed into the queue. */
export type CheckedRecipient = Omit<CampaignRecipientsTable, "campaign_id" | "seq">;

export interface CheckedCampaign {
  template: Template;
  /** The sender as headers are registered (upper case). */
  sender: string;
  sendAt: number | undefined;
  accepted: CheckedRecipient[];
  /** Each accepted recipient's row in the request. */
  rowOf: number[];
  errors: RecipientError[];
  /** What the accepted recipients cost together, in 1/10,000 INR. */
  cost: number;
}

/**
 * Checks a campaign as POST /v2/sms/batch checks its items (send.ts's rules, in its order), each
 * recipient on its own: a bad row is reported with its index and skipped, never stops the rest.
 * What every row shares — the sender, the template, send_at, a live SMS channel — is checked once
 * and refuses the whole request. A number already given in an earlier row is refused, so a list
 * with duplicates does not pay twice. Reads the registry once; writes nothing.
 */
export async function checkCampaign(
  ctx: AppContext,
  principal: CampaignScope,
  request: CampaignRequest,
): Promise<CheckedCampaign> {
  const sender = request.sender.toUpperCase();
  const sendAt =
    request.send_at === undefined ? undefined : scheduledTime(request.send_at, ctx.clock.now().getTime());
  const registry = await readSendRegistry(ctx, principal.accountId, sender, request.template_id);
  const template = requireSendable({ sender, template_id: request.template_id }, registry);
  if (principal.environment === "live" && !ctx.liveChannels.has("sms")) {
    throw new ApiError("channel_not_configured", "Live SMS is not configured on this server (no SMSC).");
  }
  const cta = await ctaWhitelistFor(ctx, principal.accountId, [template]);

  const accepted: CheckedRecipient[] = [];
  const rowOf: number[] = [];
  const errors: RecipientError[] = [];
  const firstRowOf = new Map<string, number>();
  let cost = 0;
  for (const [index, recipient] of request.recipients.entries()) {
    // A long list is checked in slices, so the server answers other requests meanwhile.
    if (index > 0 && index % CHECK_SLICE === 0) await setImmediate();
    try {
      requireIndianMobile(recipient.to);
      const earlier = firstRowOf.get(recipient.to);
      if (earlier !== undefined) {
        throw new ApiError(
          "invalid_request",
          `${recipient.to} appears earlier in the list (recipients[${earlier}]); a campaign sends to each number once.`,
          "to",
        );
      }
      const { row } = prepareSendable(
        ctx,
        principal,
        { ...recipient, sender, template_id: template.template_id, priority: "bulk" },
        template,
        cta,
        true,
      );
      firstRowOf.set(recipient.to, index);
      accepted.push({
        recipient: row.recipient,
        reference: row.reference,
        text: row.text,
        encoding: row.encoding,
        segments: row.segments,
        cost: row.cost,
      });
      rowOf.push(index);
      cost += row.cost;
    } catch (error) {
      errors.push({ index, to: recipient.to, ...refusal(error) });
    }
  }
  return { template, sender, sendAt, accepted, rowOf, errors, cost };
}
