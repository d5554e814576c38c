import { type ReactNode, useEffect, useState } from "react";
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { useEnvironment } from "../environment";
import { formatInr } from "../format";
import { LowBalanceProvider, useLowBalance } from "../low-balance";
import { useSession, useSignedIn } from "../session";
import {
  AuditIcon,
  CampaignIcon,
  InboxIcon,
  KeyIcon,
  LedgerIcon,
  LockIcon,
  Logo,
  MenuIcon,
  MessagesIcon,
  OverviewIcon,
  ShieldIcon,
  TeamIcon,
  TemplateIcon,
  WebhookIcon,
} from "./icons";

interface NavItem {
  to: string;
  label: string;
  icon: ReactNode;
  end?: boolean;
  /** The dashboard route the page reads: the entry shows only to members whose role may call it. */
  reads: string;
}

interface NavGroup {
  title: string | undefined;
  items: NavItem[];
}

/** Settings → Security: every member's own sign-in; the one page open to a member held to set up two-factor sign-in. */
const SECURITY_PAGE = "/settings/security";

const NAV: NavGroup[] = [
  {
    title: undefined,
    items: [
      { to: "/", label: "Overview", icon: <OverviewIcon />, end: true, reads: "GET /dashboard/api/overview" },
      { to: "/messages", label: "Messages", icon: <MessagesIcon />, reads: "GET /dashboard/api/messages" },
      {
        to: "/campaigns",
        label: "Campaigns",
        icon: <CampaignIcon />,
        reads: "GET /dashboard/api/campaigns",
      },
      {
        to: "/transactions",
        label: "Transactions",
        icon: <LedgerIcon />,
        reads: "GET /dashboard/api/ledger",
      },
      {
        to: "/sandbox",
        label: "Sandbox inbox",
        icon: <InboxIcon />,
        reads: "GET /dashboard/api/sandbox/messages",
      },
      {
        to: "/templates",
        label: "Templates & senders",
        icon: <TemplateIcon />,
        reads: "GET /dashboard/api/templates",
      },
      { to: "/otp", label: "OTP settings", icon: <ShieldIcon />, reads: "GET /dashboard/api/otp-settings" },
    ],
  },
  {
    title: "Developers",
    items: [
      { to: "/developers/keys", label: "API keys", icon: <KeyIcon />, reads: "GET /dashboard/api/keys" },
      {
        to: "/developers/webhooks",
        label: "Webhooks",
        icon: <WebhookIcon />,
        reads: "GET /dashboard/api/webhooks",
      },
    ],
  },
  {
    title: "Settings",
    items: [
      { to: "/settings/team", label: "Team", icon: <TeamIcon />, reads: "GET /dashboard/api/members" },
      { to: SECURITY_PAGE, label: "Security", icon: <LockIcon />, reads: "GET /dashboard/api/session" },
      { to: "/settings/audit", label: "Audit log", icon: <AuditIcon />, reads: "GET /dashboard/api/audit" },
    ],
  },
];

export function Layout() {
  const { environment } = useEnvironment();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const { mustSetUpTwoFactor } = useSignedIn();

  // On a phone the menu covers the page: close it once a link has been followed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every navigation on purpose
  useEffect(() => setMenuOpen(false), [location.pathname]);

  const sandbox = environment === "sandbox";
  return (
    <LowBalanceProvider>
      <div className={`shell${sandbox ? " shell-sandbox" : ""}`}>
        {sandbox ? (
          <div className="sandbox-strip" role="note">
            <strong>Sandbox:</strong> nothing leaves this machine; test data only
          </div>
        ) : null}
        <div className="shell-body">
          <aside className={`sidebar${menuOpen ? " sidebar-open" : ""}`}>
            <div className="sidebar-inner">
              <div className="sidebar-header">
                <NavLink to="/" className="brand">
                  <Logo />
                  <span>Dakiya</span>
                </NavLink>
                <button
                  type="button"
                  className="menu-button"
                  aria-expanded={menuOpen}
                  aria-controls="main-navigation"
                  onClick={() => setMenuOpen((open) => !open)}
                >
                  <MenuIcon />
                  <span>Menu</span>
                </button>
              </div>
              <nav id="main-navigation" className="nav" aria-label="Main">
                {NAV.map((group) => (
                  <NavSection key={group.title ?? "main"} group={group} />
                ))}
              </nav>
            </div>
          </aside>
          <div className="main-column">
            <TopBar />
            <LowBalanceBanner />
            <main className="page">
              {mustSetUpTwoFactor && location.pathname !== SECURITY_PAGE ? (
                <Navigate to={SECURITY_PAGE} replace />
              ) : (
                <Outlet />
              )}
            </main>
          </div>
        </div>
      </div>
    </LowBalanceProvider>
  );
}

/** While the environment's balance is below its alert threshold: a reminder on every page. */
function LowBalanceBanner() {
  const { alert } = useLowBalance();
  if (!alert?.below_threshold || alert.low_balance_threshold === null) return null;
  const { environment } = alert;
  return (
    <div className="low-balance-banner" role="status">
      <p>
        Your {environment} balance <strong>{formatInr(alert.balance)}</strong> is below your alert threshold{" "}
        <strong>{formatInr(alert.low_balance_threshold)}</strong> —{" "}
        {/* Sandbox credits are topped up on the overview; live ones come from the operator. */}
        <Link to={environment === "sandbox" ? "/" : "/transactions"}>add credits</Link>
      </p>
    </div>
  );
}

function NavSection({ group }: { group: NavGroup }) {
  const { can, mustSetUpTwoFactor } = useSignedIn();
  const items = group.items.filter(
    (item) => can(item.reads) && (!mustSetUpTwoFactor || item.to === SECURITY_PAGE),
  );
  if (items.length === 0) return null;
  const titleId = group.title === undefined ? undefined : `nav-${group.title.toLowerCase()}`;
  return (
    <>
      {group.title === undefined ? null : (
        <p className="nav-group-title" id={titleId}>
          {group.title}
        </p>
      )}
      <ul aria-labelledby={titleId}>
        {items.map((item) => (
          <NavEntry key={item.to} item={item} />
        ))}
      </ul>
    </>
  );
}

function NavEntry({ item }: { item: NavItem }) {
  return (
    <li>
      <NavLink to={item.to} end={item.end ?? false} className="nav-link">
        {item.icon}
        <span>{item.label}</span>
      </NavLink>
    </li>
  );
}

function TopBar() {
  const { member } = useSignedIn();
  const { signOut } = useSession();
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);

  const onSignOut = async () => {
    setSigningOut(true);
    try {
      await signOut();
    } finally {
      navigate("/signin", { replace: true });
    }
  };

  return (
    <header className="topbar">
      <EnvironmentSwitch />
      <div className="topbar-account">
        <span className="account-email" title={`${member.email} (${member.role})`}>
          {member.email}
        </span>
        <span className="role-badge">{member.role}</span>
        <button type="button" className="button button-ghost" onClick={onSignOut} disabled={signingOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}

function EnvironmentSwitch() {
  const { environment, setEnvironment } = useEnvironment();
  const sandbox = environment === "sandbox";
  return (
    <button
      type="button"
      role="switch"
      aria-checked={sandbox}
      className={`env-switch${sandbox ? " env-switch-on" : ""}`}
      onClick={() => setEnvironment(sandbox ? "live" : "sandbox")}
    >
      <span className="env-switch-track" aria-hidden="true">
        <span className="env-switch-thumb" />
      </span>
      <span className="env-switch-label">Sandbox mode</span>
    </button>
  );
}
