/**
 * An account's members (docs/team.md): invited by link, given a role, removed with their sessions.
 * Every change that could leave an account without an owner runs under the account's member lock,
 * so two owners demoting each other at once cannot both succeed.
 */
import type { Insertable, Selectable, Transaction } from "kysely";
import { recordAudit } from "../audit/record.js";
import { memberSnapshot } from "../audit/snapshots.js";
import { type ChangeOrigin, memberActor } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { MembersTable } from "../db/console-schema.js";
import { lockForUpdate } from "../db/locks.js";
import type { Database, DbOrTrx } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { hashSecret } from "../keys/secrets.js";
import { isoAfter, isoNow } from "../lib/clock.js";
import { newId, randomBase62 } from "../lib/ids.js";
import { emailTaken, hashPassword, normaliseEmail } from "./credentials.js";
import { type MemberStatus, mayManage, type Role } from "./roles.js";

/** A member as the Team page and `dakiya members list` show it. */
export interface Member {
  id: string;
  email: string;
  role: Role;
  status: MemberStatus;
  created_at: string;
  last_sign_in_at: string | null;
}

/** A signed-in member: who they are and which account they act in. */
export interface MemberIdentity {
  memberId: string;
  accountId: string;
  email: string;
  role: Role;
}

/** A one-time link's token (an invite or a password reset), shown once; only its SHA-256 is kept. */
export interface IssuedLink {
  member: Member;
  token: string;
  expires_at: string;
}

export const INVITE_LIFETIME_SECONDS = 7 * 86_400;
/** A password reset the operator issues is used soon or not at all. */
export const RESET_LIFETIME_SECONDS = 86_400;
const LINK_TOKEN_LENGTH = 43;

/** The console page that redeems a link's token: `<base>/invite/<token>`. */
export function linkUrl(base: string, token: string): string {
  return new URL(`/invite/${token}`, base).toString();
}

const MEMBER_COLUMNS = ["id", "email", "role", "status", "created_at", "last_sign_in_at"] as const;

function toMember(row: Pick<Selectable<MembersTable>, (typeof MEMBER_COLUMNS)[number]>): Member {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: row.status,
    created_at: row.created_at,
    last_sign_in_at: row.last_sign_in_at,
  };
}

/** The account's first member, made with the account: its owner, signed up with a password. */
export async function insertOwner(
  trx: DbOrTrx,
  input: { accountId: string; email: string; passwordHash: string; createdAt: string },
): Promise<void> {
  await trx
    .insertInto("members")
    .values({
      id: newId("mbr"),
      account_id: input.accountId,
      email: input.email,
      password_hash: input.passwordHash,
      role: "owner",
      status: "active",
      invite_token_hash: null,
      invite_expires_at: null,
      created_at: input.createdAt,
      last_sign_in_at: null,
    })
    .execute();
}

export async function memberWithEmail(db: DbOrTrx, email: string): Promise<{ id: string } | undefined> {
  return db.selectFrom("members").select("id").where("email", "=", email).executeTakeFirst();
}

/** The account's members, oldest first. */
export async function listMembers(db: DbOrTrx, accountId: string): Promise<Member[]> {
  const rows = await db
    .selectFrom("members")
    .select(MEMBER_COLUMNS)
    .where("account_id", "=", accountId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toMember);
}

/** One member of the account, by id or email; `not_found` for any other account's. */
export async function findMember(
  db: DbOrTrx,
  accountId: string,
  which: { id: string } | { email: string },
): Promise<Member> {
  const row = await db
    .selectFrom("members")
    .select(MEMBER_COLUMNS)
    .where("account_id", "=", accountId)
    .where("id" in which ? "id" : "email", "=", "id" in which ? which.id : which.email.trim().toLowerCase())
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", `No member ${"id" in which ? which.id : which.email}.`, "member");
  return toMember(row);
}

/**
 * Invites `email` with `role`: the member is `invited` until the link's token is used (within 7
 * days, once) to set a password. `by` is the inviter's role: only owners invite owners.
 */
