import { Type } from "typebox";
import { createFirstAccount, hasNoAccounts } from "../../accounts/accounts.js";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { MAX_PASSWORD_LENGTH } from "../../members/credentials.js";
import { findMember, type MemberIdentity, redeemLink } from "../../members/members.js";
import { answerChallenge, issueChallenge } from "../../two-factor/challenges.js";
import { hasTwoFactor } from "../../two-factor/two-factor.js";
import { routesAllowed } from "../access.js";
import { clearSessionCookie, sessionOf, setSessionCookie } from "../auth.js";
import { Credentials, HIDDEN } from "../schemas.js";
import { closeSession, type DashboardSession, openSession } from "../sessions.js";
import { verifyCredentials } from "../sign-in.js";

const LinkRedemption = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 100 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
);

const SecondFactorAnswer = Type.Union([
  Type.Object(
    {
      challenge: Type.String({ minLength: 1, maxLength: 100 }),
      code: Type.String({ minLength: 1, maxLength: 20 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      challenge: Type.String({ minLength: 1, maxLength: 100 }),
      recovery_code: Type.String({ minLength: 1, maxLength: 40 }),
    },
    { additionalProperties: false },
  ),
]);

/** The signed-in member, their account, and the routes their role may call (the console hides the rest). */
function sessionView(session: DashboardSession) {
  return {
    account: { id: session.accountId, require_two_factor: session.accountRequiresTwoFactor },
    member: { id: session.memberId, email: session.email, role: session.role, two_factor: session.twoFactor },
    allowed: routesAllowed(session.role),
    csrf_token: session.csrfToken,
  };
}

/** A right password for a member with a second factor: no session yet, a challenge for the code. */
async function secondStep(ctx: AppContext, member: MemberIdentity) {
  return { two_factor_required: true, challenge: await issueChallenge(ctx, member) };
}

export function sessionRoutes(app: App, ctx: AppContext): void {
  app.get("/dashboard/api/setup", { schema: HIDDEN, config: { signedOut: true } }, async () => ({
    needed: await hasNoAccounts(ctx.db),
  }));

  app.post(
    "/dashboard/api/setup",
    { schema: { ...HIDDEN, body: Credentials }, config: { signedOut: true } },
    async (request, reply) => {
      const account = await createFirstAccount(ctx, request.body);
      const owner = await findMember(ctx.db, account.id, { email: account.email });
      const { token, session } = await openSession(
        ctx,
        { memberId: owner.id, accountId: account.id, email: owner.email, role: owner.role },
        request.ip,
      );
      setSessionCookie(request, reply, ctx, token);
      return reply.code(201).send(sessionView(session));
    },
  );

  app.get("/dashboard/api/session", { schema: HIDDEN }, async (request) => sessionView(sessionOf(request)));

  app.post(
    "/dashboard/api/session",
    { schema: { ...HIDDEN, body: Credentials }, config: { signedOut: true } },
    async (request, reply) => {
      const member = await verifyCredentials(ctx, { ...request.body, clientAddress: request.ip });
      if (await hasTwoFactor(ctx.db, member.memberId)) return secondStep(ctx, member);
      const { token, session } = await openSession(ctx, member, request.ip);
      setSessionCookie(request, reply, ctx, token);
      return sessionView(session);
    },
  );

  // The second step of signing in, for a member with two-factor sign-in: the challenge and a code.
  app.post(
    "/dashboard/api/session/two-factor",
    { schema: { ...HIDDEN, body: SecondFactorAnswer }, config: { signedOut: true } },
    async (request, reply) => {
      const member = await answerChallenge(ctx, { ...request.body, clientAddress: request.ip });
      const { token, session } = await openSession(ctx, member, request.ip);
      setSessionCookie(request, reply, ctx, token);
      return sessionView(session);
    },
  );

  app.delete("/dashboard/api/session", { schema: HIDDEN }, async (request, reply) => {
    await closeSession(ctx, sessionOf(request).id);
    clearSessionCookie(request, reply, ctx);
    return reply.code(204).send();
  });

  // An invite's link, or the operator's password reset: sets the password and signs the member in.
  app.post(
    "/dashboard/api/invites/accept",
    { schema: { ...HIDDEN, body: LinkRedemption }, config: { signedOut: true } },
    async (request, reply) => {
      const member = await redeemLink(ctx, { ...request.body, clientAddress: request.ip });
      // A password reset keeps the second factor: the link alone does not sign such a member in.
      if (await hasTwoFactor(ctx.db, member.memberId)) return secondStep(ctx, member);
      const { token, session } = await openSession(ctx, member, request.ip);
      setSessionCookie(request, reply, ctx, token);
      return sessionView(session);
    },
  );
}
