import { type RawBuilder, sql, type Transaction } from "kysely";
import type { AppContext } from "../context.js";
import { commitInOneFlight, FlightRefused, guarded, statementOf } from "../db/postgres/one-flight.js";
import { prepareQuery } from "../db/prepared.js";
import { readTogether } from "../db/read-together.js";
import { rowLimit } from "../db/row-limit.js";
import type { Database, DbOrTrx, OtpsTable } from "../db/schema.js";
import { type BurstRunner, burstQueue } from "../db/sqlite/transaction-bursts.js";
import { inTransaction, transactionConflictOf } from "../db/transaction.js";
import { writeFormOf } from "../db/write-form.js";
import { ApiError } from "../errors.js";
import { eventInsert } from "../events/outbox.js";
import type { RecordAnswer } from "../idempotency/recorder.js";
import type { KeyPrincipal } from "../keys/authenticate.js";
import { isoNow } from "../lib/clock.js";
import { requireIndianMobile } from "../lib/phone.js";
import { codeMatches } from "./codes.js";
import { otpEvent, recordOtpEvents } from "./events.js";
import { pendingOtp } from "./pending.js";
import type { NumberScope, OtpDetailsView, VerifyResult } from "./types.js";
import { otpViews } from "./view.js";

type SettledOtp = Pick<OtpsTable, "status" | "attempts" | "max_attempts">;

/**
 * A number's latest OTP, for a verification that found none pending: what its answer reads. A
 * cancelled OTP is never it: the OTP that replaced it is, even when both were made in one
 * millisecond and its id sorts first.
 */
const latestOtp = prepareQuery<NumberScope, SettledOtp>((db, param) =>
  db
    .selectFrom("otps")
    .select(["status", "attempts", "max_attempts"])
    .where("account_id", "=", param("accountId"))
    .where("environment", "=", param("environment"))
    .where("recipient", "=", param("to"))
    .where("status", "<>", sql.lit("cancelled"))
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(rowLimit(1)),
);

/** An OTP as a counted attempt left it. */
type CountedAttempt = Pick<OtpsTable, "attempts" | "max_attempts" | "code_hash">;

/**
 * One verification attempt, counted only while the OTP is pending and unexpired and `attemptsLeft`
 * holds (a condition on the OTP's columns before the count).
 */
function attemptCounted(attemptsLeft: RawBuilder<boolean>) {
  return prepareQuery<{ id: string; now: string }, CountedAttempt>((db, param) =>
    db
      .updateTable("otps")
      .set({ attempts: sql`attempts + 1`, updated_at: param("now") })
      .where("id", "=", param("id"))
      .where("status", "=", sql.lit("pending"))
      .where("expires_at", ">", param("now"))
      .where(attemptsLeft)
      .returning(["attempts", "max_attempts", "code_hash"]),
  );
}

/** An attempt, while the OTP has attempts left. */
const countAttempt = attemptCounted(sql<boolean>`attempts < max_attempts`);
/**
 * An attempt that leaves the OTP pending whatever the code: one with attempts to spare after it
 * (the last attempt locks the OTP, which writes an event with the count).
 */
const countAttemptLeavingPending = attemptCounted(sql<boolean>`attempts + 1 < max_attempts`);

/**
 * The update that approves OTP `id` at `now` while it is pending. One locked meanwhile stays
 * locked: its `otp.failed` is written, and an OTP that ended unverified never becomes verified.
 */
function approval(db: DbOrTrx, id: string, now: string) {
  return db
    .updateTable("otps")
    .set({ status: "approved", approved_at: now, code_sealed: null, fallback_due_at: null, updated_at: now })
    .where("id", "=", id)
    .where("status", "=", sql.lit("pending"));
}

/** An approval of the OTP as its read and its count left it: counted to `attempts`, sent `sends` times. */
const approveAsCounted = prepareQuery<
  { id: string; now: string; attempts: number; sends: number },
  Pick<OtpsTable, "id">
>((db, param) =>
  approval(db, param("id"), param("now"))
    .where("attempts", "=", param("attempts"))
    .where("sends", "=", param("sends"))
    .returning(["id"]),
);

/** An approval of a pending OTP. */
const approveOtp = prepareQuery<{ id: string; now: string }, OtpsTable>((db, param) =>
  approval(db, param("id"), param("now")).returningAll(),
);

/** The form a verification's write takes (src/db/write-form.ts); only a transaction stores an answer. */
export type VerifyWrite =
  | { form: "transaction"; record?: RecordAnswer<VerifyResult> }
  | { form: "one_flight" | "burst" };

/**
 * Checks a code. Attempts are counted with one guarded update, so however many verifications
 * arrive at once, at most `max_attempts` of them compare a code; the OTP is approved once. The
 * count, what it settles (approved, locked, expired) and, with `record`, the answer are written
 * together, in the one form chosen here.
 */
