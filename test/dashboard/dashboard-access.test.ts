import { beforeAll, describe, expect, it } from "vitest";
import { accessKey, DASHBOARD_ACCESS } from "../../src/dashboard/access.js";
import type { App } from "../../src/http/types.js";
import { ROLES, type Role } from "../../src/members/roles.js";
import { dashboardRequest, type SignedIn, signedInAccount, signedInMember } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { useTestInstances } from "../helpers/instances.js";
import { listRoutes, type RouteEntry } from "../helpers/routes.js";

/* Every /dashboard/api/ route is in the role table (src/dashboard/access.ts), and the server holds every role to it. */

/** The routes a signed-out visitor may call: set-up, sign-in (both steps) and an invite's link. */
const SIGNED_OUT = new Set([
  "GET /dashboard/api/setup",
  "POST /dashboard/api/setup",
  "POST /dashboard/api/session",
  "POST /dashboard/api/session/two-factor",
  "POST /dashboard/api/invites/accept",
]);

/** What every member changes for themselves alone, whatever their role: their session and second factor. */
const OWN_SIGN_IN = new Set([
  "DELETE /dashboard/api/session",
  "POST /dashboard/api/two-factor/setup",
  "POST /dashboard/api/two-factor/enable",
  "POST /dashboard/api/two-factor/disable",
  "POST /dashboard/api/two-factor/recovery-codes",
]);

type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

function dashboardRoutes(app: App): RouteEntry[] {
  return listRoutes(app).filter(
    (route) => route.path.startsWith("/dashboard/api/") && route.method !== "HEAD",
  );
}

/** A request for a route pattern: made-up ids for its parameters, an environment, an empty body. */
function requestOf(route: RouteEntry): { method: Method; url: string; payload: object | undefined } {
  const path = route.path.replace(/:[a-z_]+/g, "unknown_id");
  return {
    method: route.method as Method,
    url: `${path}?environment=sandbox`,
    payload: route.method === "GET" || route.method === "DELETE" ? undefined : {},
  };
}

describe.each(DIALECTS)("dashboard roles on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let app: App;
  const members = new Map<Role, SignedIn>();

  beforeAll(async () => {
    ({ app } = instances);
    const owner = await signedInAccount(instances.ctx, app);
    members.set("owner", owner);
    for (const role of ROLES.filter((r) => r !== "owner")) {
      members.set(role, await signedInMember(instances.ctx, app, owner.accountId, role));
    }
  });

  it("has a rule for every signed-in route, and no rule for a route that does not exist", () => {
    const routes = dashboardRoutes(app).map((route) => accessKey(route.method, route.path));
    const withoutRule = routes.filter((key) => !SIGNED_OUT.has(key) && DASHBOARD_ACCESS[key] === undefined);
    expect(withoutRule).toEqual([]);
    const stale = Object.keys(DASHBOARD_ACCESS).filter((key) => !routes.includes(key));
    expect(stale).toEqual([]);
    expect(routes.length).toBeGreaterThan(40);
  });

  it("lets a signed-out visitor reach only the signed-out routes", async () => {
    for (const route of dashboardRoutes(app)) {
      const key = accessKey(route.method, route.path);
      const { method, url, payload } = requestOf(route);
      const response = await app.inject({ method, url, ...(payload ? { payload } : {}) });
      if (SIGNED_OUT.has(key)) expect(response.json().error?.code, key).not.toBe("not_signed_in");
      else expect([response.statusCode, response.json().error.code], key).toEqual([401, "not_signed_in"]);
    }
  });

  it("refuses every route a role is not given with 403 forbidden, before reading its input, and lets the others through", async () => {
    for (const role of ROLES) {
      const session = members.get(role) as SignedIn;
      for (const route of dashboardRoutes(app)) {
        const key = accessKey(route.method, route.path);
        // Signing out would end the session the rest of the sweep uses.
        if (SIGNED_OUT.has(key) || key === "DELETE /dashboard/api/session") continue;
        const { method, url, payload } = requestOf(route);
        const response = await dashboardRequest(app, session, method, url, payload);
        const allowed = DASHBOARD_ACCESS[key]?.includes(role) === true;
        if (allowed) {
          expect(response.statusCode, `${role} ${key}`).not.toBe(403);
        } else {
          expect([response.statusCode, response.json().error.code], `${role} ${key}`).toEqual([
            403,
            "forbidden",
          ]);
          expect(response.json().error.message).toContain(`(${role})`);
        }
      }
    }
  });

  it("gives a viewer no write route but their own sign-in's, a developer no member management, and owners alone the account's two-factor rule", () => {
    const writes = Object.entries(DASHBOARD_ACCESS).filter(([key]) => !key.startsWith("GET "));
    expect(writes.filter(([key, roles]) => !OWN_SIGN_IN.has(key) && roles.includes("viewer"))).toEqual([]);
    expect(DASHBOARD_ACCESS["PATCH /dashboard/api/two-factor/policy"]).toEqual(["owner"]);
    const team = Object.entries(DASHBOARD_ACCESS).filter(([key]) => key.includes("/members"));
    expect(team.length).toBeGreaterThanOrEqual(4);
    for (const [, roles] of team) expect(roles).toEqual(["owner", "admin"]);
  });
});
