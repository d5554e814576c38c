import type { KeyScope } from "../db/schema.js";
import { ApiError } from "../errors.js";

export const KEY_SCOPES: readonly KeyScope[] = ["full", "send", "read"];

/** A route as its key's scope sees it: the method, upper case, and the route's URL pattern. */
export interface ScopedRoute {
  method: string;
  url: string;
}

/**
 * What each scope lets a key call (API.md §8d), the one table the API-key hook reads: every
 * route, only the routes listed, or only requests of the methods listed.
 */
const SCOPE_RULES: Record<
  KeyScope,
  { routes: "all" } | { routes: readonly string[] } | { methods: readonly string[] }
> = {
  full: { routes: "all" },
  send: { routes: ["POST /v2/sms/send", "POST /v2/sms/batch", "POST /v2/otp/send", "POST /v2/otp/verify"] },
  read: { methods: ["GET", "HEAD"] },
};

export function scopeAllows(scope: KeyScope, route: ScopedRoute): boolean {
  const rule = SCOPE_RULES[scope];
  if ("methods" in rule) return rule.methods.includes(route.method);
  return rule.routes === "all" || rule.routes.includes(`${route.method} ${route.url}`);
}

/** The 403 for a request outside the key's scope, naming the scope, what it allows and what was asked. */
export function outsideScope(scope: KeyScope, route: ScopedRoute): ApiError {
  const rule = SCOPE_RULES[scope];
  const allowed =
    "methods" in rule
      ? `it may only make ${listed(rule.methods)} requests`
      : `it may only call ${listed(rule.routes === "all" ? [] : rule.routes)}`;
  return new ApiError(
    "forbidden",
    `This key's scope is ${scope}: ${allowed}, not ${route.method} ${route.url}.`,
  );
}

export function isKeyScope(value: string): value is KeyScope {
  return (KEY_SCOPES as readonly string[]).includes(value);
}

function listed(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
