import { isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import { analyseSms } from "../dlt/encoding.js";
import { renderTemplate } from "../dlt/placeholders.js";
import { findTemplate, senderExists, type Template } from "../dlt/registry.js";
import { checkVariableValues } from "../dlt/variables.js";
import { ApiError } from "../errors.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import type { KeyPrincipal } from "../keys/authenticate.js";
import { requireIndianMobile } from "../phone.js";
import { chargeAndQueue, type MessageView, queuedMessage, toMessageView } from "./messages.js";
import { priceOf } from "./pricing.js";
import { countSmsRecipient } from "./recipient-cap.js";

export const MAX_SEGMENTS = 10;

export interface SmsSendRequest {
  to: string;
  sender: string;
  template_id: string;
  variables?: Record<string, string>;
  reference?: string;
}

/**
 * Checks a send in the contract's order (API.md §4), renders and prices it, then debits the
 * balance, stores the message and queues it in one transaction: no message without its charge,
 * no charge without its message, and, with `record`, neither without the stored answer.
 */
export async function sendSms(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: SmsSendRequest,
  record?: RecordAnswer<MessageView>,
): Promise<MessageView> {
  const { accountId, environment } = principal;
  requireIndianMobile(request.to);
  const [senderKnown, template] = await Promise.all([
    senderExists(ctx.db, accountId, request.sender),
    findTemplate(ctx.db, accountId, request.template_id),
  ]);
  if (!senderKnown) {
    throw new ApiError(
      "unknown_sender",
      `Sender ${request.sender} is not registered for this account.`,
      "sender",
    );
  }
  if (!template) {
    throw new ApiError(
      "unknown_template",
      `Template ${request.template_id} is not registered.`,
      "template_id",
    );
  }
  if (template.status !== "active") {
    throw new ApiError("template_inactive", `Template ${request.template_id} is inactive.`, "template_id");
  }
  if (!template.senders.includes(request.sender)) {
    throw new ApiError(
      "template_sender_mismatch",
      `Template ${request.template_id} may not go out under ${request.sender}; it allows ${template.senders.join(", ")}.`,
      "sender",
    );
  }
  const variables = request.variables ?? {};
  checkVariables(template, variables, ctx.maxVariableLength);

  const text = renderTemplate(template.content, variables);
  const { encoding, segments } = analyseSms(text);
  if (segments > MAX_SEGMENTS) {
    throw new ApiError(
      "message_too_long",
      `The rendered text needs ${segments} SMS parts; at most ${MAX_SEGMENTS} are allowed.`,
      "variables",
    );
  }
  if (environment === "live" && !ctx.liveChannels.has("sms")) {
    throw new ApiError("channel_not_configured", "Live SMS is not configured on this server (no SMSC).");
  }

  const row = queuedMessage(isoNow(ctx.clock), {
    account_id: accountId,
    environment,
    channel: "sms",
    recipient: request.to,
    sender: request.sender,
    template_id: template.template_id,
    entity_id: template.entity_id,
    reference: request.reference ?? null,
    text,
    encoding,
    segments,
    cost: priceOf(ctx.prices, "sms", segments),
    sealed: null,
  });
  const view = toMessageView(row);
  await ctx.db.transaction().execute(async (trx) => {
    await countSmsRecipient(trx, ctx, principal, request.to);
    await chargeAndQueue(trx, ctx, row);
    await record?.(trx, view);
  });
  ctx.queue.notify();
  return view;
}

function checkVariables(template: Template, variables: Record<string, string>, maxLength: number): void {
  for (const name of template.placeholders) {
    if (!Object.hasOwn(variables, name)) {
      throw new ApiError("missing_variable", `The template needs variables.${name}.`, `variables.${name}`);
    }
  }
  for (const name of Object.keys(variables)) {
    if (!template.placeholders.includes(name)) {
      throw new ApiError(
        "unknown_variable",
        `The template has no placeholder {#${name}#}; it has ${template.placeholders.map((p) => `{#${p}#}`).join(", ") || "none"}.`,
        `variables.${name}`,
      );
    }
  }
  // Only once the names are right are the values looked at (API.md §4's order).
  checkVariableValues(variables, maxLength);
}