export function verifyOtp(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: { to: string; code: string },
  record?: RecordAnswer<VerifyResult>,
): Promise<VerifyResult> {
  const form = writeFormOf(ctx.dialect, { storesAnswer: record !== undefined });
  return verifyOtpAs(ctx, principal, request, form === "transaction" ? { form, record } : { form });
}

/** `verifyOtp` with its write in the form `write` names; tests choose the form here. */
export async function verifyOtpAs(
  ctx: AppContext,
  principal: KeyPrincipal,
  request: { to: string; code: string },
  write: VerifyWrite,
): Promise<VerifyResult> {
  requireIndianMobile(request.to);
  const number = { accountId: principal.accountId, environment: principal.environment, to: request.to };
  const result = await writeVerification(ctx, number, request.code, write);
  ctx.metrics.otpVerified(principal.environment, result.reason);
  return result;
}

function writeVerification(
  ctx: AppContext,
  number: NumberScope,
  code: string,
  write: VerifyWrite,
): Promise<VerifyResult> {
  switch (write.form) {
    case "transaction":
      return verifyInTransaction(ctx, number, code, undefined, write.record);
    case "one_flight":
      return verifyInOneFlight(ctx, number, code);
    case "burst":
      return verifyInBurst(ctx, number, code);
  }
}

/** Transaction: `checkCode`, with the stored answer if there is one. */
function verifyInTransaction(
  ctx: AppContext,
  number: NumberScope,
  code: string,
  pendingId: string | undefined,
  record?: RecordAnswer<VerifyResult>,
): Promise<VerifyResult> {
  return inTransaction(ctx, async (trx) => {
    const checked = await checkCode(trx, ctx, number, code, pendingId);
    await record?.(trx, checked);
    return checked;
  });
}

/**
 * Burst (SQLite, which has no round trips to save): a number with no pending OTP is answered
 * from its latest, which has settled (approved, locked or expired) and never changes again, so
 * it takes no attempt. Otherwise the verification goes with the others of this turn of the event
 * loop (`verificationsInBurst`), with the pending OTP it read for `checkCode` to count the
 * attempt on without reading it again. A latest still pending was sent between the two reads:
 * `checkCode` checks the code against it.
 */
async function verifyInBurst(ctx: AppContext, number: NumberScope, code: string): Promise<VerifyResult> {
  const [pending] = (await pendingOtp.execute(ctx.db, number)).rows;
  const answer = pending ? undefined : latestAnswer((await latestOtp.execute(ctx.db, number)).rows[0]);
  return answer ?? burstQueue(ctx, verificationsInBurst).add({ number, code, pendingId: pending?.id });
}

/** A verification with an attempt to count: `pendingId` is the pending OTP it read, if it read one. */
interface PendingVerification {
  number: NumberScope;
  code: string;
  pendingId: string | undefined;
}

/**
 * SQLite: the verifications of a turn of the event loop that have an attempt to count share one
 * transaction (src/db/sqlite/transaction-bursts.ts), each checked in arrival order as it would be alone:
 * a second verification of the same OTP sees what the first wrote.
 */
function verificationsInBurst(ctx: AppContext): BurstRunner<PendingVerification, VerifyResult> {
  return {
    groupOf: () => "",
    run: async (trx, verifications) => {
      const results: VerifyResult[] = [];
      for (const { number, code, pendingId } of verifications) {
        results.push(await checkCode(trx, ctx, number, code, pendingId));
      }
      return results;
    },
  };
}

/**
 * One flight (PostgreSQL), in fewer round trips than `checkCode`; what it cannot answer goes to
 * the transaction.
 * - The pending and the latest OTP are read together. No pending OTP: the answer of the latest,
 *   as in the burst form.
 * - A pending OTP with attempts to spare: the attempt is counted on its own (one round trip,
 *   where `checkCode` takes four for a wrong code), then the code is compared. A wrong one is
 *   answered at once; a right one is approved with its event in two more (its deliveries read,
 *   then `approveInOneFlight`). The attempt that would lock the OTP, an expired OTP, or one
 *   settled since it was read, go to the transaction whatever the code, so no answer, and no
 *   path a code takes, tells anything of an attempt that was not counted. A right code whose OTP
 *   a new send replaced before it was approved is checked by `checkCode` against the new one.
 */
