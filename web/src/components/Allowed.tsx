import type { ReactNode } from "react";
import { useSignedIn } from "../session";

/**
 * Shows `children` only to members whose role may call `route` (`"POST /dashboard/api/keys"`), and
 * `otherwise` to the rest. The server refuses the route to them anyway: this only keeps buttons
 * that would fail off their pages.
 */
export function Allowed({
  route,
  children,
  otherwise = null,
}: {
  route: string;
  children: ReactNode;
  otherwise?: ReactNode;
}) {
  const { can } = useSignedIn();
  return <>{can(route) ? children : otherwise}</>;
}

/** Said where a form would be, to a member whose role can only read it. */
export function ReadOnlyNote({
  what,
  roles = "an owner, admin or developer",
}: {
  what: string;
  /** Who may change it, in words. */
  roles?: string;
}) {
  const { member } = useSignedIn();
  return (
    <p className="muted small">
      {what} are read-only for your role ({member.role}): {roles} can change them.
    </p>
  );
}
