import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { isE164 } from "../lib/phone.js";

/**
 * The number voice OTPs call from (docs/otp.md#voice-caller-id). Since TRAI's direction of
 * November 2025, banks, NBFCs, brokers and insurers (accounts marked `bfsi`) must call from the
 * 1600 series: `1600` (government and regulators) or `1601` (regulated financial entities),
 * followed by six digits, as every Indian number is ten digits after +91.
 */
const BFSI_CALLER_ID = /^\+9116(00|01)\d{6}$/;

const BFSI_RULE = "a BFSI account may call only from a 1600-series number (+911600… or +911601…)";

export function isBfsiCallerId(number: string): boolean {
  return BFSI_CALLER_ID.test(number);
}

/** The operator's caller ID (VOICE_FROM), used when the settings name none; null when live voice is not configured. */
export function defaultVoiceCallerId(ctx: Pick<AppContext, "webhooks">): string | null {
  return ctx.webhooks.voice?.from ?? null;
}

/** Checks a caller ID before it is saved: E.164 (400 `invalid_request`), and for a BFSI account 1600-series (422 `invalid_caller_id`). */
export function requireSavableCallerId(callerId: string | null, bfsi: boolean): void {
  if (callerId === null) return;
  if (!isE164(callerId)) {
    throw new ApiError(
      "invalid_request",
      "voice_caller_id must be an E.164 number with a leading +, like +911601234567.",
      "voice_caller_id",
    );
  }
  if (bfsi && !isBfsiCallerId(callerId)) {
    throw new ApiError("invalid_caller_id", `${callerId} cannot be used: ${BFSI_RULE}.`, "voice_caller_id");
  }
}

/**
 * Why a voice OTP would be refused as things stand, or null: a BFSI account must call from a
 * 1600-series number, its own or, when it set none, the operator's.
 */
export function voiceCallerIdProblem(
  ctx: Pick<AppContext, "webhooks">,
  callerId: string | null,
  bfsi: boolean,
): string | null {
  if (!bfsi) return null;
  const calling = callerId ?? defaultVoiceCallerId(ctx);
  if (calling !== null && isBfsiCallerId(calling)) return null;
  const why =
    callerId !== null
      ? `the OTP settings' voice caller ID, ${callerId}, is not one`
      : calling !== null
        ? `none is set in the OTP settings and the server's default, ${calling}, is not one`
        : "none is set in the OTP settings and the server has no default";
  return `Voice OTPs are refused: ${BFSI_RULE}, and ${why}. Set a 1600-series voice caller ID (voice_caller_id) in the OTP settings.`;
}

/** Before a voice OTP is accepted: `voiceCallerIdProblem` as 422 `channel_not_configured`. */
export function requireVoiceCallerId(
  ctx: Pick<AppContext, "webhooks">,
  callerId: string | null,
  bfsi: boolean,
): void {
  const problem = voiceCallerIdProblem(ctx, callerId, bfsi);
  if (problem !== null) throw new ApiError("channel_not_configured", problem, "channel");
}
