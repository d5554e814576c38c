import { sql, type Transaction } from "kysely";
import { applyLedgerChange, applyLedgerCharges, chargeInOneFlight, chargeOf } from "../accounts/ledger.js";
import type { AppContext } from "../context.js";
import { commitInLane, sendLane } from "../db/postgres/flight-lanes.js";
import { FlightRefused, type FlightStatement, statementOf } from "../db/postgres/one-flight.js";
import { executeForIds, insertRows, prepareForIds, prepareQuery } from "../db/prepared.js";
import type { Database, Environment, MessagesTable, OtpsTable } from "../db/schema.js";
import { type BurstRunner, burstQueue } from "../db/sqlite/transaction-bursts.js";
import { inTransaction, transactionConflictOf } from "../db/transaction.js";
import { writeFormOf } from "../db/write-form.js";
import { ApiError } from "../errors.js";
import { eventInsert, recordEvent, recordEvents } from "../events/outbox.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import type { KeyPrincipal } from "../keys/authenticate.js";
import { addSeconds, type Clock, isoNow } from "../lib/clock.js";
import { requireIndianMobile } from "../lib/phone.js";
import { tryUnseal } from "../lib/sealing.js";
import { insertMessage } from "../messages/store.js";
import { insertOtpDelivery, otpDeliveryRow, queueOtpDelivery, requireChannel } from "./deliveries.js";
import { newOtpSent, recordOtpEvents } from "./events.js";
import {
  accountSendLimit,
  countHourlySend,
  countSends,
  type HourlySendLimit,
  hourlySendInFlight,
  numberSendLimit,
  sendRefusal,
  uncountSends,
} from "./limits.js";
import { answerOf, insertOtp, newOtp, newOtpAndMessage, type OtpSend } from "./new-otp.js";
import { pendingOtp } from "./pending.js";
import { getSendSettings } from "./settings.js";
import type { OtpSendRequest, OtpView } from "./types.js";
import { requireVoiceCallerId } from "./voice-caller-id.js";

/** The form a send's write takes (src/db/write-form.ts); only a transaction stores an answer. */
export type SendWrite =
  | { form: "transaction"; record?: RecordAnswer<OtpView> }
  | { form: "one_flight" | "burst" };

/**
 * Sends an OTP (docs/otp.md): a new one, or the pending one again after its cooldown, on any
 * channel, with an optional fallback channel. The OTP, its delivery message and the charge
 * (and, with `record`, the answer) are written together, in the one form chosen here.
 */
export function sendOtp(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: OtpSendRequest,
  record?: RecordAnswer<OtpView>,
): Promise<OtpView> {
  const form = writeFormOf(ctx.dialect, { storesAnswer: record !== undefined });
  return sendOtpAs(ctx, principal, request, form === "transaction" ? { form, record } : { form });
}

/** `sendOtp` with its write in the form `write` names; tests choose the form here. */
export async function sendOtpAs(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: OtpSendRequest,
  write: SendWrite,
): Promise<OtpView> {
  const { environment } = principal;
  const sent = await checkSend(ctx, principal, request)
    .then((send) => writeSend(ctx, send, write))
    .catch((error: unknown) => {
      if (error instanceof ApiError) ctx.metrics.otpSendRefused(environment, error.code);
      throw error;
    });
  if (sent.message_id) ctx.queue.notify();
  ctx.metrics.otpSent(sent.channel, environment, sent.sends === 1 ? "new" : "resend");
  if (sent.message_id) ctx.metrics.messagesAccepted(sent.channel, environment);
  return sent;
}

/** A send's checks, before it writes anything: its number, its channels, its settings. */
async function checkSend(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: OtpSendRequest,
): Promise<OtpSend> {
  const { accountId, environment } = principal;
  requireIndianMobile(request.to);
  const channel = request.channel ?? "sms";
  if (request.fallback === channel) {
    throw new ApiError("invalid_request", "fallback must be a different channel from channel.", "fallback");
  }
  const { settings, smsTemplate, bfsi } = await getSendSettings(ctx, accountId, environment);
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
  if (fixedCode === undefined && (channel === "voice" || request.fallback === "voice")) {
    requireVoiceCallerId(ctx, settings.voice_caller_id, bfsi);
  }
  return { scope, request, channel, settings, setup, fallbackSetup, fixedCode };
}

/**
 * A send's writes in the form `write` names. The one-flight and burst forms write only a new OTP
 * for a number with none pending, as nearly always; they leave every other send to the
 * transaction, having written nothing of it, and it gives the answer it has always given.
 */
