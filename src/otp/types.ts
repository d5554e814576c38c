import type { Channel, Environment, MessageStatus, OtpsTable } from "../db/schema.js";

/* The shapes of OTP sends and verifications that other folders read (metrics, the worker). */

/** The numbers of an account's environment: one of them, as sends and verifications address it. */
export type NumberScope = { accountId: string; environment: Environment; to: string };

/** POST /v2/otp/send's body. */
export interface OtpSendRequest {
  to: string;
  channel?: Channel;
  fallback?: Channel;
  code?: string;
  length?: number;
}

/** What every view of an OTP shows of it: never its code. */
interface OtpFields {
  id: string;
  status: OtpsTable["status"];
  environment: Environment;
  to: string;
  channel: Channel;
  expires_at: string;
  attempts_remaining: number;
  sends: number;
}

/** POST /v2/otp/send's answer. */
export interface OtpView extends OtpFields {
  resend_available_at: string;
  message_id: string | null;
}

/** An OTP as `GET /v2/otp/{id}` shows it, and as its events carry it. */
export interface OtpDetailsView extends OtpFields {
  created_at: string;
  deliveries: Array<{
    message_id: string;
    channel: Channel;
    fallback: boolean;
    status: MessageStatus;
    created_at: string;
  }>;
}

export type VerifyReason =
  | "approved"
  | "incorrect_code"
  | "expired"
  | "max_attempts_reached"
  | "already_verified"
  | "not_found";

/** POST /v2/otp/verify's answer. */
export interface VerifyResult {
  verified: boolean;
  reason: VerifyReason;
  attempts_remaining: number;
}
