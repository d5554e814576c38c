/**
 * A member's two-factor sign-in (docs/two-factor.md): enrolment (a pending secret confirmed by a
 * code from it), recovery codes, turning it off, the account's rule that every member has it,
 * and the operator's reset. Each change is one function here, the place its audit row belongs.
 */
import { recordAudit } from "../audit/record.js";
import { twoFactorRequirementSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { DbOrTrx } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { passwordMatches } from "../members/credentials.js";
import { findMember, type Member, type MemberIdentity } from "../members/members.js";
import { countHit, resetCount } from "../rate-limit.js";
import { hashRecoveryCode, newRecoveryCodes } from "./recovery-codes.js";
import { sealTotpSecret, unsealTotpSecret } from "./secret-box.js";
import { matchTotp, newTotpSecret, otpauthUrl } from "./totp.js";

/** Codes and passwords typed on the Security page, per member and window. */
export const TWO_FACTOR_ATTEMPT_LIMITS = { perMember: 10, windowSeconds: 15 * 60 } as const;

/** What the Security page shows to enrol: the secret for typing in, its address and its QR code. */
export interface TwoFactorSetup {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}

/** Whether the member signs in with a second factor. */
export async function hasTwoFactor(db: DbOrTrx, memberId: string): Promise<boolean> {
  const row = await db
    .selectFrom("members")
    .select("two_factor_secret_sealed")
    .where("id", "=", memberId)
    .executeTakeFirst();
  return row?.two_factor_secret_sealed != null;
}

/**
 * Starts an enrolment: a new secret, kept sealed as pending (replacing any earlier pending one)
 * until a code from it confirms it. A member who has two-factor sign-in turns it off first.
 */
export async function startEnrolment(ctx: AppContext, member: MemberIdentity): Promise<TwoFactorSetup> {
  const secret = newTotpSecret();
  const started = await ctx.db
    .updateTable("members")
    .set({ two_factor_pending_secret_sealed: sealTotpSecret(ctx.secret, member.memberId, secret) })
    .where("id", "=", member.memberId)
    .where("two_factor_secret_sealed", "is", null)
    .executeTakeFirst();
  if (Number(started.numUpdatedRows) === 0) {
    throw new ApiError(
      "invalid_request",
      "Two-factor sign-in is already on. To move it to another app, turn it off first, then set it up again.",
    );
  }
  const url = otpauthUrl(secret, member.email);
  const { toString: qrSvg } = await import("qrcode");
  return { secret, otpauth_url: url, qr_svg: await qrSvg(url, { type: "svg", margin: 1 }) };
}

/**
 * Confirms the pending secret with a code from it: two-factor sign-in is on from now, and the ten
 * recovery codes answered are the only time they are shown.
 */
export async function enableTwoFactor(
  ctx: AppContext,
  member: MemberIdentity,
  code: string,
  origin: ChangeOrigin,
): Promise<string[]> {
  await countAttempt(ctx, member.memberId);
  const row = await ctx.db
    .selectFrom("members")
    .select(["two_factor_pending_secret_sealed", "two_factor_secret_sealed"])
    .where("id", "=", member.memberId)
    .executeTakeFirstOrThrow();
  if (row.two_factor_secret_sealed !== null) {
    throw new ApiError("invalid_request", "Two-factor sign-in is already on.");
  }
  const pending = row.two_factor_pending_secret_sealed;
  if (pending === null) {
    throw new ApiError("invalid_request", "Start the set-up first: no secret is waiting to be confirmed.");
  }
  const step = await matchTotp(ctx.clock, unsealTotpSecret(ctx.secret, member.memberId, pending), code, null);
  if (step === undefined) throw wrongCode("code");
  const codes = newRecoveryCodes();
  await inTransaction(ctx, async (trx) => {
    const enabled = await trx
      .updateTable("members")
      .set({
        two_factor_secret_sealed: pending,
        two_factor_pending_secret_sealed: null,
        two_factor_enabled_at: isoNow(ctx.clock),
        two_factor_last_time_step: step,
      })
      .where("id", "=", member.memberId)
      .where("two_factor_pending_secret_sealed", "=", pending)
      .where("two_factor_secret_sealed", "is", null)
      .executeTakeFirst();
    if (Number(enabled.numUpdatedRows) === 0) {
      throw new ApiError("invalid_request", "The set-up changed meanwhile; start it again.");
    }
    await replaceRecoveryCodes(trx, ctx, member.memberId, codes);
    await recordMemberChange(trx, ctx, member, origin, "two_factor.enabled");
  });
  await resetCount(ctx.db, attemptKey(member.memberId));
  return codes;
}

/** Turns the member's two-factor sign-in off, with their password; not while the account requires it. */
export async function disableTwoFactor(
  ctx: AppContext,
  member: MemberIdentity,
  password: string,
  origin: ChangeOrigin,
): Promise<void> {
  await confirmPassword(ctx, member.memberId, password);
  if (await accountRequiresTwoFactor(ctx.db, member.accountId)) {
    throw new ApiError(
      "forbidden",
      "This account requires two-factor sign-in for every member, so it cannot be turned off. An owner can lift the requirement in Settings → Security.",
    );
  }
  await inTransaction(ctx, async (trx) => {
    await clearTwoFactor(trx, member.memberId);
    await recordMemberChange(trx, ctx, member, origin, "two_factor.disabled");
  });
}

/** Ten new recovery codes, with the member's password; the old ones stop working. */
export async function regenerateRecoveryCodes(
  ctx: AppContext,
  member: MemberIdentity,
  password: string,
  origin: ChangeOrigin,
): Promise<string[]> {
  await confirmPassword(ctx, member.memberId, password);
  if (!(await hasTwoFactor(ctx.db, member.memberId))) {
    throw new ApiError("invalid_request", "Two-factor sign-in is off; recovery codes come with it.");
  }
  const codes = newRecoveryCodes();
  await inTransaction(ctx, async (trx) => {
    await replaceRecoveryCodes(trx, ctx, member.memberId, codes);
    await recordMemberChange(trx, ctx, member, origin, "two_factor.recovery_codes_replaced");
  });
  return codes;
}

/**
 * The account's rule that every member signs in with a second factor. The owner who sets it must
 * have it already, so the rule never starts by shutting its author out of the console.
 */
export async function setTwoFactorRequirement(
  ctx: AppContext,
  member: MemberIdentity,
  required: boolean,
  origin: ChangeOrigin,
): Promise<{ require_two_factor: boolean }> {
  if (required && !(await hasTwoFactor(ctx.db, member.memberId))) {
    throw new ApiError(
      "invalid_request",
      "Turn on two-factor sign-in for yourself first, then require it of every member.",
      "required",
    );
  }
  await inTransaction(ctx, async (trx) => {
    const before = await accountRequiresTwoFactor(trx, member.accountId);
    await trx
      .updateTable("accounts")
      .set({ require_two_factor: required ? 1 : 0 })
      .where("id", "=", member.accountId)
      .execute();
    await recordAudit(trx, ctx.clock, {
      accountId: member.accountId,
      environment: null,
      origin,
      action: "two_factor.requirement_changed",
      target: { type: "account", id: member.accountId },
      before: twoFactorRequirementSnapshot(before),
      after: twoFactorRequirementSnapshot(required),
    });
  });
  return { require_two_factor: required };
}

export async function accountRequiresTwoFactor(db: DbOrTrx, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom("accounts")
    .select("require_two_factor")
    .where("id", "=", accountId)
    .executeTakeFirst();
  // An account that cannot be read is held to the rule: the check fails closed.
  return row?.require_two_factor !== 0;
}

/**
 * The operator's reset (`dakiya members reset-2fa`), for a member who lost their app and their
 * recovery codes: their second factor and recovery codes are gone and their sessions end. Where
 * the account requires two-factor sign-in, they set it up again after their next sign-in.
 */
export async function resetTwoFactor(
  ctx: AppContext,
  input: { accountId: string; email: string },
  origin: ChangeOrigin,
): Promise<Member> {
  return inTransaction(ctx, async (trx) => {
    const member = await findMember(trx, input.accountId, { email: input.email });
    await clearTwoFactor(trx, member.id);
    await trx.deleteFrom("dashboard_sessions").where("member_id", "=", member.id).execute();
    await recordAudit(trx, ctx.clock, {
      accountId: input.accountId,
      environment: null,
      origin,
      action: "two_factor.reset",
      target: { type: "member", id: member.id },
    });
    return member;
  });
}

/** A change of the member's own second factor, made by the member. */
async function recordMemberChange(
  trx: DbOrTrx,
  ctx: AppContext,
  member: MemberIdentity,
  origin: ChangeOrigin,
  action: "two_factor.enabled" | "two_factor.disabled" | "two_factor.recovery_codes_replaced",
): Promise<void> {
  await recordAudit(trx, ctx.clock, {
    accountId: member.accountId,
    environment: null,
    origin,
    action,
    target: { type: "member", id: member.memberId },
  });
}

async function clearTwoFactor(trx: DbOrTrx, memberId: string): Promise<void> {
  await trx
    .updateTable("members")
    .set({
      two_factor_secret_sealed: null,
      two_factor_pending_secret_sealed: null,
      two_factor_enabled_at: null,
      two_factor_last_time_step: null,
    })
    .where("id", "=", memberId)
    .execute();
  await trx.deleteFrom("two_factor_recovery_codes").where("member_id", "=", memberId).execute();
  await trx.deleteFrom("two_factor_challenges").where("member_id", "=", memberId).execute();
}

async function replaceRecoveryCodes(
  trx: DbOrTrx,
  ctx: AppContext,
  memberId: string,
  codes: string[],
): Promise<void> {
  const now = isoNow(ctx.clock);
  await trx.deleteFrom("two_factor_recovery_codes").where("member_id", "=", memberId).execute();
  await trx
    .insertInto("two_factor_recovery_codes")
    .values(
      codes.map((code) => ({
        id: newId("rcv"),
        member_id: memberId,
        code_hash: hashRecoveryCode(code),
        created_at: now,
        used_at: null,
      })),
    )
    .execute();
}

/** The member's password, asked again before a change that weakens or replaces their second factor. */
async function confirmPassword(ctx: AppContext, memberId: string, password: string): Promise<void> {
  await countAttempt(ctx, memberId);
  const row = await ctx.db
    .selectFrom("members")
    .select("password_hash")
    .where("id", "=", memberId)
    .executeTakeFirst();
  if (!row?.password_hash || !(await passwordMatches(row.password_hash, password))) {
    throw new ApiError("invalid_credentials", "The password is not right.", "password");
  }
}

async function countAttempt(ctx: AppContext, memberId: string): Promise<void> {
  const hit = await countHit(
    ctx.db,
    ctx.clock,
    attemptKey(memberId),
    TWO_FACTOR_ATTEMPT_LIMITS.windowSeconds,
  );
  if (hit.count > TWO_FACTOR_ATTEMPT_LIMITS.perMember) {
    throw new ApiError(
      "rate_limited",
      `Too many attempts; try again in ${Math.ceil(hit.resetsInSeconds / 60)} minutes.`,
    ).withRetryAfter(hit.resetsInSeconds);
  }
}

function attemptKey(memberId: string): string {
  return `two-factor:settings:${memberId}`;
}

export function wrongCode(param: "code" | "recovery_code"): ApiError {
  return new ApiError(
    "invalid_credentials",
    param === "code"
      ? "The code is not right: type the 6 digits your authenticator app shows now."
      : "The recovery code is not right, or it was used already.",
    param,
  );
}
