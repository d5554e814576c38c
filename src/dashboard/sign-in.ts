import { hash, verify } from "@node-rs/argon2";
import type { Account } from "../accounts/accounts.js";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { countHit, resetCount } from "../rate-limit.js";

/** Sign-in attempts allowed per window, per email address and per client address. */
export const SIGN_IN_LIMITS = { perEmail: 10, perClientAddress: 50, windowSeconds: 15 * 60 } as const;

/**
 * Checks an email and password. Every attempt counts against the email's and the client's
 * limits before the password is looked at, so guessing stops at the limit whatever the guesses.
 */
export async function verifyCredentials(
  ctx: AppContext,
  input: { email: string; password: string; clientAddress: string },
): Promise<Pick<Account, "id" | "email">> {
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
    .selectFrom("accounts")
    .select(["id", "email", "password_hash"])
    .where("email", "=", email)
    .executeTakeFirst();
  // An unknown email costs the same argon2 work as a known one, so timing does not tell them apart.
  const matches = await verify(row?.password_hash ?? (await decoyHash()), input.password);
  if (!row || !matches) throw new ApiError("invalid_credentials", "The email or password is not right.");
  await resetCount(ctx.db, emailKey);
  return { id: row.id, email: row.email };
}

let decoy: Promise<string> | undefined;
function decoyHash(): Promise<string> {
  decoy ??= hash("a password no account has");
  return decoy;
}
