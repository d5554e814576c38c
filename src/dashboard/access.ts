/**
 * Who may call each `/dashboard/api/` route, by role (docs/team.md#roles). The dashboard's auth
 * hook looks every signed-in request up here: a route missing from the table is refused to
 * everyone, and a test walks the route tree so that a new route without a rule fails the suite.
 * Routes a signed-out visitor may call (`config.signedOut`) need no rule.
 */
import { ROLES, type Role } from "../members/roles.js";

const EVERYONE: readonly Role[] = ROLES;
/** The team: only owners and admins see or change members, and read the audit log. */
const TEAM: readonly Role[] = ["owner", "admin"];
/** Who changes the integration: keys, webhooks, templates, senders, OTP settings, the sandbox. */
const BUILDERS: readonly Role[] = ["owner", "admin", "developer"];
/** Who reads the integration's settings, none of which holds a secret. */
const SETTINGS_READERS: readonly Role[] = ["owner", "admin", "developer", "viewer"];
/** Who reads money: balances' history and the ledger. */
const MONEY_READERS: readonly Role[] = ["owner", "admin", "finance", "viewer"];
/** Who changes money settings (live credits are the operator's, through the CLI). */
const MONEY: readonly Role[] = ["owner", "admin", "finance"];

export const DASHBOARD_ACCESS: Readonly<Record<string, readonly Role[]>> = {
  "GET /dashboard/api/session": EVERYONE,
  "DELETE /dashboard/api/session": EVERYONE,

  // A member's own second factor (docs/two-factor.md); the account's rule is the owners'.
  "POST /dashboard/api/two-factor/setup": EVERYONE,
  "POST /dashboard/api/two-factor/enable": EVERYONE,
  "POST /dashboard/api/two-factor/disable": EVERYONE,
  "POST /dashboard/api/two-factor/recovery-codes": EVERYONE,
  "PATCH /dashboard/api/two-factor/policy": ["owner"],
  "GET /dashboard/api/overview": EVERYONE,
  "GET /dashboard/api/reports/messages": EVERYONE,
  "GET /dashboard/api/reports/otp": EVERYONE,

  "GET /dashboard/api/members": TEAM,
  "POST /dashboard/api/members": TEAM,
  "PATCH /dashboard/api/members/:id": TEAM,
  "DELETE /dashboard/api/members/:id": TEAM,
  "GET /dashboard/api/audit": TEAM,

  "GET /dashboard/api/messages": EVERYONE,
  "GET /dashboard/api/messages/export.csv": EVERYONE,
  "GET /dashboard/api/messages/:id": EVERYONE,
  "POST /dashboard/api/messages/:id/cancel": BUILDERS,
  "GET /dashboard/api/sandbox/messages": EVERYONE,

  // Campaigns are sends: the roles that send from the console start and cancel them; all see them.
  "GET /dashboard/api/campaigns": EVERYONE,
  "GET /dashboard/api/campaigns/:id": EVERYONE,
  "POST /dashboard/api/campaigns/preview": BUILDERS,
  "POST /dashboard/api/campaigns": BUILDERS,
  "POST /dashboard/api/campaigns/:id/cancel": BUILDERS,
  "POST /dashboard/api/sandbox/credits": BUILDERS,

  // Every member sees the low-balance banner; finance sets its threshold.
  "GET /dashboard/api/billing": EVERYONE,
  "PATCH /dashboard/api/billing": MONEY,
  "GET /dashboard/api/ledger": MONEY_READERS,
  "GET /dashboard/api/ledger.csv": MONEY_READERS,

  "GET /dashboard/api/keys": SETTINGS_READERS,
  "POST /dashboard/api/keys": BUILDERS,
  "POST /dashboard/api/keys/:id/rotate": BUILDERS,
  "DELETE /dashboard/api/keys/:id": BUILDERS,

  "GET /dashboard/api/senders": SETTINGS_READERS,
  "POST /dashboard/api/senders": BUILDERS,
  "DELETE /dashboard/api/senders/:sender": BUILDERS,
  "GET /dashboard/api/templates": SETTINGS_READERS,
  "POST /dashboard/api/templates": BUILDERS,
  "PATCH /dashboard/api/templates/:template_id": BUILDERS,
  "DELETE /dashboard/api/templates/:template_id": BUILDERS,
  "POST /dashboard/api/templates/:template_id/status": BUILDERS,
  "GET /dashboard/api/tm-chain": SETTINGS_READERS,
  "PUT /dashboard/api/tm-chain": BUILDERS,
  "GET /dashboard/api/cta": SETTINGS_READERS,
  "POST /dashboard/api/cta": BUILDERS,
  "DELETE /dashboard/api/cta": BUILDERS,
  // OTP settings hold the test numbers' fixed codes, which pass a live verify.
  "GET /dashboard/api/otp-settings": BUILDERS,
  "PATCH /dashboard/api/otp-settings": BUILDERS,

  "GET /dashboard/api/webhooks": SETTINGS_READERS,
  // An endpoint's own page shows its signing secret.
  "GET /dashboard/api/webhooks/:id": BUILDERS,
  "GET /dashboard/api/webhooks/:id/attempts": SETTINGS_READERS,
  "POST /dashboard/api/webhooks": BUILDERS,
  "PATCH /dashboard/api/webhooks/:id": BUILDERS,
  "DELETE /dashboard/api/webhooks/:id": BUILDERS,
  "POST /dashboard/api/webhooks/:id/rotate-secret": BUILDERS,
  "POST /dashboard/api/webhooks/:id/test": BUILDERS,
  "POST /dashboard/api/webhooks/:id/replay": BUILDERS,
};

/**
 * What a member may still call while their account requires two-factor sign-in and they have
 * none: their session, and setting it up. Everything else answers 403 `two_factor_required`.
 */
export const ENROLMENT_ROUTES: ReadonlySet<string> = new Set([
  "GET /dashboard/api/session",
  "DELETE /dashboard/api/session",
  "POST /dashboard/api/two-factor/setup",
  "POST /dashboard/api/two-factor/enable",
]);

/** The table's key of a route: `METHOD /path/:param`. */
export function accessKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${url}`;
}

/** The roles that may call a route; none for a route without a rule, which then nobody may call. */
export function rolesFor(method: string, url: string): readonly Role[] {
  // Fastify answers HEAD with its GET route; it reads what the GET reads.
  return DASHBOARD_ACCESS[accessKey(method === "HEAD" ? "GET" : method, url)] ?? [];
}

/** Every route key a role may call: the console shows only what the member can use. */
export function routesAllowed(role: Role): string[] {
  return Object.entries(DASHBOARD_ACCESS)
    .filter(([, roles]) => roles.includes(role))
    .map(([key]) => key);
}