async function writeSend(ctx: AppContext, send: OtpSend, write: SendWrite): Promise<OtpView> {
  switch (write.form) {
    case "transaction":
      return sendInTransaction(ctx, send, write.record);
    case "one_flight":
      return (await sendNewOtpInOneFlight(ctx, send)) ?? sendInTransaction(ctx, send);
    case "burst": {
      const answer = await burstQueue(ctx, newOtpsInBurst).add(send);
      if (answer instanceof ApiError) throw answer;
      return answer ?? sendInTransaction(ctx, send);
    }
  }
}

// The transaction form: it decides every send.

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

/**
 * Transaction: reads the number's pending OTP and sends it again (after its cooldown, under its
 * sends limit), or makes a new OTP in place of it or of none; then counts the send, charges and
 * queues its delivery, writes its `otp.sent` and, with `record`, the answer.
 */
function sendInTransaction(ctx: AppContext, send: OtpSend, record?: RecordAnswer<OtpView>): Promise<OtpView> {
  return sendAsTheLast(ctx, () =>
    inTransaction(ctx, async (trx) => {
      const { scope, request, settings, setup } = send;
      const [pending] = (await pendingOtp.execute(trx, { ...scope, to: request.to })).rows;
      // Read after the OTP, so that a send this one found (made by another process an instant
      // ago) was not sent later than now: with no cooldown, this send comes after it, never inside.
      const now = isoNow(ctx.clock);
      const resent = pending && (await resendPending(trx, ctx, send, pending, now));
      const { otp, code } = resent ?? (await replacePending(trx, ctx, send, pending, now));
      // The counters before the charge: the balance is the last row a send locks (the lock order,
      // src/accounts/ledger.ts).
      await countHourlySend(trx, ctx, scope, request.to);
      const address = { id: otp.id, ...scope, to: request.to, expiresAt: otp.expires_at };
      const message =
        setup && otp.is_test === 0
          ? await queueOtpDelivery(trx, ctx, address, setup, code, settings, false)
          : undefined;
      // A new OTP's deliveries are known (its message, if any); a resent one's are read.
      if (resent) await recordOtpEvents(trx, ctx, "otp.sent", [otp]);
      else await recordEvent(trx, ctx, newOtpSent(otp, message, now));
      const view = answerOf(otp, send.channel, settings, message?.id ?? null);
      await record?.(trx, view);
      return view;
    }),
  );
}

/**
 * The pending OTP sent again, when it can be: unexpired, with attempts left, its code readable
 * and no new code given. Inside its cooldown, or at its sends limit, the send is refused;
 * `undefined` when a new OTP is to replace it.
 */
async function resendPending(
  trx: Transaction<Database>,
  ctx: AppContext,
  send: OtpSend,
  pending: OtpsTable,
  now: string,
): Promise<{ otp: OtpsTable; code: string } | undefined> {
  const { settings, request } = send;
  if (!resendable(pending, now)) return undefined;
  // Inside the cooldown nothing is sent: neither the same code again nor a caller's new one.
  const availableAt = addSeconds(pending.last_sent_at, settings.resend_cooldown_seconds);
  if (now < availableAt) {
    const retryAfter = Math.ceil((Date.parse(availableAt) - Date.parse(now)) / 1000);
    throw new ApiError(
      "resend_cooldown",
      `Wait ${retryAfter} s before sending this OTP again.`,
    ).withRetryAfter(retryAfter);
  }
  if (request.code !== undefined) return undefined;
  // A code sealed under a replaced DAKIYA_SECRET can be neither sent again nor verified: a new
  // OTP replaces it, as when the caller gives a new code.
  const sealedCode = pending.code_sealed ? tryUnseal(ctx.secret, pending.code_sealed) : undefined;
  if (pending.code_sealed !== null && sealedCode === undefined) return undefined;
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
  return { otp: resent, code: sealedCode ?? "" };
}

/** Whether a pending OTP can still be sent again: unexpired, with attempts left. */
function resendable(pending: OtpsTable, now: string): boolean {
  return pending.expires_at > now && pending.attempts < pending.max_attempts;
}

/**
 * A new OTP, inserted. The pending one, if any, ends here: cancelled when a caller's new code (or
 * an unreadable one) replaces it, else expired or locked, with its `otp.failed`.
 */
