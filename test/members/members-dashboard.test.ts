import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { App } from "../../src/http/types.js";
import { hashSecret } from "../../src/keys/secrets.js";
import { INVITE_LIFETIME_SECONDS, inviteMember, issuePasswordReset } from "../../src/members/members.js";
import {
  dashboardRequest,
  redeemInvite,
  type SignedIn,
  signedInAccount,
  signedInMember,
  signIn,
} from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

const NEW_PASSWORD = "another long passphrase";

function tokenOf(inviteUrl: string): string {
  const match = /\/invite\/([0-9A-Za-z]+)$/.exec(inviteUrl);
  if (!match?.[1]) throw new Error(`not an invite link: ${inviteUrl}`);
  return match[1];
}

describe.each(DIALECTS)("members on %s", (dialect) => {
  const instances = useTestInstances(dialect, { secondInstance: dialect === "postgres" });
  let app: App;
  let owner: SignedIn;
  let ownerEmail: string;

  beforeAll(async () => {
    ({ app } = instances);
    owner = await signedInAccount(instances.ctx, app);
    ownerEmail = (await dashboardRequest(app, owner, "GET", "/dashboard/api/session")).json().member.email;
  });

  it("invites by a one-time link that signs the new member in with their role, and keeps only its hash", async () => {
    const invited = await dashboardRequest(app, owner, "POST", "/dashboard/api/members", {
      email: "  New.Dev@Example.com ",
      role: "developer",
    });
    expect(invited.statusCode).toBe(201);
    const body = invited.json();
    expect(body).toMatchObject({
      id: expect.stringMatching(/^mbr_/),
      email: "new.dev@example.com",
      role: "developer",
      status: "invited",
    });
    expect(body.invite_url).toMatch(/^http:\/\/localhost(:\d+)?\/invite\/[0-9A-Za-z]{43}$/);
    const token = tokenOf(body.invite_url);
    const stored = JSON.stringify(await instances.ctx.db.selectFrom("members").selectAll().execute());
    expect(stored).not.toContain(token);
    expect(stored).toContain(hashSecret(token));

    // Invited members cannot sign in until they set a password.
    const early = await app.inject({
      method: "POST",
      url: "/dashboard/api/session",
      payload: { email: "new.dev@example.com", password: TEST_PASSWORD },
    });
    expect(early.statusCode).toBe(401);

    const developer = await redeemInvite(app, token, NEW_PASSWORD);
    const session = await dashboardRequest(app, developer, "GET", "/dashboard/api/session");
    expect(session.json().member).toMatchObject({ email: "new.dev@example.com", role: "developer" });
    expect(session.json().account.id).toBe(owner.accountId);

    // The link worked once: used again it is refused, and signs nobody in.
    const again = await app.inject({
      method: "POST",
      url: "/dashboard/api/invites/accept",
      payload: { token, password: "a third passphrase here" },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toMatchObject({ code: "invalid_request", param: "token" });
    expect(again.headers["set-cookie"]).toBeUndefined();
    await signIn(app, "new.dev@example.com", NEW_PASSWORD);

    const list = await dashboardRequest(app, owner, "GET", "/dashboard/api/members");
    const rows = list.json().data as Array<{ email: string; status: string; role: string }>;
    expect(rows.map((m) => [m.role, m.status])).toEqual([
      ["owner", "active"],
      ["developer", "active"],
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/password|token|hash/);
  });

  it("refuses an invite link after 7 days, and an email that is already a member anywhere", async () => {
    const link = await inviteMember(
      instances.ctx,
      {
        accountId: owner.accountId,
        email: `late-${dialect}@example.com`,
        role: "viewer",
        by: "owner",
      },
      CLI_ORIGIN,
    );
    instances.clock.advance(INVITE_LIFETIME_SECONDS + 1);
    const late = await app.inject({
      method: "POST",
      url: "/dashboard/api/invites/accept",
      payload: { token: link.token, password: NEW_PASSWORD },
    });
    expect(late.statusCode).toBe(400);
    expect(late.json().error.param).toBe("token");
    // Seven days on, every session has ended too: the owner signs in again.
    owner = await signIn(app, ownerEmail, TEST_PASSWORD);

    const other = await signedInAccount(instances.ctx, app);
    const ownersEmail = (await dashboardRequest(app, owner, "GET", "/dashboard/api/session")).json().member
      .email;
    const taken = await dashboardRequest(app, other, "POST", "/dashboard/api/members", {
      email: ownersEmail.toUpperCase(),
      role: "viewer",
    });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().error.param).toBe("email");
  });

  it("applies a role change on the member's next request, and ends a removed member's sessions at once", async () => {
    const member = await signedInMember(instances.ctx, app, owner.accountId, "admin");
    const secondSession = await signIn(app, member.email, TEST_PASSWORD);
    expect((await dashboardRequest(app, member, "GET", "/dashboard/api/members")).statusCode).toBe(200);

    const demoted = await dashboardRequest(app, owner, "PATCH", `/dashboard/api/members/${member.memberId}`, {
      role: "viewer",
    });
    expect(demoted.json()).toMatchObject({ role: "viewer" });
    const refused = await dashboardRequest(app, member, "GET", "/dashboard/api/members");
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, "forbidden"]);

    const removed = await dashboardRequest(app, owner, "DELETE", `/dashboard/api/members/${member.memberId}`);
    expect(removed.statusCode).toBe(204);
    for (const session of [member, secondSession]) {
      const after = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/overview?environment=sandbox",
      );
      expect([after.statusCode, after.json().error.code]).toEqual([401, "not_signed_in"]);
    }
    const signInAgain = await app.inject({
      method: "POST",
      url: "/dashboard/api/session",
      payload: { email: member.email, password: TEST_PASSWORD },
    });
    expect(signInAgain.statusCode).toBe(401);
  });

  it("keeps the last owner: not removed, not demoted, even by two owners demoting each other at once", async () => {
    const { ctx, otherApp } = instances;
    const account = await signedInAccount(ctx, app);
    const ownId = (await dashboardRequest(app, account, "GET", "/dashboard/api/session")).json().member.id;
    const last = await dashboardRequest(app, account, "PATCH", `/dashboard/api/members/${ownId}`, {
      role: "admin",
    });
    expect([last.statusCode, last.json().error.code]).toEqual([409, "last_owner"]);
    const gone = await dashboardRequest(app, account, "DELETE", `/dashboard/api/members/${ownId}`);
    expect(gone.statusCode).toBe(409);

    const second = await signedInMember(ctx, otherApp ?? app, account.accountId, "owner");
    const [a, b] = await Promise.all([
      dashboardRequest(app, account, "PATCH", `/dashboard/api/members/${second.memberId}`, {
        role: "viewer",
      }),
      dashboardRequest(otherApp ?? app, second, "PATCH", `/dashboard/api/members/${ownId}`, {
        role: "viewer",
      }),
    ]);
    const statuses = [a.statusCode, b.statusCode].sort();
    // Whichever ran second found itself the last owner (or, demoted first, no longer an owner's role).
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const owners = await ctx.db
      .selectFrom("members")
      .select("id")
      .where("account_id", "=", account.accountId)
      .where("role", "=", "owner")
      .execute();
    expect(owners).toHaveLength(1);
  });

  it("lets an admin manage every role but owners", async () => {
    const admin = await signedInMember(instances.ctx, app, owner.accountId, "admin");
    const makeOwner = await dashboardRequest(app, admin, "POST", "/dashboard/api/members", {
      email: `would-be-owner-${dialect}@example.com`,
      role: "owner",
    });
    expect([makeOwner.statusCode, makeOwner.json().error.code]).toEqual([403, "forbidden"]);
    const ownerId = (await dashboardRequest(app, owner, "GET", "/dashboard/api/session")).json().member.id;
    const demoteOwner = await dashboardRequest(app, admin, "PATCH", `/dashboard/api/members/${ownerId}`, {
      role: "viewer",
    });
    expect(demoteOwner.statusCode).toBe(403);
    const finance = await dashboardRequest(app, admin, "POST", "/dashboard/api/members", {
      email: `finance-${dialect}@example.com`,
      role: "finance",
    });
    expect(finance.statusCode).toBe(201);
  });

  it("never shows or changes another account's members", async () => {
    const other = await signedInAccount(instances.ctx, app);
    const outsider = await signedInMember(instances.ctx, app, other.accountId, "viewer");
    const list = (await dashboardRequest(app, owner, "GET", "/dashboard/api/members")).json().data;
    expect(list.map((m: { email: string }) => m.email)).not.toContain(outsider.email);
    for (const method of ["PATCH", "DELETE"] as const) {
      const response = await dashboardRequest(
        app,
        owner,
        method,
        `/dashboard/api/members/${outsider.memberId}`,
        method === "PATCH" ? { role: "admin" } : undefined,
      );
      expect(response.statusCode).toBe(404);
    }
    expect((await dashboardRequest(app, outsider, "GET", "/dashboard/api/session")).statusCode).toBe(200);
  });

  it("resets a password for the operator: the old one and every session stop at once, and the link sets a new one", async () => {
    const member = await signedInMember(instances.ctx, app, owner.accountId, "finance");
    const reset = await issuePasswordReset(
      instances.ctx,
      {
        accountId: owner.accountId,
        email: member.email,
      },
      CLI_ORIGIN,
    );
    const stale = await dashboardRequest(app, member, "GET", "/dashboard/api/overview?environment=live");
    expect(stale.statusCode).toBe(401);
    const oldPassword = await app.inject({
      method: "POST",
      url: "/dashboard/api/session",
      payload: { email: member.email, password: TEST_PASSWORD },
    });
    expect(oldPassword.statusCode).toBe(401);
    await redeemInvite(app, reset.token, NEW_PASSWORD);
    const fresh = await signIn(app, member.email, NEW_PASSWORD);
    const session = (await dashboardRequest(app, fresh, "GET", "/dashboard/api/session")).json();
    expect(session.member.role).toBe("finance");
  });
});
