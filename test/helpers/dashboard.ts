import type { LightMyRequestResponse } from "fastify";
import { createAccount } from "../../src/accounts/accounts.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { inviteMember } from "../../src/members/members.js";
import type { Role } from "../../src/members/roles.js";
import { TEST_PASSWORD } from "./fixtures.js";

export interface SignedIn {
  cookie: string;
  csrf: string;
  accountId: string;
}

/** The `name=value` of the session cookie a response set, or `undefined`. */
export function sessionCookie(response: LightMyRequestResponse): string | undefined {
  const header = response.headers["set-cookie"];
  const cookies = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return cookies.find((c) => c.startsWith("dakiya_session="))?.split(";")[0];
}

export async function signIn(app: App, email: string, password: string): Promise<SignedIn> {
  const response = await app.inject({
    method: "POST",
    url: "/dashboard/api/session",
    payload: { email, password },
  });
  const cookie = sessionCookie(response);
  if (response.statusCode !== 200 || cookie === undefined) {
    throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  }
  const body = response.json<{ account: { id: string }; csrf_token: string }>();
  return { cookie, csrf: body.csrf_token, accountId: body.account.id };
}

let signedInAccounts = 0;

/** A new account with the test password, signed in to the dashboard. */
export async function signedInAccount(ctx: AppContext, app: App): Promise<SignedIn> {
  signedInAccounts += 1;
  const email = `owner${signedInAccounts}-${Date.now()}@example.com`;
  await createAccount(ctx, { email, password: TEST_PASSWORD });
  return signIn(app, email, TEST_PASSWORD);
}

/** Opens an invite's or a password reset's link in the console's way, and answers the session it signs in. */
export async function redeemInvite(app: App, token: string, password = TEST_PASSWORD): Promise<SignedIn> {
  const response = await app.inject({
    method: "POST",
    url: "/dashboard/api/invites/accept",
    payload: { token, password },
  });
  const cookie = sessionCookie(response);
  if (response.statusCode !== 200 || cookie === undefined) {
    throw new Error(`invite not accepted: ${response.statusCode} ${response.body}`);
  }
  const body = response.json<{ account: { id: string }; csrf_token: string }>();
  return { cookie, csrf: body.csrf_token, accountId: body.account.id };
}

let invitedMembers = 0;

/** A member of `accountId` with `role`, invited and signed in through their link. */
export async function signedInMember(
  ctx: AppContext,
  app: App,
  accountId: string,
  role: Role,
): Promise<SignedIn & { email: string; memberId: string }> {
  invitedMembers += 1;
  const email = `${role}${invitedMembers}-${Date.now()}@example.com`;
  const link = await inviteMember(ctx, { accountId, email, role, by: "owner" }, CLI_ORIGIN);
  return { ...(await redeemInvite(app, link.token)), email, memberId: link.member.id };
}

/** A dashboard API request as the signed-in browser makes it: the cookie and the CSRF token. */
export function dashboardRequest(
  app: App,
  session: SignedIn,
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  url: string,
  payload?: object,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: { cookie: session.cookie, "x-csrf-token": session.csrf },
    ...(payload === undefined ? {} : { payload }),
  });
}
