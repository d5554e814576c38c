import { Navigate, Outlet, Route, Routes, useLocation } from "react-router";
import { Loading } from "./components/Feedback";
import { Layout } from "./components/Layout";
import { AcceptInvitePage } from "./pages/AcceptInvite";
import { ApiKeysPage } from "./pages/ApiKeys";
import { AuditLogPage } from "./pages/AuditLog";
import { CampaignDetailPage } from "./pages/CampaignDetail";
import { CampaignsPage } from "./pages/Campaigns";
import { MessageDetailPage } from "./pages/MessageDetail";
import { MessagesPage } from "./pages/Messages";
import { NewCampaignPage } from "./pages/NewCampaign";
import { NotFoundPage } from "./pages/NotFound";
import { OtpSettingsPage } from "./pages/OtpSettings";
import { OverviewPage } from "./pages/Overview";
import { SandboxInboxPage } from "./pages/SandboxInbox";
import { SecurityPage } from "./pages/Security";
import { SetupPage } from "./pages/Setup";
import { SignInPage } from "./pages/SignIn";
import { TeamPage } from "./pages/Team";
import { TemplatesPage } from "./pages/Templates";
import { TransactionsPage } from "./pages/Transactions";
import { UnavailablePage } from "./pages/Unavailable";
import { WebhookDetailPage } from "./pages/WebhookDetail";
import { WebhooksPage } from "./pages/Webhooks";
import { useSession } from "./session";

export function App() {
  return (
    <Routes>
      <Route path="/signin" element={<SignInPage />} />
      <Route path="/setup" element={<SetupPage />} />
      <Route path="/invite/:token" element={<AcceptInvitePage />} />
      <Route element={<RequireSession />}>
        <Route element={<Layout />}>
          <Route index element={<OverviewPage />} />
          <Route path="messages" element={<MessagesPage />} />
          <Route path="messages/:id" element={<MessageDetailPage />} />
          <Route path="campaigns" element={<CampaignsPage />} />
          <Route path="campaigns/new" element={<NewCampaignPage />} />
          <Route path="campaigns/:id" element={<CampaignDetailPage />} />
          <Route path="transactions" element={<TransactionsPage />} />
          <Route path="sandbox" element={<SandboxInboxPage />} />
          <Route path="templates" element={<TemplatesPage />} />
          <Route path="otp" element={<OtpSettingsPage />} />
          <Route path="developers/keys" element={<ApiKeysPage />} />
          <Route path="developers/webhooks" element={<WebhooksPage />} />
          <Route path="developers/webhooks/:id" element={<WebhookDetailPage />} />
          <Route path="settings/team" element={<TeamPage />} />
          <Route path="settings/audit" element={<AuditLogPage />} />
          <Route path="settings/security" element={<SecurityPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Route>
    </Routes>
  );
}

/** The console needs a session: without one, go to set-up (empty installation) or sign-in. */
function RequireSession() {
  const { state } = useSession();
  const location = useLocation();
  switch (state.status) {
    case "loading":
      return (
        <div className="center-screen">
          <Loading />
        </div>
      );
    case "unavailable":
      return <UnavailablePage message={state.message} />;
    case "signed-out": {
      const target = state.setupNeeded ? "/setup" : "/signin";
      const from = location.pathname + location.search;
      return <Navigate to={target} replace state={from === "/" ? undefined : { from }} />;
    }
    case "signed-in":
      return <Outlet />;
  }
}