async function replacePending(
  trx: Transaction<Database>,
  ctx: AppContext,
  send: OtpSend,
  pending: OtpsTable | undefined,
  now: string,
): Promise<{ otp: OtpsTable; code: string }> {
  if (pending) {
    const ended = resendable(pending, now) ? "cancelled" : pending.expires_at <= now ? "expired" : "locked";
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
  const made = newOtp(ctx, send, now);
  await insertOtp.execute(trx, made.otp);
  return made;
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
async function sendAsTheLast(ctx: AppContext, attempt: () => Promise<OtpView>): Promise<OtpView> {
  for (let run = 1; ; run++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ConcurrentSend || isUniqueViolation(error))) throw error;
      if (run > ctx.otpLimits.sendsPerNumberPerHour) {
        throw new ApiError(
          "unavailable",
          "Other sends to this number kept changing its OTP; try again.",
        ).withRetryAfter(1);
      }
    }
  }
}

/** The OTP a send read changed before the send could write it: the send starts again. */
class ConcurrentSend extends Error {}

/** Lost to a concurrent send on the one-pending-OTP index. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

// The one-flight form (PostgreSQL).

/**
 * One flight: a new OTP, its delivery message and charge, its event and both hourly counts, in
 * one round trip (src/db/postgres/one-flight.ts). `undefined`, having written nothing, when the number has
 * a pending OTP (the one-pending-OTP index refuses the insert), a limit or the balance refused,
 * or PostgreSQL aborted the flight for a conflict.
 */
async function sendNewOtpInOneFlight(ctx: AppContext, send: OtpSend): Promise<OtpView | undefined> {
  const { scope, request } = send;
  const now = isoNow(ctx.clock);
  const { otp, address, message } = newOtpAndMessage(ctx, send, now);
  const event = eventInsert(ctx.db, ctx, newOtpSent(otp, message, now));
  const limits = hourlySendInFlight(ctx, scope, request.to);
  const own: FlightStatement[] = [statementOf(insertOtp.compile(ctx.db, otp))];
  if (message) {
    own.push(
      statementOf(insertMessage.compile(ctx.db, message)),
      statementOf(insertOtpDelivery.compile(ctx.db, otpDeliveryRow(address, message, false))),
    );
  }
  own.push(statementOf(event.insert), limits.number);
  // The rows every send of the account shares: they stay locked only until the COMMIT right
  // behind them, and a shared flight locks them once, in the lock order (src/db/postgres/flight-lanes.ts).
  const debit =
    message && message.cost > 0 ? chargeInOneFlight(ctx.db, scope, chargeOf(message), now) : undefined;
  try {
    await commitInLane(ctx, sendLane(scope, request.to), { own, counters: [limits.account], debit });
  } catch (error) {
    if (error instanceof FlightRefused || isUniqueViolation(error) || transactionConflictOf(error)) {
      return undefined;
    }
    throw error;
  }
  return answerOf(otp, send.channel, send.settings, message?.id ?? null);
}

// The burst form (SQLite).

/** A burst's answer for one send: its view, its refusal, or `undefined` for the transaction to decide. */
type BurstAnswer = OtpView | ApiError | undefined;

/**
 * Burst: the sends that arrive in one turn of the event loop, in one transaction
 * (src/db/sqlite/transaction-bursts.ts), per account and environment.
 */
function newOtpsInBurst(ctx: AppContext): BurstRunner<OtpSend, BurstAnswer> {
  return {
    groupOf: ({ scope }) => `${scope.accountId} ${scope.environment}`,
    run: (trx, sends) => sendNewOtps(trx, ctx, sends),
  };
}

/** A send of a burst counted against its number's limit, with the OTP and message it would make. */
interface CountedSend {
  place: number;
  send: OtpSend;
  numberLimit: HourlySendLimit;
  otp: OtpsTable;
  address: ReturnType<typeof newOtpAndMessage>["address"];
  message: MessagesTable | undefined;
}

/**
 * One account's sends of a burst: one read of which numbers have an OTP pending, the per-number
 * hourly counts, then the account's count and the debit of every charge at once, and multi-row
 * inserts of the OTPs, their messages, their delivery links and their `otp.sent` events.
 *
 * A send to a number with an OTP pending, or to a number an earlier send of the burst went to, is
 * left to the transaction (`undefined`): what it does depends on the OTP it finds. Every other
 * send is decided here, in arrival order, as the transaction would decide it: over its number's
 * limit it is refused; when the account's limit or the balance does not take them all, each is
 * counted and charged on its own (`chargeEach`), and those refused leave no trace.
 */