export async function inviteMember(
  ctx: AppContext,
  input: { accountId: string; email: string; role: Role; by: Role },
  origin: ChangeOrigin,
): Promise<IssuedLink> {
  const email = normaliseEmail(input.email);
  refuseUnlessManages(input.by, input.role);
  const token = randomBase62(LINK_TOKEN_LENGTH);
  const now = isoNow(ctx.clock);
  const row = {
    id: newId("mbr"),
    account_id: input.accountId,
    email,
    password_hash: null,
    role: input.role,
    status: "invited",
    invite_token_hash: hashSecret(token),
    invite_expires_at: isoAfter(ctx.clock, INVITE_LIFETIME_SECONDS),
    created_at: now,
    last_sign_in_at: null,
  } satisfies Insertable<MembersTable>;
  await inTransaction(ctx, async (trx) => {
    await lockForUpdate(trx, ctx.dialect, `member-email:${email}`);
    if (await memberWithEmail(trx, email)) throw emailTaken(email);
    await trx.insertInto("members").values(row).execute();
    await recordAudit(trx, ctx.clock, {
      accountId: input.accountId,
      environment: null,
      origin,
      action: "member.invited",
      target: { type: "member", id: row.id },
      after: memberSnapshot(row),
    });
  });
  return { member: toMember(row), token, expires_at: row.invite_expires_at as string };
}

/**
 * Uses an invite's or a password reset's token to set the member's password: the token works
 * once, before it expires, and then never again. Answers who is now signed in.
 */
export async function redeemLink(
  ctx: AppContext,
  input: { token: string; password: string; clientAddress: string | null },
): Promise<MemberIdentity> {
  const now = isoNow(ctx.clock);
  // The link is looked up before the password is hashed, so made-up tokens cost no argon2 work.
  const open = await ctx.db
    .selectFrom("members")
    .select("id")
    .where("invite_token_hash", "=", hashSecret(input.token))
    .where("invite_expires_at", ">", now)
    .executeTakeFirst();
  if (!open) throw linkNotValid();
  const passwordHash = await hashPassword(input.password);
  const row = await inTransaction(ctx, async (trx) => {
    const before = await trx
      .selectFrom("members")
      .select(["email", "role", "status"])
      .where("invite_token_hash", "=", hashSecret(input.token))
      .where("invite_expires_at", ">", now)
      .executeTakeFirst();
    if (!before) return undefined;
    const redeemed = await trx
      .updateTable("members")
      .set({
        password_hash: passwordHash,
        status: "active",
        invite_token_hash: null,
        invite_expires_at: null,
      })
      .where("invite_token_hash", "=", hashSecret(input.token))
      .where("invite_expires_at", ">", now)
      .returning(["id", "account_id", "email", "role", "status"])
      .executeTakeFirst();
    if (!redeemed) return undefined;
    await recordAudit(trx, ctx.clock, {
      accountId: redeemed.account_id,
      environment: null,
      origin: {
        actor: memberActor({ memberId: redeemed.id, email: redeemed.email }),
        clientAddress: input.clientAddress,
      },
      action: before.status === "invited" ? "member.joined" : "member.password_set",
      target: { type: "member", id: redeemed.id },
      before: memberSnapshot(before),
      after: memberSnapshot(redeemed),
    });
    return redeemed;
  });
  if (!row) throw linkNotValid();
  return { memberId: row.id, accountId: row.account_id, email: row.email, role: row.role };
}

/** Gives a member another role. The last owner keeps theirs. */
export async function changeRole(
  ctx: AppContext,
  input: { accountId: string; memberId: string; role: Role; by: Role },
  origin: ChangeOrigin,
): Promise<Member> {
  return inTransaction(ctx, async (trx) => {
    await lockMembers(trx, ctx, input.accountId);
    const member = await findMember(trx, input.accountId, { id: input.memberId });
    refuseUnlessManages(input.by, member.role);
    refuseUnlessManages(input.by, input.role);
    if (isActiveOwner(member) && input.role !== "owner") await refuseIfLastOwner(trx, input.accountId);
    await trx.updateTable("members").set({ role: input.role }).where("id", "=", member.id).execute();
    const changed = { ...member, role: input.role };
    await recordAudit(trx, ctx.clock, {
      accountId: input.accountId,
      environment: null,
      origin,
      action: "member.role_changed",
      target: { type: "member", id: member.id },
      before: memberSnapshot(member),
      after: memberSnapshot(changed),
    });
    return changed;
  });
}

