import type { AppContext } from "../context.js";
import { preparedInsert } from "../db/prepared.js";
import type { Channel, Environment, MessagesTable, OtpsTable } from "../db/schema.js";
import { addSeconds, isoAfter } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { seal } from "../lib/sealing.js";
import { generateCode, hashCode } from "./codes.js";
import { type ChannelSetup, type OtpAddress, otpDeliveryMessage } from "./deliveries.js";
import type { OtpSettings } from "./settings.js";
import type { OtpSendRequest, OtpView } from "./types.js";

// A new OTP's row, its first delivery and a send's answer, built once for every form of a send.

export const insertOtp = preparedInsert("otps");

/** A send checked, with what it needs to write: its settings and its channels' setups. */
export interface OtpSend {
  scope: { accountId: string; environment: Environment };
  request: OtpSendRequest;
  channel: Channel;
  settings: OtpSettings;
  /** The channel's setup; none for a test number, whose OTP is never delivered. */
  setup: ChannelSetup | undefined;
  fallbackSetup: ChannelSetup | undefined;
  fixedCode: string | undefined;
}

/** A new pending OTP and its code (a test number's fixed one, the caller's, or a generated one). */
export function newOtp(ctx: AppContext, send: OtpSend, now: string): { otp: OtpsTable; code: string } {
  const { scope, request, settings, fallbackSetup, fixedCode } = send;
  const id = newId("otp");
  const code = fixedCode ?? request.code ?? generateCode(request.length ?? settings.length);
  const otp: OtpsTable = {
    id,
    account_id: scope.accountId,
    environment: scope.environment,
    recipient: request.to,
    code_hash: hashCode(ctx.secret, id, code),
    code_sealed: fixedCode === undefined ? seal(ctx.secret, code) : null,
    status: "pending",
    attempts: 0,
    max_attempts: settings.max_attempts,
    sends: 1,
    channel: send.channel,
    fallback_channel: fallbackSetup ? fallbackSetup.channel : null,
    // Due for the fallback channel, or for another SMS route (src/otp/fallback.ts).
    fallback_due_at:
      fallbackSetup ||
      (ctx.otpReroute && send.channel === "sms" && scope.environment === "live" && !fixedCode)
        ? isoAfter(ctx.clock, settings.fallback_after_seconds)
        : null,
    is_test: fixedCode === undefined ? 0 : 1,
    expires_at: isoAfter(ctx.clock, settings.expiry_seconds),
    last_sent_at: now,
    approved_at: null,
    created_at: now,
    updated_at: now,
  };
  return { otp, code };
}

/**
 * A new OTP and, unless it goes to a test number (never delivered), the queued message of its
 * first delivery on the send's channel; nothing written.
 */
export function newOtpAndMessage(
  ctx: AppContext,
  send: OtpSend,
  now: string,
): { otp: OtpsTable; address: OtpAddress; message: MessagesTable | undefined } {
  const { otp, code } = newOtp(ctx, send, now);
  const address = {
    id: otp.id,
    accountId: otp.account_id,
    environment: otp.environment,
    to: otp.recipient,
    expiresAt: otp.expires_at,
  };
  const message =
    send.setup && otp.is_test === 0
      ? otpDeliveryMessage(ctx, address, send.setup, code, send.settings)
      : undefined;
  return { otp, address, message };
}

/** A send's answer: the pending OTP as it sent it. */
export function answerOf(
  otp: OtpsTable,
  channel: Channel,
  settings: OtpSettings,
  messageId: string | null,
): OtpView {
  return {
    id: otp.id,
    status: "pending",
    environment: otp.environment,
    to: otp.recipient,
    channel,
    expires_at: otp.expires_at,
    resend_available_at: addSeconds(otp.last_sent_at, settings.resend_cooldown_seconds),
    attempts_remaining: otp.max_attempts - otp.attempts,
    sends: otp.sends,
    message_id: messageId,
  };
}
