import { hash, verify } from "@node-rs/argon2";
import { recordAudit } from "../audit/record.js";
import { memberActor } from "../audit/types.js";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { MemberIdentity } from "../members/members.js";
import { countHit, resetCount } from "../rate-limit.js";

/** Sign-in attempts allowed per window, per email address and per client address. */
export const SIGN_IN_LIMITS = { perEmail: 10, perClientAddress: 50, windowSeconds: 15 * 60 } as const;

/**
 * Checks an email and password; the session opens after it (after the second factor,
 * for a member who has one). Every attempt counts against the email's and the client's
 * limits before the password is looked at, so guessing stops at the limit whatever the guesses.
 */
export async function verifyCredentials(
  ctx: AppContext,
  input: { email: string; password: string; clientAddress: string },
): Promise<MemberIdentity> {
  const email = input.email.trim().toLowerCase();
  const emailKey = `sign-in:email:${email}`;
  const byEmail = await countHit(ctx.db, ctx.clock, emailKey, SIGN_IN_LIMITS.windowSeconds);
  const byClient = await countHit(
    ctx.db,
    ctx.clock,
    `sign-in:client:${input.clientAddress}`,
    SIGN_IN_LIMITS.windowSeconds,
  );
  if (byEmail.count > SIGN_IN_LIMITS.perEmail || byClient.count > SIGN_IN_LIMITS.perClientAddress) {
    const waitSeconds = Math.max(byEmail.resetsInSeconds, byClient.resetsInSeconds);
    throw new ApiError(
      "rate_limited",
      `Too many sign-in attempts; try again in ${Math.ceil(waitSeconds / 60)} minutes.`,
    ).withRetryAfter(waitSeconds);
  }
  const row = await ctx.db
    .selectFrom("members")
    .select(["id", "account_id", "email", "role", "password_hash"])
    .where("email", "=", email)
    .where("status", "=", "active")
    .executeTakeFirst();
  // An unknown email costs the same argon2 work as a known one, so timing does not tell them apart.
  const matches = await verify(row?.password_hash ?? (await decoyHash()), input.password);
  if (!row?.password_hash || !matches) {
    // A failed sign-in is the account's business when the email is one of its members'.
    if (row) {
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
    }
    throw new ApiError("invalid_credentials", "The email or password is not right.");
  }
  await resetCount(ctx.db, emailKey);
  return { memberId: row.id, accountId: row.account_id, email: row.email, role: row.role };
}

let decoy: Promise<string> | undefined;
function decoyHash(): Promise<string> {
  decoy ??= hash("a password no account has");
  return decoy;
}
