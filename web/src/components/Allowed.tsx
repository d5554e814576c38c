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
export function ReadOnlyNote({ what }: { what: string }) {
  const { member } = useSignedIn();
  return (
    <p className="muted small">
      Your role ({member.role}) can read {what}; an owner, admin or developer can change them.
    </p>
  );
}