async function sendNewOtps(
  trx: Transaction<Database>,
  ctx: AppContext,
  sends: readonly OtpSend[],
): Promise<BurstAnswer[]> {
  const answers: BurstAnswer[] = sends.map(() => undefined);
  const { scope } = sends[0] as OtpSend;
  // One reading of the clock, so that counts taken back fall in the bucket they were counted in.
  const at = ctx.clock.now();
  const clock: Clock = { now: () => at };
  const now = isoNow(clock);

  const numbers = [...new Set(sends.map((send) => send.request.to))].sort();
  const pending = new Set(
    (await executeForIds(trx, numbersWithPendingOtp, scope, numbers)).map((row) => row.recipient),
  );
  const counted: CountedSend[] = [];
  const seen = new Set<string>();
  for (const [place, send] of sends.entries()) {
    const to = send.request.to;
    if (pending.has(to) || seen.has(to)) continue;
    seen.add(to);
    const numberLimit = numberSendLimit(ctx, scope, to);
    if (await countSends(trx, clock, numberLimit, 1)) {
      counted.push({ place, send, numberLimit, ...newOtpAndMessage(ctx, send, now) });
    } else answers[place] = sendRefusal(numberLimit);
  }
  if (counted.length === 0) return answers;

  const made = (await chargeAll(trx, ctx, clock, counted))
    ? counted
    : await chargeEach(trx, ctx, clock, counted, answers);
  const messages = made.flatMap(({ message }) => (message ? [message] : []));
  await insertRows(
    trx,
    "otps",
    made.map(({ otp }) => otp),
  );
  await insertRows(trx, "messages", messages);
  await insertRows(
    trx,
    "otp_deliveries",
    made.flatMap(({ address, message }) => (message ? [otpDeliveryRow(address, message, false)] : [])),
  );
  await recordEvents(
    trx,
    ctx,
    made.map(({ otp, message }) => newOtpSent(otp, message, now)),
  );
  for (const { place, send, otp, message } of made) {
    answers[place] = answerOf(otp, send.channel, send.settings, message?.id ?? null);
  }
  return answers;
}

/**
 * Every counted send at once, when the account's limit takes them all and the balance covers
 * them all: one guarded count, one guarded debit. `false`, with nothing changed, when either refuses.
 */
async function chargeAll(
  trx: Transaction<Database>,
  ctx: AppContext,
  clock: Clock,
  counted: readonly CountedSend[],
): Promise<boolean> {
  const scope = (counted[0] as CountedSend).send.scope;
  const accountLimit = accountSendLimit(ctx, scope);
  if (!(await countSends(trx, clock, accountLimit, counted.length))) return false;
  const charges = counted.flatMap(({ message }) => (message && message.cost > 0 ? [chargeOf(message)] : []));
  if (await applyLedgerCharges(trx, clock, scope, charges)) return true;
  await uncountSends(trx, clock, accountLimit, counted.length);
  return false;
}

/**
 * Each counted send on its own, in order, as the transaction takes one: counted against the
 * account's limit, then charged. A send either refuses is answered its refusal in `answers`, and
 * its counts are taken back. Answers the sends that went through.
 */
async function chargeEach(
  trx: Transaction<Database>,
  ctx: AppContext,
  clock: Clock,
  counted: readonly CountedSend[],
  answers: BurstAnswer[],
): Promise<CountedSend[]> {
  const made: CountedSend[] = [];
  for (const sent of counted) {
    const { scope } = sent.send;
    const accountLimit = accountSendLimit(ctx, scope);
    if (!(await countSends(trx, clock, accountLimit, 1))) {
      await uncountSends(trx, clock, sent.numberLimit, 1);
      answers[sent.place] = sendRefusal(accountLimit);
      continue;
    }
    const { message } = sent;
    try {
      if (message && message.cost > 0)
        await applyLedgerChange(trx, clock, { ...scope, ...chargeOf(message) });
    } catch (error) {
      // The guarded debit refused it and wrote nothing (ledger.ts): only the counts are undone.
      if (!(error instanceof ApiError)) throw error;
      await uncountSends(trx, clock, accountLimit, 1);
      await uncountSends(trx, clock, sent.numberLimit, 1);
      answers[sent.place] = error;
      continue;
    }
    made.push(sent);
  }
  return made;
}

/** Which of `numbers` have an OTP pending in the account's environment (the partial index of pending OTPs). */
const numbersWithPendingOtp = prepareForIds<
  { accountId: string; environment: Environment },
  { recipient: string }
>((db, param, numbers) =>
  db
    .selectFrom("otps")
    .select("recipient")
    .where("account_id", "=", param("accountId"))
    .where("environment", "=", param("environment"))
    .where("recipient", "in", numbers)
    .where("status", "=", sql.lit("pending")),
);
