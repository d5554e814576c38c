import { chargeInOneFlight, chargeOf } from "../accounts/ledger.js";
import { addSeconds, isoAfter, isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import { commitInLane, sendLane } from "../db/flight-lanes.js";
import { FlightRefused, type FlightStatement, guarded, statementOf } from "../db/one-flight.js";
import { preparedInsert } from "../db/prepared.js";
import type { Channel, Environment, MessagesTable, OtpsTable } from "../db/schema.js";
import { transactionConflictOf } from "../db/transaction.js";
import { eventInsert } from "../events/outbox.js";
import { newId } from "../ids.js";
import { hitUnderLimitQuery } from "../rate-limit.js";
import { insertMessage } from "../sms/messages.js";
import { generateCode, hashCode, seal } from "./codes.js";
import {
  type ChannelSetup,
  insertOtpDelivery,
  type OtpAddress,
  otpDeliveryMessage,
  otpDeliveryRow,
} from "./deliveries.js";
import type { OtpSendRequest, OtpView } from "./otp.js";
import type { OtpSettings } from "./settings.js";
import { firstDeliveries, otpView } from "./view.js";

// A send that makes a new OTP, for a number with none pending (the common case), and the
// hourly limits every send counts against: shared by the ordinary transaction (otp.ts), one
// round trip on PostgreSQL, and the sends of a turn together on SQLite (send-bursts.ts).

export const insertOtp = preparedInsert("otps");

/** What a send that makes a new OTP knows before it writes. */
export interface FirstSend {
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
export function newOtp(ctx: AppContext, send: FirstSend, now: string): { otp: OtpsTable; code: string } {
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
  send: FirstSend,
  now: string,
): { otp: OtpsTable; address: OtpAddress; message: MessagesTable | undefined } {
  const { otp, code } = newOtp(ctx, send, now);
  const address = { id: otp.id, accountId: otp.account_id, environment: otp.environment, to: otp.recipient };
  const message =
    send.setup && otp.is_test === 0
      ? otpDeliveryMessage(ctx, address, send.setup, code, send.settings)
      : undefined;
  return { otp, address, message };
}

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

/**
 * PostgreSQL, a send with no pending OTP for its number (the common case): the new OTP, its
 * delivery message and charge, its event and both hourly counts, written in one round trip
 * (src/db/one-flight.ts). Answers `undefined`, having written nothing, when the number has a
 * pending OTP (the one-pending-OTP index refuses the insert), a limit or the balance refused, or
 * PostgreSQL aborted the flight for a conflict: the transaction of `sendOtp` then decides, with
 * the answer and error it has always given.
 */
export async function sendFirstOtpInOneFlight(
  ctx: AppContext,
  send: FirstSend,
): Promise<OtpView | undefined> {
  const { scope, request, settings } = send;
  const now = isoNow(ctx.clock);
  const { otp, address, message } = newOtpAndMessage(ctx, send, now);
  const deliveries = firstDeliveries(message);
  const event = eventInsert(ctx.db, ctx, {
    accountId: scope.accountId,
    environment: scope.environment,
    type: "otp.sent",
    data: otpView(otp, deliveries, now),
  });
  const own: FlightStatement[] = [statementOf(insertOtp.compile(ctx.db, otp))];
  if (message) {
    own.push(
      statementOf(insertMessage.compile(ctx.db, message)),
      statementOf(insertOtpDelivery.compile(ctx.db, otpDeliveryRow(address, message, false))),
    );
  }
  own.push(statementOf(event.insert));
  const hit = ({ key, limit, refusal }: HourlySendLimit) =>
    guarded(hitUnderLimitQuery(ctx.db, ctx.clock, key, limit, HOUR_SECONDS, SEND_BUCKET_SECONDS), refusal);
  const [numberLimit, accountLimit] = hourlySendLimits(ctx, scope, request.to);
  own.push(hit(numberLimit));
  // The rows every send of the account shares: they stay locked only until the COMMIT right
  // behind them, and a shared flight locks them once, in the lock order (src/db/flight-lanes.ts).
  const counters = [{ ...hit(accountLimit), counter: accountLimit.key }];
  const debit = message && message.cost > 0 ? chargeInOneFlight(scope, chargeOf(message), now) : undefined;
  try {
    await commitInLane(ctx, sendLane(scope, request.to), { own, counters, debit });
  } catch (error) {
    if (error instanceof FlightRefused || isUniqueViolation(error) || transactionConflictOf(error)) {
      return undefined;
    }
    throw error;
  }
  return answerOf(otp, send.channel, settings, message?.id ?? null);
}

export const HOUR_SECONDS = 3600;
/** Sends are counted per minute: an hour's limit sums at most 61 rows, however busy the hour. */
export const SEND_BUCKET_SECONDS = 60;

/** One hourly OTP limit: its counter's key, the limit, and the message and reason of a refusal. */
export interface HourlySendLimit {
  key: string;
  limit: number;
  what: string;
  refusal: string;
}

/** The hourly limits a send counts against: its number's, then its account's. */
export function hourlySendLimits(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  to: string,
): [number: HourlySendLimit, account: HourlySendLimit] {
  const { sendsPerNumberPerHour } = ctx.otpLimits;
  const account = accountSendLimit(ctx, scope);
  return [
    {
      key: `${account.key}:${to}`,
      limit: sendsPerNumberPerHour,
      what: `At most ${sendsPerNumberPerHour} OTPs an hour go to one number.`,
      refusal: "otp_number_limit",
    },
    account,
  ];
}

/** The hourly limit on an account's OTP sends in one environment, over all its numbers. */
export function accountSendLimit(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
): HourlySendLimit {
  const { sendsPerAccountPerHour } = ctx.otpLimits;
  return {
    key: `otp-sends:${scope.accountId}:${scope.environment}`,
    limit: sendsPerAccountPerHour,
    what: `This account sends at most ${sendsPerAccountPerHour} OTPs an hour.`,
    refusal: "otp_account_limit",
  };
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
