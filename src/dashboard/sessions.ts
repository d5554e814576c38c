/**
 * Dashboard sessions: a random token in an HttpOnly cookie, stored only as its SHA-256, ending
 * after 12 hours unused or 7 days after sign-in, whichever comes first.
 */
import { createHmac } from "node:crypto";
import { recordAudit } from "../audit/record.js";
import { memberActor } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { DashboardSessionsTable } from "../db/console-schema.js";
import { inTransaction } from "../db/transaction.js";
import { hashSecret } from "../keys/secrets.js";
import { addSeconds, isoNow } from "../lib/clock.js";
import { newId, randomBase62 } from "../lib/ids.js";
import type { MemberIdentity } from "../members/members.js";

export const SESSION_COOKIE = "dakiya_session";
const SESSION_IDLE_SECONDS = 12 * 3600;
export const SESSION_LIFETIME_SECONDS = 7 * 86_400;
/** A session's expiry moves on at most once a minute, so reads do not each write. */
const TOUCH_INTERVAL_SECONDS = 60;
const TOKEN_LENGTH = 43;

export interface DashboardSession extends MemberIdentity, TwoFactorStanding {
  id: string;
  /** Sent back in `X-CSRF-Token` on every request that changes something. */
  csrfToken: string;
}

/** Whether the member has a second factor, and whether their account requires one (docs/two-factor.md). */
export interface TwoFactorStanding {
  twoFactor: boolean;
  accountRequiresTwoFactor: boolean;
}

/** Read with the session on every request, so a change applies to the next one; an unreadable rule counts as set. */
function standingOf(row: {
  two_factor_secret_sealed: string | null;
  require_two_factor: number;
}): TwoFactorStanding {
  return {
    twoFactor: row.two_factor_secret_sealed !== null,
    accountRequiresTwoFactor: row.require_two_factor !== 0,
  };
}

export async function openSession(
  ctx: AppContext,
  member: MemberIdentity,
  clientAddress: string,
): Promise<{ token: string; session: DashboardSession }> {
  const token = randomBase62(TOKEN_LENGTH);
  const now = isoNow(ctx.clock);
  const row: DashboardSessionsTable = {
    id: newId("ses"),
    token_hash: hashSecret(token),
    member_id: member.memberId,
    created_at: now,
    last_seen_at: now,
    expires_at: addSeconds(now, SESSION_IDLE_SECONDS),
  };
  await inTransaction(ctx, async (trx) => {
    await trx.insertInto("dashboard_sessions").values(row).execute();
    await trx
      .updateTable("members")
      .set({ last_sign_in_at: now })
      .where("id", "=", member.memberId)
      .execute();
    await recordAudit(trx, ctx.clock, {
      accountId: member.accountId,
      environment: null,
      origin: { actor: memberActor(member), clientAddress },
      action: "sign_in.succeeded",
      target: { type: "member", id: member.memberId },
    });
  });
  const standing = await ctx.db
    .selectFrom("members as m")
    .innerJoin("accounts as a", "a.id", "m.account_id")
    .select(["m.two_factor_secret_sealed", "a.require_two_factor"])
    .where("m.id", "=", member.memberId)
    .executeTakeFirstOrThrow();
  return {
    token,
    session: { ...member, ...standingOf(standing), id: row.id, csrfToken: csrfToken(ctx, token) },
  };
}

/**
 * The live session a cookie's token names, if any, with its member's role as it is now (a role
 * change applies to the next request); moves its idle expiry on.
 */
export async function findSession(ctx: AppContext, token: string): Promise<DashboardSession | undefined> {
  const now = isoNow(ctx.clock);
  const row = await ctx.db
    .selectFrom("dashboard_sessions as s")
    .innerJoin("members as m", "m.id", "s.member_id")
    .innerJoin("accounts as a", "a.id", "m.account_id")
    .select([
      "s.id",
      "s.member_id",
      "s.created_at",
      "s.last_seen_at",
      "m.account_id",
      "m.email",
      "m.role",
      "m.two_factor_secret_sealed",
      "a.require_two_factor",
    ])
    .where("s.token_hash", "=", hashSecret(token))
    .where("s.expires_at", ">", now)
    .executeTakeFirst();
  if (!row) return undefined;
  if (addSeconds(row.last_seen_at, TOUCH_INTERVAL_SECONDS) <= now) {
    const idleEnd = addSeconds(now, SESSION_IDLE_SECONDS);
    const lifetimeEnd = addSeconds(row.created_at, SESSION_LIFETIME_SECONDS);
    await ctx.db
      .updateTable("dashboard_sessions")
      .set({ last_seen_at: now, expires_at: idleEnd < lifetimeEnd ? idleEnd : lifetimeEnd })
      .where("id", "=", row.id)
      .execute();
  }
  return {
    id: row.id,
    memberId: row.member_id,
    accountId: row.account_id,
    email: row.email,
    role: row.role,
    ...standingOf(row),
    csrfToken: csrfToken(ctx, token),
  };
}

export async function closeSession(ctx: AppContext, sessionId: string): Promise<void> {
  await ctx.db.deleteFrom("dashboard_sessions").where("id", "=", sessionId).execute();
}

export async function purgeExpiredSessions(ctx: AppContext, now: string): Promise<number> {
  const result = await ctx.db
    .deleteFrom("dashboard_sessions")
    .where("expires_at", "<=", now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Derived from the session token, so it needs no storage and is worthless without the cookie. */
function csrfToken(ctx: AppContext, sessionToken: string): string {
  return createHmac("sha256", ctx.secret).update(`dashboard-csrf:${sessionToken}`).digest("base64url");
}