async function verifyInOneFlight(ctx: AppContext, number: NumberScope, code: string): Promise<VerifyResult> {
  const [[pending], [latest]] = await readTogether(ctx, [
    pendingOtp.compile(ctx.db, number),
    latestOtp.compile(ctx.db, number),
  ]);
  if (!pending) return latestAnswer(latest) ?? verifyInTransaction(ctx, number, code, undefined);
  const now = isoNow(ctx.clock);
  const [counted] = (await countAttemptLeavingPending.execute(ctx.db, { id: pending.id, now })).rows;
  if (!counted) return verifyInTransaction(ctx, number, code, undefined);
  const remaining = counted.max_attempts - counted.attempts;
  if (!codeMatches(ctx.secret, pending.id, code, counted.code_hash)) {
    return { verified: false, reason: "incorrect_code", attempts_remaining: remaining };
  }
  return (
    (await approveInOneFlight(ctx, pending, counted.attempts, now, remaining)) ??
    (await inTransaction(
      ctx,
      async (trx) =>
        (await approveCounted(trx, ctx, pending.id, now, remaining)) ?? checkCode(trx, ctx, number, code),
    ))
  );
}

/**
 * PostgreSQL: the approval of `verifyInOneFlight` and its `otp.verified` in one round trip,
 * the event built from the OTP as it was read and counted (and its deliveries, read just before).
 * `undefined`, having written nothing, when the OTP changed since (settled, sent again, counted
 * again), for `approveCounted` to decide as it now stands.
 */
async function approveInOneFlight(
  ctx: AppContext,
  pending: OtpsTable,
  attempts: number,
  now: string,
  remaining: number,
): Promise<VerifyResult | undefined> {
  const approved: OtpsTable = {
    ...pending,
    attempts,
    status: "approved",
    approved_at: now,
    code_sealed: null,
    fallback_due_at: null,
    updated_at: now,
  };
  const [view] = await otpViews(ctx.db, [approved], now);
  const event = eventInsert(ctx.db, ctx, otpEvent("otp.verified", approved, view as OtpDetailsView));
  const approval = approveAsCounted.compile(ctx.db, { id: pending.id, now, attempts, sends: pending.sends });
  try {
    await commitInOneFlight(ctx.db, [guarded(approval, "otp_changed"), statementOf(event.insert)]);
  } catch (error) {
    if (error instanceof FlightRefused) return undefined;
    // Nothing was written: the ordinary transaction, which runs again on conflicts, approves it.
    const conflict = transactionConflictOf(error);
    if (conflict === undefined) throw error;
    ctx.metrics.transactionConflict(conflict, "retried");
    return undefined;
  }
  return { verified: true, reason: "approved", attempts_remaining: remaining };
}

/**
 * The answer of a number's latest OTP, for a verification that found none pending; `undefined`
 * when it is pending, sent since that read.
 */
function latestAnswer(latest: SettledOtp | undefined): VerifyResult | undefined {
  return latest ? settledAnswer(latest) : { verified: false, reason: "not_found", attempts_remaining: 0 };
}

/**
 * Checks a code against the number's pending OTP in `trx`: counts the attempt, compares the
 * code, and approves, locks or expires the OTP. On PostgreSQL each statement reads what was
 * committed when it began, so a send may replace the OTP a statement found before the next one
 * writes it (or make a new one between the reads of the pending and the latest OTP). The check
 * then starts again on the OTP that send made: the code is checked against the OTP pending when
 * it is counted, and a replaced OTP is never answered `expired`.
 */
async function checkCode(
  trx: Transaction<Database>,
  ctx: AppContext,
  number: NumberScope,
  code: string,
  /** The id of the pending OTP read before the transaction, if any. */
  readBefore?: string,
): Promise<VerifyResult> {
  const now = isoNow(ctx.clock);
  // A pending OTP read before the transaction whose attempt still counts is still pending, and a
  // number has one pending OTP at most: it is the one a read now would find. Counted in this
  // transaction, it stays so until COMMIT: its answer is final.
  if (readBefore !== undefined) {
    const [counted] = (await countAttempt.execute(trx, { id: readBefore, now })).rows;
    const answer = counted && (await answerCounted(trx, ctx, readBefore, code, counted, now));
    if (answer) return answer;
  }
  // Each check that finds no answer found an OTP that a send made since the check before, so
  // there are no more of them than sends to the number within the hourly limit.
  for (let check = 1; ; check++) {
    const answer = await checkPendingCode(trx, ctx, number, code, now, check === 1 ? readBefore : undefined);
    if (answer) return answer;
    if (check > ctx.otpLimits.sendsPerNumberPerHour) {
      throw new ApiError(
        "unavailable",
        "The number's OTP kept changing while this code was checked; try again.",
      ).withRetryAfter(1);
    }
  }
}

/**
 * One check of `checkCode`: its answer, or `undefined` when the number's OTP was replaced, or a
 * new one sent, since it was read.
 */
