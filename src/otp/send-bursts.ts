import { sql, type Transaction } from "kysely";
import { applyLedgerCharges, chargeOf } from "../accounts/ledger.js";
import { type Clock, isoNow } from "../clock.js";
import type { AppContext } from "../context.js";
import { executeForIds, insertRows, prepareForIds } from "../db/prepared.js";
import type { Database, Environment } from "../db/schema.js";
import { type BurstRunner, burstQueue } from "../db/transaction-bursts.js";
import { recordEvents } from "../events/outbox.js";
import { hitsUnderLimit, hitUnderLimit, takeBackHits } from "../rate-limit.js";
import { otpDeliveryRow } from "./deliveries.js";
import {
  accountSendLimit,
  answerOf,
  type FirstSend,
  HOUR_SECONDS,
  hourlySendLimits,
  newOtpAndMessage,
  SEND_BUCKET_SECONDS,
} from "./first-send.js";
import type { OtpView } from "./otp.js";
import { firstDeliveries, otpView } from "./view.js";

/**
 * SQLite: sends with no answer to store (no Idempotency-Key) that arrive in one turn of the event
 * loop and make a new OTP are written in one transaction (src/db/transaction-bursts.ts): per
 * account and environment, one read of which numbers have an OTP pending, the per-number hourly
 * counts, one guarded count of the account's, one guarded debit for every charge, and multi-row
 * inserts of the OTPs, their messages, their delivery links and their `otp.sent` events.
 *
 * Answers `undefined` for a send it leaves to the ordinary transaction (otp.ts), having written
 * nothing of it: its number has an OTP pending, or an earlier send of the burst goes to the same
 * number, or a limit or the balance would refuse it (then the whole account's share of the burst
 * is left, since which of them to refuse is decided one by one). The ordinary transaction then
 * decides, with the answer and error it has always given; as on PostgreSQL, where the same sends
 * take one round trip (first-send.ts).
 */
export function sendFirstOtpInBurst(ctx: AppContext, send: FirstSend): Promise<OtpView | undefined> {
  return burstQueue(ctx, firstSendsInBurst).add(send);
}

function firstSendsInBurst(ctx: AppContext): BurstRunner<FirstSend, OtpView | undefined> {
  return {
    groupOf: ({ scope }) => `${scope.accountId} ${scope.environment}`,
    run: (trx, sends) => sendFirstOtps(trx, ctx, sends),
  };
}

/** The sends of one account and environment: see `sendFirstOtpInBurst`. */
async function sendFirstOtps(
  trx: Transaction<Database>,
  ctx: AppContext,
  sends: readonly FirstSend[],
): Promise<Array<OtpView | undefined>> {
  const answers: Array<OtpView | undefined> = sends.map(() => undefined);
  const { scope } = sends[0] as FirstSend;
  // One reading of the clock, so that counts taken back fall in the bucket they were counted in.
  const at = ctx.clock.now();
  const clock: Clock = { now: () => at };
  const now = isoNow(clock);

  const numbers = [...new Set(sends.map((send) => send.request.to))].sort();
  const pending = new Set(
    (await executeForIds(trx, numbersWithPendingOtp, scope, numbers)).map((row) => row.recipient),
  );
  const taken: Array<{ place: number; send: FirstSend; numberKey: string }> = [];
  const seen = new Set<string>();
  for (const [place, send] of sends.entries()) {
    const to = send.request.to;
    if (pending.has(to) || seen.has(to)) continue;
    seen.add(to);
    const [numberLimit] = hourlySendLimits(ctx, scope, to);
    const { key, limit } = numberLimit;
    if (await hitUnderLimit(trx, clock, key, limit, HOUR_SECONDS, SEND_BUCKET_SECONDS)) {
      taken.push({ place, send, numberKey: key });
    }
  }
  if (taken.length === 0) return answers;

  const accountLimit = accountSendLimit(ctx, scope);
  const leaveAll = async (accountCounted: boolean) => {
    for (const { numberKey } of taken) await takeBackHits(trx, clock, numberKey, 1, SEND_BUCKET_SECONDS);
    if (accountCounted) {
      await takeBackHits(trx, clock, accountLimit.key, taken.length, SEND_BUCKET_SECONDS);
    }
    return answers;
  };
  const accountCounted = await hitsUnderLimit(
    trx,
    clock,
    accountLimit.key,
    taken.length,
    accountLimit.limit,
    HOUR_SECONDS,
    SEND_BUCKET_SECONDS,
  );
  if (!accountCounted) return leaveAll(false);

  const made = taken.map(({ place, send }) => ({ place, send, ...newOtpAndMessage(ctx, send, now) }));
  const messages = made.flatMap(({ message }) => (message ? [message] : []));
  const charges = messages.filter((message) => message.cost > 0).map(chargeOf);
  if (!(await applyLedgerCharges(trx, clock, scope, charges))) return leaveAll(true);

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
    made.map(({ otp, message }) => ({
      accountId: scope.accountId,
      environment: scope.environment,
      type: "otp.sent" as const,
      data: otpView(otp, firstDeliveries(message), now),
    })),
  );
  for (const { place, send, otp, message } of made) {
    answers[place] = answerOf(otp, send.channel, send.settings, message?.id ?? null);
  }
  return answers;
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
