import type { AppContext } from "../context.js";
import { preparedInsert } from "../db/prepared.js";
import type { Channel, DbOrTrx, Environment, MessagesTable, OtpDeliveriesTable } from "../db/schema.js";
import type { OtpDetails } from "../delivery/carrier.js";
import { spokenText } from "../delivery/carriers/voice.js";
import { analyseSms } from "../dlt/encoding.js";
import { otpCodeSlot } from "../dlt/otp-slot.js";
import { renderTemplate } from "../dlt/placeholders.js";
import { findTemplate, type Template } from "../dlt/registry.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { seal } from "../lib/sealing.js";
import { priceOf } from "../messages/pricing.js";
import { chargeAndQueue, queuedMessage } from "../messages/store.js";
import { PRIORITY_LANE } from "../messages/traffic.js";
import type { OtpSettings } from "./settings.js";

/** What a channel needs before an OTP can go out on it; throws `channel_not_configured` otherwise. */
export interface ChannelSetup {
  channel: Channel;
  template: Template | null;
}

export async function requireChannel(
  ctx: AppContext,
  db: DbOrTrx,
  scope: { accountId: string; environment: Environment },
  channel: Channel,
  settings: OtpSettings,
  /** The SMS template of the settings when already read (`getSendSettings`); read here if not. */
  smsTemplate?: Template | null,
): Promise<ChannelSetup> {
  if (scope.environment === "live" && !ctx.liveChannels.has(channel)) {
    throw new ApiError(
      "channel_not_configured",
      `Live ${channel} is not configured on this server.`,
      "channel",
    );
  }
  if (channel === "sms") {
    // getOtpSettings reads a sender that is no longer registered as none.
    const sender = settings.sms_sender;
    const template =
      settings.sms_template_id && sender
        ? smsTemplate !== undefined
          ? smsTemplate
          : await findTemplate(db, scope.accountId, settings.sms_template_id)
        : undefined;
    if (template?.status !== "active" || !sender || !template.senders.includes(sender)) {
      throw new ApiError(
        "channel_not_configured",
        "SMS OTPs need an active OTP template with one placeholder for the code and a registered sender it allows, in the OTP settings.",
        "channel",
      );
    }
    return { channel, template };
  }
  if (channel === "whatsapp" && scope.environment === "live" && !settings.whatsapp_template) {
    throw new ApiError(
      "channel_not_configured",
      "WhatsApp OTPs need the approved authentication template's name in the OTP settings.",
      "channel",
    );
  }
  return { channel, template: null };
}

function otpText(setup: ChannelSetup, code: string, settings: OtpSettings): string {
  if (setup.channel === "sms" && setup.template) {
    const slot = otpCodeSlot(setup.template.placeholders) ?? "otp";
    return renderTemplate(setup.template.content, { [slot]: code });
  }
  if (setup.channel === "voice") return spokenText(code);
  const minutes = Math.max(1, Math.round(settings.expiry_seconds / 60));
  return `${code} is your verification code. For your security, do not share this code. This code expires in ${minutes} minutes.`;
}

/**
 * Queues one delivery of an OTP, charged like any message. The stored text has the code
 * masked; the real text and the code travel sealed until the message leaves the queue.
 */
export async function queueOtpDelivery(
  trx: DbOrTrx,
  ctx: AppContext,
  otp: OtpAddress,
  setup: ChannelSetup,
  code: string,
  settings: OtpSettings,
  isFallback: boolean,
): Promise<MessagesTable> {
  const row = otpDeliveryMessage(ctx, otp, setup, code, settings);
  await chargeAndQueue(trx, ctx, row);
  await insertOtpDelivery.execute(trx, otpDeliveryRow(otp, row, isFallback));
  return row;
}

export const insertOtpDelivery = preparedInsert("otp_deliveries");

/** Who an OTP goes to, for its deliveries. */
export interface OtpAddress {
  id: string;
  accountId: string;
  environment: Environment;
  to: string;
  /** A delivery of the code is worth nothing after the code expires. */
  expiresAt: string;
}

/** The queued message of one delivery of an OTP, with its text and code sealed; nothing written. */
export function otpDeliveryMessage(
  ctx: AppContext,
  otp: OtpAddress,
  setup: ChannelSetup,
  code: string,
  settings: OtpSettings,
  /** Routes the message must not go out on: an SMS sent again on another route (src/otp/reroute.ts). */
  avoidRoutes?: string[],
): MessagesTable {
  const text = otpText(setup, code, settings);
  const { encoding, segments } = analyseSms(text);
  const details: OtpDetails = {
    code,
    expirySeconds: settings.expiry_seconds,
    whatsappTemplate: settings.whatsapp_template,
    whatsappLanguage: settings.whatsapp_language,
    ...(settings.voice_caller_id === null ? {} : { voiceCallerId: settings.voice_caller_id }),
  };
  return queuedMessage(isoNow(ctx.clock), {
    account_id: otp.accountId,
    environment: otp.environment,
    channel: setup.channel,
    recipient: otp.to,
    sender: setup.channel === "sms" ? settings.sms_sender : null,
    template_id: setup.template?.template_id ?? null,
    entity_id: setup.template?.entity_id ?? null,
    reference: otp.id,
    // The same words with the code's digits masked, wherever the channel puts them (voice spaces them out).
    text: otpText(setup, "*".repeat(code.length), settings),
    encoding,
    segments,
    cost: priceOf(ctx.prices, setup.channel, setup.channel === "sms" ? segments : 1),
    sealed: seal(ctx.secret, JSON.stringify({ text, otp: details, ...(avoidRoutes ? { avoidRoutes } : {}) })),
    priority: PRIORITY_LANE.otp,
    category: "otp",
    expires_at: otp.expiresAt,
    send_at: null,
  });
}

export function otpDeliveryRow(
  otp: OtpAddress,
  message: MessagesTable,
  isFallback: boolean,
): OtpDeliveriesTable {
  return {
    otp_id: otp.id,
    message_id: message.id,
    channel: message.channel,
    is_fallback: isFallback ? 1 : 0,
    rerouted_from: null,
    created_at: message.created_at,
  };
}
