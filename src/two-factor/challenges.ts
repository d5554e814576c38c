/**
 * The second step of signing in: a right password for a member with two-factor sign-in answers a
 * challenge instead of a session. The challenge is opaque, kept as its SHA-256, bound to the
 * member, valid 5 minutes and used once; answers count against the member's limit, so guessing a
 * 6-digit code stops long before it could succeed.
 */
import type { Transaction } from "kysely";
import { recordAudit } from "../audit/record.js";
import { memberActor } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { Database } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { hashSecret } from "../keys/secrets.js";
import { isoAfter, isoNow } from "../lib/clock.js";
import { randomBase62 } from "../lib/ids.js";
import type { MemberIdentity } from "../members/members.js";
import { countHit, resetCount } from "../rate-limit.js";
import { hashRecoveryCode } from "./recovery-codes.js";
import { unsealTotpSecret } from "./secret-box.js";
import { matchTotp } from "./totp.js";
import { wrongCode } from "./two-factor.js";

export const CHALLENGE_LIFETIME_SECONDS = 5 * 60;
/** Second-factor answers per member and window, whichever challenge they name. */
export const SECOND_FACTOR_LIMITS = { perMember: 5, windowSeconds: 15 * 60 } as const;
const CHALLENGE_LENGTH = 43;

export type SecondFactor = { code: string } | { recovery_code: string };

export async function issueChallenge(ctx: AppContext, member: MemberIdentity): Promise<string> {
  const challenge = randomBase62(CHALLENGE_LENGTH);
  await ctx.db
    .insertInto("two_factor_challenges")
    .values({
      token_hash: hashSecret(challenge),
      member_id: member.memberId,
      created_at: isoNow(ctx.clock),
      expires_at: isoAfter(ctx.clock, CHALLENGE_LIFETIME_SECONDS),
    })
    .execute();
  return challenge;
}

/**
 * Checks the second factor against the challenge: a TOTP code of a time step after the last one
 * accepted, or an unused recovery code. The challenge and the code are spent together, in one
 * transaction. Answers the member, who may then be signed in.
 */
export async function answerChallenge(
  ctx: AppContext,
  input: { challenge: string; clientAddress: string } & SecondFactor,
): Promise<MemberIdentity> {
  const tokenHash = hashSecret(input.challenge);
  const now = isoNow(ctx.clock);
  const row = await ctx.db
    .selectFrom("two_factor_challenges as c")
    .innerJoin("members as m", "m.id", "c.member_id")
    .select([
      "m.id",
      "m.account_id",
      "m.email",
      "m.role",
      "m.two_factor_secret_sealed",
      "m.two_factor_last_time_step",
    ])
    .where("c.token_hash", "=", tokenHash)
    .where("c.expires_at", ">", now)
    .where("m.status", "=", "active")
    .executeTakeFirst();
  if (!row?.two_factor_secret_sealed) throw challengeEnded();
  const limitKey = `two-factor:sign-in:${row.id}`;
  const hit = await countHit(ctx.db, ctx.clock, limitKey, SECOND_FACTOR_LIMITS.windowSeconds);
  if (hit.count > SECOND_FACTOR_LIMITS.perMember) {
    throw new ApiError(
      "rate_limited",
      `Too many codes tried; try again in ${Math.ceil(hit.resetsInSeconds / 60)} minutes.`,
    ).withRetryAfter(hit.resetsInSeconds);
  }

  // A wrong second factor is a failed sign-in of the member's, recorded like a wrong password.
  const refused = async (param: "code" | "recovery_code") => {
    await recordAudit(ctx.db, ctx.clock, {
      accountId: row.account_id,
      environment: null,
      origin: {
        actor: memberActor({ memberId: row.id, email: row.email }),
        clientAddress: input.clientAddress,
      },
      action: "sign_in.failed",
      target: { type: "member", id: row.id },
    });
    return wrongCode(param);
  };

  const spend = (spendFactor: (trx: Transaction<Database>) => Promise<boolean>) =>
    inTransaction(ctx, async (trx) => {
      if (!(await spendFactor(trx))) return false;
      const spent = await trx
        .deleteFrom("two_factor_challenges")
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst();
      if (Number(spent.numDeletedRows) === 0) throw challengeEnded();
      return true;
    });

  if ("code" in input) {
    const secret = unsealTotpSecret(ctx.secret, row.id, row.two_factor_secret_sealed);
    const step = await matchTotp(ctx.clock, secret, input.code, row.two_factor_last_time_step);
    const accepted =
      step !== undefined &&
      (await spend(async (trx) => {
        // Guarded, so two requests with the same code cannot both pass.
        const moved = await trx
          .updateTable("members")
          .set({ two_factor_last_time_step: step })
          .where("id", "=", row.id)
          .where((eb) =>
            eb.or([eb("two_factor_last_time_step", "is", null), eb("two_factor_last_time_step", "<", step)]),
          )
          .executeTakeFirst();
        return Number(moved.numUpdatedRows) === 1;
      }));
    if (!accepted) throw await refused("code");
  } else {
    const codeHash = hashRecoveryCode(input.recovery_code);
    const accepted = await spend(async (trx) => {
      const used = await trx
        .updateTable("two_factor_recovery_codes")
        .set({ used_at: now })
        .where("member_id", "=", row.id)
        .where("code_hash", "=", codeHash)
        .where("used_at", "is", null)
        .executeTakeFirst();
      return Number(used.numUpdatedRows) === 1;
    });
    if (!accepted) throw await refused("recovery_code");
  }
  await resetCount(ctx.db, limitKey);
  return { memberId: row.id, accountId: row.account_id, email: row.email, role: row.role };
}

export async function purgeExpiredChallenges(ctx: AppContext, now: string): Promise<number> {
  const result = await ctx.db
    .deleteFrom("two_factor_challenges")
    .where("expires_at", "<=", now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

function challengeEnded(): ApiError {
  return new ApiError(
    "invalid_credentials",
    "This sign-in has ended (it expired after 5 minutes or was used); sign in again with your password.",
    "challenge",
  );
}
