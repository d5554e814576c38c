import { type ReactNode, useEffect, useState } from "react";
import { NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { useEnvironment } from "../environment";
import { useAccount, useSession } from "../session";
import {
  AuditIcon,
  InboxIcon,
  KeyIcon,
  LedgerIcon,
  Logo,
  MenuIcon,
  MessagesIcon,
  OverviewIcon,
  ShieldIcon,
  TemplateIcon,
  WebhookIcon,
} from "./icons";

interface NavItem {
  to: string;
  label: string;
  icon: ReactNode;
  end?: boolean;
}

const MAIN_NAV: NavItem[] = [
  { to: "/", label: "Overview", icon: <OverviewIcon />, end: true },
  { to: "/messages", label: "Messages", icon: <MessagesIcon /> },
  { to: "/transactions", label: "Transactions", icon: <LedgerIcon /> },
  { to: "/sandbox", label: "Sandbox inbox", icon: <InboxIcon /> },
  { to: "/templates", label: "Templates & senders", icon: <TemplateIcon /> },
  { to: "/otp", label: "OTP settings", icon: <ShieldIcon /> },
];

const DEVELOPER_NAV: NavItem[] = [
  { to: "/developers/keys", label: "API keys", icon: <KeyIcon /> },
  { to: "/developers/webhooks", label: "Webhooks", icon: <WebhookIcon /> },
];

/** Settings of the account as a whole. */
const SETTINGS_NAV: NavItem[] = [{ to: "/settings/audit", label: "Audit log", icon: <AuditIcon /> }];

export function Layout() {
  const { environment } = useEnvironment();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();

  // On a phone the menu covers the page: close it once a link has been followed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every navigation on purpose
  useEffect(() => setMenuOpen(false), [location.pathname]);

  const sandbox = environment === "sandbox";
  return (
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
              <ul>
                {MAIN_NAV.map((item) => (
                  <NavEntry key={item.to} item={item} />
                ))}
              </ul>
              <p className="nav-group-title" id="nav-developers">
                Developers
              </p>
              <ul aria-labelledby="nav-developers">
                {DEVELOPER_NAV.map((item) => (
                  <NavEntry key={item.to} item={item} />
                ))}
              </ul>
              <p className="nav-group-title" id="nav-settings">
                Settings
              </p>
              <ul aria-labelledby="nav-settings">
                {SETTINGS_NAV.map((item) => (
                  <NavEntry key={item.to} item={item} />
                ))}
              </ul>
            </nav>
          </div>
        </aside>
        <div className="main-column">
          <TopBar />
          <main className="page">
            <Outlet />
          </main>
        </div>
      </div>
    </div>
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
  const account = useAccount();
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
        <span className="account-email" title={account.email}>
          {account.email}
        </span>
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
