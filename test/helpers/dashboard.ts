import type { LightMyRequestResponse } from "fastify";
import { createAccount } from "../../src/accounts/accounts.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
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

/** A dashboard API request as the signed-in browser makes it: the cookie and the CSRF token. */
export function dashboardRequest(
  app: App,
  session: SignedIn,
  method: "GET" | "POST" | "PATCH" | "DELETE",
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