/** Removes a member; their sessions end with the row, so an open console of theirs is signed out at once. */
export async function removeMember(
  ctx: AppContext,
  input: { accountId: string; memberId: string; by: Role },
  origin: ChangeOrigin,
): Promise<Member> {
  return inTransaction(ctx, async (trx) => {
    await lockMembers(trx, ctx, input.accountId);
    const member = await findMember(trx, input.accountId, { id: input.memberId });
    refuseUnlessManages(input.by, member.role);
    if (isActiveOwner(member)) await refuseIfLastOwner(trx, input.accountId);
    await trx.deleteFrom("dashboard_sessions").where("member_id", "=", member.id).execute();
    await trx.deleteFrom("members").where("id", "=", member.id).execute();
    await recordAudit(trx, ctx.clock, {
      accountId: input.accountId,
      environment: null,
      origin,
      action: "member.removed",
      target: { type: "member", id: member.id },
      before: memberSnapshot(member),
    });
    return member;
  });
}

/**
 * The operator's reset of a member's password (`dakiya members reset-password`): the old password
 * stops working and every session of the member ends; a one-time link sets a new one.
 */
export async function issuePasswordReset(
  ctx: AppContext,
  input: { accountId: string; email: string },
  origin: ChangeOrigin,
): Promise<IssuedLink> {
  const token = randomBase62(LINK_TOKEN_LENGTH);
  const expiresAt = isoAfter(ctx.clock, RESET_LIFETIME_SECONDS);
  const member = await inTransaction(ctx, async (trx) => {
    const found = await findMember(trx, input.accountId, { email: input.email });
    await trx
      .updateTable("members")
      .set({ password_hash: null, invite_token_hash: hashSecret(token), invite_expires_at: expiresAt })
      .where("id", "=", found.id)
      .execute();
    await trx.deleteFrom("dashboard_sessions").where("member_id", "=", found.id).execute();
    // A sign-in half done with the old password does not finish after the reset either.
    await trx.deleteFrom("two_factor_challenges").where("member_id", "=", found.id).execute();
    await recordAudit(trx, ctx.clock, {
      accountId: input.accountId,
      environment: null,
      origin,
      action: "member.password_reset",
      target: { type: "member", id: found.id },
    });
    return found;
  });
  return { member, token, expires_at: expiresAt };
}

async function lockMembers(trx: Transaction<Database>, ctx: AppContext, accountId: string): Promise<void> {
  await lockForUpdate(trx, ctx.dialect, `members:${accountId}`);
}

function linkNotValid(): ApiError {
  return new ApiError(
    "invalid_request",
    "This link is not valid: it was used already, it expired, or it was replaced. Ask for a new one.",
    "token",
  );
}

function isActiveOwner(member: Member): boolean {
  return member.role === "owner" && member.status === "active";
}

/** Refuses unless the account has an active owner besides the one about to stop being one. */
async function refuseIfLastOwner(trx: DbOrTrx, accountId: string): Promise<void> {
  const owners = await trx
    .selectFrom("members")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("account_id", "=", accountId)
    .where("role", "=", "owner")
    .where("status", "=", "active")
    .executeTakeFirstOrThrow();
  if (Number(owners.count) <= 1) {
    throw new ApiError(
      "last_owner",
      "An account keeps at least one owner: make another member owner first.",
      "role",
    );
  }
}

function refuseUnlessManages(by: Role, target: Role): void {
  if (!mayManage(by, target)) {
    throw new ApiError("forbidden", `Your role (${by}) cannot manage owners; ask an owner.`, "role");
  }
}