async function checkPendingCode(
  trx: Transaction<Database>,
  ctx: AppContext,
  number: NumberScope,
  code: string,
  now: string,
  /** The pending OTP read before the transaction whose attempt did not count just now. */
  uncounted: string | undefined,
): Promise<VerifyResult | undefined> {
  const [pending] = (await pendingOtp.execute(trx, number)).rows;
  if (!pending) return latestAnswer((await latestOtp.execute(trx, number)).rows[0]);
  // The OTP read before, still pending, took no attempt just now: counting again would not either.
  const [counted] =
    pending.id === uncounted ? [] : (await countAttempt.execute(trx, { id: pending.id, now })).rows;
  if (!counted) {
    // Expired or out of attempts, or settled or replaced by a concurrent request since it was read.
    const otp = await trx
      .selectFrom("otps")
      .selectAll()
      .where("id", "=", pending.id)
      .executeTakeFirstOrThrow();
    return settledOutcome(trx, ctx, otp, now);
  }
  return answerCounted(trx, ctx, pending.id, code, counted, now);
}

/**
 * Compares the code of a counted attempt: approved, or refused (and locked on the last attempt);
 * `undefined` when a right code's OTP was replaced before its approval (see `approveCounted`).
 */
async function answerCounted(
  trx: Transaction<Database>,
  ctx: AppContext,
  id: string,
  code: string,
  counted: CountedAttempt,
  now: string,
): Promise<VerifyResult | undefined> {
  const remaining = counted.max_attempts - counted.attempts;
  if (codeMatches(ctx.secret, id, code, counted.code_hash)) {
    return approveCounted(trx, ctx, id, now, remaining);
  }
  if (remaining === 0) await endOtp(trx, ctx, id, "locked", now);
  return { verified: false, reason: "incorrect_code", attempts_remaining: remaining };
}

/**
 * Approves an OTP whose right code was given in a counted attempt, with its `otp.verified`. When
 * the attempt was counted on its own (`verifyInOneFlight`), the OTP may have settled since:
 * approved by another attempt, replaced by a new send, expired, or locked by later attempts that
 * used up the rest (the lock stands). The answer is then the OTP's as it now stands, or
 * `undefined` when a new send replaced it: the code is then checked against the new OTP.
 */
async function approveCounted(
  trx: Transaction<Database>,
  ctx: AppContext,
  id: string,
  now: string,
  remaining: number,
): Promise<VerifyResult | undefined> {
  const [approved] = (await approveOtp.execute(trx, { id, now })).rows;
  if (!approved) {
    const otp = await trx
      .selectFrom("otps")
      .select(["status", "attempts", "max_attempts"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    return settledAnswer(otp);
  }
  await recordOtpEvents(trx, ctx, "otp.verified", [approved]);
  return { verified: true, reason: "approved", attempts_remaining: remaining };
}

/**
 * Why an OTP takes no more attempts: approved, out of attempts, or expired. One still pending
 * (expired, or out of attempts) is ended here. `undefined` for an OTP a new send replaced.
 */
async function settledOutcome(
  trx: Transaction<Database>,
  ctx: AppContext,
  otp: OtpsTable,
  now: string,
): Promise<VerifyResult | undefined> {
  if (otp.status !== "pending") return settledAnswer(otp);
  if (otp.attempts >= otp.max_attempts) {
    await endOtp(trx, ctx, otp.id, "locked", now);
    return { verified: false, reason: "max_attempts_reached", attempts_remaining: 0 };
  }
  await endOtp(trx, ctx, otp.id, "expired", now);
  return { verified: false, reason: "expired", attempts_remaining: otp.max_attempts - otp.attempts };
}

/**
 * What a verification of an OTP that is no longer pending answers. `undefined` for one that
 * settled nothing: pending, or cancelled (a new send replaced it, and the code is the new OTP's
 * to check).
 */
function settledAnswer(otp: SettledOtp): VerifyResult | undefined {
  const remaining = Math.max(0, otp.max_attempts - otp.attempts);
  switch (otp.status) {
    case "approved":
      return { verified: false, reason: "already_verified", attempts_remaining: remaining };
    case "locked":
      return { verified: false, reason: "max_attempts_reached", attempts_remaining: 0 };
    case "expired":
      return { verified: false, reason: "expired", attempts_remaining: remaining };
    case "pending":
    case "cancelled":
      return undefined;
  }
}

/** Ends a pending OTP unverified; the one call that changes it writes its `otp.failed`. */
async function endOtp(
  trx: Transaction<Database>,
  ctx: AppContext,
  id: string,
  status: "locked" | "expired",
  now: string,
): Promise<void> {
  const ended = await trx
    .updateTable("otps")
    .set({ status, code_sealed: null, fallback_due_at: null, updated_at: now })
    .where("id", "=", id)
    .where("status", "=", sql.lit("pending"))
    .returningAll()
    .executeTakeFirst();
  if (ended) await recordOtpEvents(trx, ctx, "otp.failed", [ended]);
}
