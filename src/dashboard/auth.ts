import { timingSafeEqual } from "node:crypto";
import cookie from "@fastify/cookie";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { addRouteOnRequest } from "../http/route-hooks.js";
import type { App } from "../http/types.js";
import { accessKey, ENROLMENT_ROUTES, rolesFor } from "./access.js";
import { type DashboardSession, findSession, SESSION_COOKIE, SESSION_LIFETIME_SECONDS } from "./sessions.js";

const DASHBOARD_API = "/dashboard/api/";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in dashboard user of a `/dashboard/api/` route. */
    dashboardSession: DashboardSession | null;
  }
  interface FastifyContextConfig {
    /** A dashboard route that works without a session (sign-in, first-account set-up). */
    signedOut?: boolean;
  }
}

/**
 * Every `/dashboard/api/` route needs a session cookie and a role the route's rule allows
 * (src/dashboard/access.ts), and every request there that changes something needs the session's
 * CSRF token in `X-CSRF-Token` and no foreign `Origin`.
 */
export async function registerDashboardAuth(app: App, ctx: AppContext): Promise<void> {
  // Cookies are read here, for dashboard routes only, rather than parsed on every request.
  await app.register(cookie, { hook: false });
  app.decorateRequest("dashboardSession", null);
  addRouteOnRequest(
    app,
    (route) => route.url.startsWith(DASHBOARD_API),
    (request) => authenticateSession(app, ctx, request),
  );
}

async function authenticateSession(app: App, ctx: AppContext, request: FastifyRequest): Promise<void> {
  const changes = !SAFE_METHODS.has(request.method);
  if (changes && !isSameOrigin(request, ctx)) {
    throw new ApiError("csrf_rejected", "Requests from other sites are refused.");
  }
  if (request.routeOptions.config.signedOut) return;
  const header = request.headers.cookie;
  const token = header ? app.parseCookie(header)[SESSION_COOKIE] : undefined;
  const session = token ? await findSession(ctx, token) : undefined;
  if (!session) throw new ApiError("not_signed_in", "Sign in to continue; the session has ended.");
  if (changes && !sameSecret(request.headers["x-csrf-token"], session.csrfToken)) {
    throw new ApiError("csrf_rejected", "Send the session's CSRF token in X-CSRF-Token.");
  }
  const url = request.routeOptions.url ?? "";
  if (!rolesFor(request.method, url).includes(session.role)) {
    throw new ApiError(
      "forbidden",
      `Your role (${session.role}) does not allow this; an owner or admin can change roles in Settings → Team.`,
    );
  }
  if (
    mustEnrolFirst(session) &&
    !ENROLMENT_ROUTES.has(accessKey(request.method === "HEAD" ? "GET" : request.method, url))
  ) {
    throw new ApiError(
      "two_factor_required",
      "This account requires two-factor sign-in: set it up in Settings → Security to continue.",
    );
  }
  request.dashboardSession = session;
}

/** Whether the account requires a second factor the member does not have yet (unsure counts as yes). */
function mustEnrolFirst(session: DashboardSession): boolean {
  return session.accountRequiresTwoFactor !== false && session.twoFactor !== true;
}

/** The signed-in user of a dashboard route; the hook guarantees one outside `signedOut` routes. */
export function sessionOf(request: FastifyRequest): DashboardSession {
  if (!request.dashboardSession) throw new Error("route is not a signed-in dashboard route");
  return request.dashboardSession;
}

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  token: string,
): void {
  reply.setCookie(SESSION_COOKIE, token, {
    ...cookieAttributes(request, ctx),
    maxAge: SESSION_LIFETIME_SECONDS,
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, ctx: AppContext): void {
  reply.clearCookie(SESSION_COOKIE, cookieAttributes(request, ctx));
}

function cookieAttributes(request: FastifyRequest, ctx: AppContext) {
  const secure = request.protocol === "https" || ctx.publicUrl?.startsWith("https://") === true;
  return { path: "/", httpOnly: true, sameSite: "strict", secure } as const;
}

/** A browser names the page's origin in `Origin`; it must be this server (or its public address). */
function isSameOrigin(request: FastifyRequest, ctx: AppContext): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  const { host } = new URL(origin);
  if (host === request.headers.host) return true;
  return ctx.publicUrl !== undefined && new URL(ctx.publicUrl).host === host;
}

function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
