import type { AppContext } from "../context.js";
import type { App } from "../http/types.js";
import { auditRoutes } from "./routes/audit.js";
import { billingRoutes } from "./routes/billing.js";
import { ctaRoutes } from "./routes/cta.js";
import { keyRoutes } from "./routes/keys.js";
import { ledgerRoutes } from "./routes/ledger.js";
import { memberRoutes } from "./routes/members.js";
import { messageRoutes } from "./routes/messages.js";
import { otpSettingsRoutes } from "./routes/otp-settings.js";
import { overviewRoutes } from "./routes/overview.js";
import { registryRoutes } from "./routes/registry.js";
import { dashboardReportRoutes } from "./routes/reports.js";
import { sessionRoutes } from "./routes/session.js";
import { tmChainRoutes } from "./routes/tm-chain.js";
import { twoFactorRoutes } from "./routes/two-factor.js";
import { webhookRoutes } from "./routes/webhooks.js";

/** The `/dashboard/api/` routes the web console calls (docs/dashboard-api.md). */
export function dashboardRoutes(app: App, ctx: AppContext): void {
  sessionRoutes(app, ctx);
  twoFactorRoutes(app, ctx);
  overviewRoutes(app, ctx);
  dashboardReportRoutes(app, ctx);
  memberRoutes(app, ctx);
  keyRoutes(app, ctx);
  messageRoutes(app, ctx);
  ledgerRoutes(app, ctx);
  billingRoutes(app, ctx);
  registryRoutes(app, ctx);
  tmChainRoutes(app, ctx);
  ctaRoutes(app, ctx);
  otpSettingsRoutes(app, ctx);
  webhookRoutes(app, ctx);
  auditRoutes(app, ctx);
}
