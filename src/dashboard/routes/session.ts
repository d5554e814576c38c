import { createFirstAccount, hasNoAccounts } from "../../accounts/accounts.js";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { clearSessionCookie, sessionOf, setSessionCookie } from "../auth.js";
import { Credentials, HIDDEN } from "../schemas.js";
import { closeSession, type DashboardSession, openSession } from "../sessions.js";
import { verifyCredentials } from "../sign-in.js";

function sessionView(session: DashboardSession) {
  return { account: { id: session.accountId, email: session.email }, csrf_token: session.csrfToken };
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
      const { token, session } = await openSession(ctx, account);
      setSessionCookie(request, reply, ctx, token);
      return reply.code(201).send(sessionView(session));
    },
  );

  app.get("/dashboard/api/session", { schema: HIDDEN }, async (request) => sessionView(sessionOf(request)));

  app.post(
    "/dashboard/api/session",
    { schema: { ...HIDDEN, body: Credentials }, config: { signedOut: true } },
    async (request, reply) => {
      const account = await verifyCredentials(ctx, { ...request.body, clientAddress: request.ip });
      const { token, session } = await openSession(ctx, account);
      setSessionCookie(request, reply, ctx, token);
      return sessionView(session);
    },
  );

  app.delete("/dashboard/api/session", { schema: HIDDEN }, async (request, reply) => {
    await closeSession(ctx, sessionOf(request).id);
    clearSessionCookie(request, reply, ctx);
    return reply.code(204).send();
  });
}
