/**
 * What each member may do (docs/team.md#roles): `owner` everything, members included; `admin`
 * everything but owners; `developer` keys, webhooks, templates and senders, OTP settings, messages
 * and the sandbox; `finance` balances, the ledger and messages, read-only but for the alert
 * threshold; `viewer` reads what holds no secret. The routes each may call are in
 * src/dashboard/access.ts.
 */
export const ROLES = ["owner", "admin", "developer", "finance", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** `invited` until the invite link is used to set a password. */
export type MemberStatus = "invited" | "active";

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Owners are managed by owners only: an admin cannot make, change or remove one. */
export function mayManage(actor: Role, target: Role): boolean {
  if (actor === "owner") return true;
  return actor === "admin" && target !== "owner";
}
