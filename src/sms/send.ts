import type { AppContext } from "../context.js";
import { readTogether } from "../db/read-together.js";
import type { Environment } from "../db/schema.js";
import { type CtaWhitelist, hasCtaSlot, requireWhitelistedCtas } from "../dlt/cta/match.js";
import { readCtaWhitelist } from "../dlt/cta/store.js";
import { analyseSms } from "../dlt/encoding.js";
import { renderTemplate } from "../dlt/placeholders.js";
import { type Template, templateQuery, toTemplate } from "../dlt/registry.js";
import { senderQuery } from "../dlt/senders.js";
import { checkVariableValues } from "../dlt/variables.js";
import { ApiError } from "../errors.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import type { KeyPrincipal } from "../keys/authenticate.js";
import { isoNow } from "../lib/clock.js";
import { requireIndianMobile } from "../lib/phone.js";
import { priceOf } from "../messages/pricing.js";
import { type MessageView, queuedMessage, toMessageView } from "../messages/store.js";
import { queueSends } from "./queue.js";
import { timingOf } from "./timing.js";
import type { PreparedSms, SendRegistry, SmsSendRequest } from "./types.js";

export const MAX_SEGMENTS = 10;

/**
 * Checks a send in the contract's order (docs/sms.md), renders and prices it, then counts its
 * recipient, debits the balance and queues the message (queue.ts): no message without its
 * charge, no charge without its message, and, with `record`, neither without the stored answer.
 * POST /v2/sms/batch (batch.ts) runs the same two steps for each of its items.
 */
export async function sendSms(
  ctx: AppContext,
  principal: KeyPrincipal,
  send: SmsSendRequest,
  record?: RecordAnswer<MessageView>,
): Promise<MessageView> {
  const { accountId, environment } = principal;
  const request = withHeaderCase(send);
  // Before any query: a malformed number costs no lookup.
  requireIndianMobile(request.to);
  const registry = await ctx.settingsCache.read(
    accountId,
    `send:${request.sender}:${request.template_id}`,
    () => readSendRegistry(ctx, accountId, request.sender, request.template_id),
  );
  const cta = await ctaWhitelistFor(ctx, accountId, [registry.template]);
  const prepared = prepareSms(ctx, principal, request, { ...registry, cta }, false);
  const [refusal] = await queueSends(ctx, {
    scope: { accountId, environment },
    sends: [prepared],
    batch: false,
    answer: record && ((trx) => record(trx, prepared.view)),
  });
  if (refusal) throw refusal;
  ctx.queue.notify();
  ctx.metrics.messagesAccepted("sms", environment);
  return prepared.view;
}

/** The send with its sender as headers are registered: compared case-insensitively (docs/sms.md). */
export function withHeaderCase(send: SmsSendRequest): SmsSendRequest {
  return { ...send, sender: send.sender.toUpperCase() };
}

/**
 * The account's CTA whitelist (through the settings cache) when a send with one of `templates`
 * is checked against it: one has a `url`, `urlott` or `cbn` slot and DLT_TEMPLATE_RULES is not
 * `off`. Otherwise nothing is read.
 */
export async function ctaWhitelistFor(
  ctx: AppContext,
  accountId: string,
  templates: Iterable<Template | undefined>,
): Promise<CtaWhitelist | undefined> {
  for (const template of templates) {
    if (template && needsCtaCheck(ctx, template)) return readCtaWhitelist(ctx, accountId);
  }
  return undefined;
}

function needsCtaCheck(ctx: AppContext, template: Template): boolean {
  return ctx.dltTemplateRules !== "off" && hasCtaSlot(template.placeholders);
}

/** Whether `sender` is registered, and the template: read together (one round trip on PostgreSQL). */
export async function readSendRegistry(
  ctx: AppContext,
  accountId: string,
  sender: string,
  templateId: string,
): Promise<SendRegistry> {
  const [senders, templates] = await readTogether(ctx, [
    senderQuery(ctx.db, accountId, sender).compile(),
    templateQuery(ctx.db, accountId, templateId).compile(),
  ]);
  return { senderKnown: senders.length > 0, template: templates[0] && toTemplate(templates[0]) };
}

/**
 * The checks of a send after `to` (its caller checks `to` first, then looks the registry up),
 * the rendering and the price: throws the first `ApiError` in docs/sms.md's order, writes nothing.
 */
export function prepareSms(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: SmsSendRequest,
  registry: SendRegistry,
  inBatch: boolean,
): PreparedSms {
  const template = requireSendable(request, registry);
  return prepareSendable(ctx, principal, request, template, registry.cta, inBatch);
}

/** The first checks of a send: its sender is registered, its template too, active and allowing it. */
export function requireSendable(
  request: Pick<SmsSendRequest, "sender" | "template_id">,
  registry: Pick<SendRegistry, "senderKnown" | "template">,
): Template {
  const { senderKnown, template } = registry;
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
  return template;
}

/**
 * The rest of a send's checks, once its sender and template passed (`requireSendable`): the
 * variables, the CTA whitelist, the length and the channel; then its rendering, price and timing.
 */
export function prepareSendable(
  ctx: AppContext,
  principal: { accountId: string; environment: Environment },
  request: SmsSendRequest,
  template: Template,
  cta: CtaWhitelist | undefined,
  inBatch: boolean,
): PreparedSms {
  const { accountId, environment } = principal;
  const variables = request.variables ?? {};
  checkVariables(template, variables, ctx.maxVariableLength);
  if (needsCtaCheck(ctx, template)) {
    if (!cta) throw new Error("a send with a CTA slot was prepared without the account's CTA whitelist");
    requireWhitelistedCtas(ctx.dltTemplateRules, cta, variables);
  }

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
  const timing = timingOf(ctx, request, template.category, inBatch);

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
    ...timing,
  });
  return { row, view: toMessageView(row) };
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
  // Only once the names are right are the values looked at (docs/sms.md's order).
  checkVariableValues(variables, maxLength);
}
