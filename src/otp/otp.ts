import { sql } from "kysely";
import { addSeconds, isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import { prepareQuery } from "../db/prepared.js";
import type { Channel, DbOrTrx, Environment, OtpsTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { recordOtpEvents } from "../events/emit.js";
import { recordEvent } from "../events/outbox.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import type { KeyPrincipal } from "../keys/authenticate.js";
import { requireIndianMobile } from "../phone.js";
import { hitUnderLimit } from "../rate-limit.js";
import { tryUnseal } from "./codes.js";
import { queueOtpDelivery, requireChannel } from "./deliveries.js";
import {
  answerOf,
  type FirstSend,
  HOUR_SECONDS,
  type HourlySendLimit,
  hourlySendLimits,
  insertOtp,
  isUniqueViolation,
  newOtp,
  SEND_BUCKET_SECONDS,
  sendFirstOtpInOneFlight,
} from "./first-send.js";
import { sendFirstOtpInBurst } from "./send-bursts.js";
import { getSendSettings } from "./settings.js";
import { firstDeliveries, type OtpDetailsView, otpView, otpViews } from "./view.js";

export type NumberScope = { accountId: string; environment: Environment; to: string };

/** The OTPs of one number of an account's environment. */
function otpsOfNumber(db: DbOrTrx, param: <K extends keyof NumberScope>(name: K) => NumberScope[K]) {
  return db
    .selectFrom("otps")
    .selectAll()
    .where("account_id", "=", param("accountId"))
    .where("environment", "=", param("environment"))
    .where("recipient", "=", param("to"));
}

/** A number's pending OTP, through the partial index of pending OTPs. */
export const pendingOtp = prepareQuery<NumberScope, OtpsTable>((db, param) =>
  otpsOfNumber(db, param).where("status", "=", sql.lit("pending")),
);

/**
 * A resend of the pending OTP `id`, counted on the row as it now stands: while it is pending,
 * unexpired, with attempts left, under the sends limit and out of its cooldown (last sent at or
 * before `sentBefore`). Concurrent resends of one OTP wait for each other on its row and each
 * counts, as one after another would, until a condition fails.
 */
const resendOtp = prepareQuery<
  { id: string; now: string; sentBefore: string; sendsLimit: number },
  OtpsTable
>((db, param) =>
  db
    .updateTable("otps")
    .set({ sends: sql`sends + 1`, last_sent_at: param("now"), updated_at: param("now") })
    .where("id", "=", param("id"))
    .where("status", "=", sql.lit("pending"))
    .where("expires_at", ">", param("now"))
    .where(sql<boolean>`attempts < max_attempts`)
    .where("sends", "<", param("sendsLimit"))
    .where("last_sent_at", "<=", param("sentBefore"))
    .returningAll(),
);

export interface OtpSendRequest {
  to: string;
  channel?: Channel;
  fallback?: Channel;
  code?: string;
  length?: number;
}

export interface OtpView {
  id: string;
  status: OtpsTable["status"];
  environment: Environment;
  to: string;
  channel: Channel;
  expires_at: string;
  resend_available_at: string;
  attempts_remaining: number;
  sends: number;
  message_id: string | null;
}

/**
 * Sends an OTP (API.md §5): a new one, or the pending one again after its cooldown, on any
 * channel, with an optional fallback channel. The OTP, its delivery message and the charge
 * (and, with `record`, the answer) are written in one transaction.
 */
export async function sendOtp(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: OtpSendRequest,
  record?: RecordAnswer<OtpView>,
): Promise<OtpView> {
  const { environment } = principal;
  const sent = await sendAndCharge(ctx, principal, request, record).catch((error: unknown) => {
    if (error instanceof ApiError) ctx.metrics.otpSendRefused(environment, error.code);
    throw error;
  });
  ctx.metrics.otpSent(sent.channel, environment, sent.sends === 1 ? "new" : "resend");
  if (sent.message_id) ctx.metrics.messagesAccepted(sent.channel, environment);
  return sent;
}

async function sendAndCharge(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: OtpSendRequest,
  record?: RecordAnswer<OtpView>,
): Promise<OtpView> {
  const { accountId, environment } = principal;
  requireIndianMobile(request.to);
  const channel = request.channel ?? "sms";
  if (request.fallback === channel) {
    throw new ApiError("invalid_request", "fallback must be a different channel from channel.", "fallback");
  }
  const { settings, smsTemplate } = await getSendSettings(ctx, accountId, environment);
  const fixedCode = settings.test_numbers[request.to];
  const scope = { accountId, environment };
  const setup =
    fixedCode === undefined
      ? await requireChannel(ctx, ctx.db, scope, channel, settings, smsTemplate)
      : undefined;
  const fallbackSetup =
    fixedCode === undefined && request.fallback
      ? await requireChannel(ctx, ctx.db, scope, request.fallback, settings, smsTemplate)
      : undefined;

  const first: FirstSend = { scope, request, channel, settings, setup, fallbackSetup, fixedCode };
  if (record === undefined) {
    // A new OTP for a number with none pending, as nearly always: on PostgreSQL in one round
    // trip, on SQLite with the other sends of this turn of the event loop.
    const sent =
      ctx.dialect === "postgres"
        ? await sendFirstOtpInOneFlight(ctx, first)
        : await sendFirstOtpInBurst(ctx, first);
    if (sent) {
      if (sent.message_id) ctx.queue.notify();
      return sent;
    }
  }

  const attempt = () =>
    inTransaction(ctx, async (trx) => {
      const [pending] = (await pendingOtp.execute(trx, { accountId, environment, to: request.to })).rows;
      // Read after the OTP, so that a send this one found (made by another process an instant
      // ago) was not sent later than now: with no cooldown, this send comes after it, never inside.
      const now = isoNow(ctx.clock);

      let otp: OtpsTable;
      let code: string;
      let resend = false;
      const resendable = pending && pending.expires_at > now && pending.attempts < pending.max_attempts;
      if (pending && resendable) {
        // Inside the cooldown nothing is sent: neither the same code again nor a caller's new one.
        const availableAt = addSeconds(pending.last_sent_at, settings.resend_cooldown_seconds);
        if (now < availableAt) {
          const retryAfter = Math.ceil((Date.parse(availableAt) - Date.parse(now)) / 1000);
          throw new ApiError(
            "resend_cooldown",
            `Wait ${retryAfter} s before sending this OTP again.`,
          ).withRetryAfter(retryAfter);
        }
      }
      // A code sealed under a replaced DAKIYA_SECRET can be neither sent again nor verified: a new
      // OTP replaces it, as when the caller gives a new code.
      const sealedCode =
        pending?.code_sealed && resendable && request.code === undefined
          ? tryUnseal(ctx.secret, pending.code_sealed)
          : undefined;
      const readable = pending?.code_sealed === null || sealedCode !== undefined;
      if (pending && resendable && request.code === undefined && readable) {
        if (pending.sends >= ctx.otpLimits.sendsPerOtp) {
          throw new ApiError(
            "rate_limited",
            `An OTP is sent at most ${ctx.otpLimits.sendsPerOtp} times.`,
          ).withRetryAfter(Math.ceil((Date.parse(pending.expires_at) - Date.parse(now)) / 1000));
        }
        // A test number's OTP is never delivered, so it keeps no code to resend.
        if (pending.is_test === 0 && pending.code_sealed === null) {
          throw new Error(`pending OTP ${pending.id} has lost its sealed code`);
        }
        code = sealedCode ?? "";
        // The OTP keeps its first channel; this send's channel is in its deliveries.
        const [resent] = (
          await resendOtp.execute(trx, {
            id: pending.id,
            now,
            sentBefore: addSeconds(now, -settings.resend_cooldown_seconds),
            sendsLimit: ctx.otpLimits.sendsPerOtp,
          })
        ).rows;
        // Settled, replaced, sent again inside its cooldown or up to its limit since it was read.
        if (!resent) throw new ConcurrentSend();
        otp = resent;
        resend = true;
      } else {
        if (pending) {
          // Replaced by a caller's new code, or over (expired or out of attempts): it ends here.
          const ended = resendable ? "cancelled" : pending.expires_at <= now ? "expired" : "locked";
          const endedRow = await trx
            .updateTable("otps")
            .set({ status: ended, code_sealed: null, updated_at: now })
            .where("id", "=", pending.id)
            .where("status", "=", sql.lit("pending"))
            .returningAll()
            .executeTakeFirst();
          // Settled or replaced since it was read: what to do is decided again on the current OTP.
          if (!endedRow) throw new ConcurrentSend();
          if (ended !== "cancelled") await recordOtpEvents(trx, ctx, "otp.failed", [endedRow]);
        }
        ({ otp, code } = newOtp(ctx, first, now));
        await insertOtp.execute(trx, otp);
      }
      // The counters before the charge: the balance is the last row a send locks (the lock order,
      // src/accounts/ledger.ts).
      await countHourlySend(trx, ctx, scope, request.to);
      const message =
        setup && otp.is_test === 0
          ? await queueOtpDelivery(
              trx,
              ctx,
              { id: otp.id, accountId, environment, to: request.to },
              setup,
              code,
              settings,
              false,
            )
          : undefined;
      if (resend) await recordOtpEvents(trx, ctx, "otp.sent", [otp]);
      else {
        // A new OTP's deliveries are known: its message, if any.
        const data = otpView(otp, firstDeliveries(message), now);
        await recordEvent(trx, ctx, { accountId, environment, type: "otp.sent", data });
      }
      const view = answerOf(otp, channel, settings, message?.id ?? null);
      await record?.(trx, view);
      return view;
    });
  const result = await sendAsTheLast(hourlySendLimits(ctx, scope, request.to)[0], attempt);
  if (result.message_id) ctx.queue.notify();
  return result;
}

/**
 * Runs a send's transaction `attempt` until it does not lose to a concurrent change of the
 * number's OTP (PostgreSQL; SQLite runs one writer at a time): a send or a verification that
 * changed the OTP it read, or a send that made the number's pending OTP first. Each run reads
 * again, so the send is answered as it would be after that change: a resend, a new OTP, or a
 * refusal (its cooldown, its limits). A run loses only when another send or verification
 * committed a change to the number's OTPs in between, so the runs are few; a send that lost more
 * often than the number may be sent to in an hour is answered 503, to be tried again.
 */
async function sendAsTheLast(
  numberLimit: HourlySendLimit,
  attempt: () => Promise<OtpView>,
): Promise<OtpView> {
  for (let run = 1; ; run++) {
    try {
      return await attempt();
    } catch (error) {
      if (!lostToConcurrentSend(error)) throw error;
      if (run > numberLimit.limit) {
        throw new ApiError(
          "unavailable",
          "Other sends to this number kept changing its OTP; try again.",
        ).withRetryAfter(1);
      }
    }
  }
}

/** Counts a send against the per-number and per-account hourly limits; over either, 429 `rate_limited`. */
async function countHourlySend(
  trx: DbOrTrx,
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  to: string,
): Promise<void> {
  for (const { key, limit, what } of hourlySendLimits(ctx, scope, to)) {
    if (!(await hitUnderLimit(trx, ctx.clock, key, limit, HOUR_SECONDS, SEND_BUCKET_SECONDS))) {
      throw new ApiError("rate_limited", what).withRetryAfter(HOUR_SECONDS);
    }
  }
}

export type { OtpDetailsView } from "./view.js";

export async function getOtp(
  ctx: AppContext,
  scope: { accountId: string; environment: Environment },
  id: string,
): Promise<OtpDetailsView> {
  const otp = await ctx.db
    .selectFrom("otps")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", scope.accountId)
    .where("environment", "=", scope.environment)
    .executeTakeFirst();
  if (!otp) throw new ApiError("not_found", `No OTP ${id}.`, "id");
  const [view] = await otpViews(ctx.db, [otp], isoNow(ctx.clock));
  return view as OtpDetailsView;
}

/** The OTP a send read changed before the send could write it: the send starts again. */
class ConcurrentSend extends Error {}

/** Lost to a concurrent send: on the one-pending-OTP index, or on the pending OTP's send count. */
function lostToConcurrentSend(error: unknown): boolean {
  return error instanceof ConcurrentSend || isUniqueViolation(error);
}
