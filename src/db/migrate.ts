import { type Migration, type MigrationProvider, Migrator } from "kysely";
import * as foundation from "./migrations/2026-11-22T0001-foundation.js";
import * as sms from "./migrations/2026-11-22T0002-sms.js";
import * as otp from "./migrations/2026-11-22T0003-otp.js";
import * as dashboard from "./migrations/2026-11-22T0004-dashboard.js";
import * as otpSendCounters from "./migrations/2026-11-22T0005-otp-send-counters.js";
import * as rateLimits from "./migrations/2026-11-23T0006-rate-limits.js";
import * as events from "./migrations/2026-11-23T0007-events.js";
import * as webhooks from "./migrations/2026-11-23T0008-webhooks.js";
import * as messageRoutes from "./migrations/2026-11-23T0009-message-routes.js";
import * as leanIndexes from "./migrations/2026-11-25T0010-lean-indexes.js";
import * as otpLatestIndex from "./migrations/2026-11-26T0011-otp-latest-index.js";
import * as webhookEndpointDueIndex from "./migrations/2026-11-26T0012-webhook-endpoint-due-index.js";
import * as rateBucketClock from "./migrations/2026-11-27T0013-rate-bucket-clock.js";
import * as mixedTraffic from "./migrations/2026-11-29T0014-mixed-traffic.js";
import * as voiceCallerId from "./migrations/2026-11-29T0015-voice-caller-id.js";
import * as templateRules from "./migrations/2026-11-29T0016-template-rules.js";
import * as ctaWhitelist from "./migrations/2026-11-29T0017-cta-whitelist.js";
import * as carrierError from "./migrations/2026-11-29T0018-carrier-error.js";
import * as tmChain from "./migrations/2026-11-29T0019-tm-chain.js";
import * as apiKeyLastFour from "./migrations/2026-11-29T0020-api-key-last-four.js";
import * as members from "./migrations/2026-11-29T0021-members.js";
import * as lowBalance from "./migrations/2026-11-29T0022-low-balance.js";
import * as keyScopes from "./migrations/2026-11-29T0023-key-scopes.js";
import * as auditLog from "./migrations/2026-11-29T0024-audit-log.js";
import * as twoFactor from "./migrations/2026-11-29T0025-two-factor.js";
import * as messageReports from "./migrations/2026-11-29T0027-message-reports.js";
import type { Db } from "./schema.js";

/** Every migration, in order. Listed here rather than read from disk so that any runner can load them. */
const MIGRATIONS: Record<string, Migration> = {
  "2026-11-22T0001-foundation": foundation,
  "2026-11-22T0002-sms": sms,
  "2026-11-22T0003-otp": otp,
  "2026-11-22T0004-dashboard": dashboard,
  "2026-11-22T0005-otp-send-counters": otpSendCounters,
  "2026-11-23T0006-rate-limits": rateLimits,
  "2026-11-23T0007-events": events,
  "2026-11-23T0008-webhooks": webhooks,
  "2026-11-23T0009-message-routes": messageRoutes,
  "2026-11-25T0010-lean-indexes": leanIndexes,
  "2026-11-26T0011-otp-latest-index": otpLatestIndex,
  "2026-11-26T0012-webhook-endpoint-due-index": webhookEndpointDueIndex,
  "2026-11-27T0013-rate-bucket-clock": rateBucketClock,
  "2026-11-29T0014-mixed-traffic": mixedTraffic,
  "2026-11-29T0015-voice-caller-id": voiceCallerId,
  "2026-11-29T0016-template-rules": templateRules,
  "2026-11-29T0017-cta-whitelist": ctaWhitelist,
  "2026-11-29T0018-carrier-error": carrierError,
  "2026-11-29T0019-tm-chain": tmChain,
  "2026-11-29T0020-api-key-last-four": apiKeyLastFour,
  "2026-11-29T0021-members": members,
  "2026-11-29T0022-low-balance": lowBalance,
  "2026-11-29T0023-key-scopes": keyScopes,
  "2026-11-29T0024-audit-log": auditLog,
  "2026-11-29T0025-two-factor": twoFactor,
  "2026-11-29T0027-message-reports": messageReports,
};

export const MIGRATION_NAMES = Object.keys(MIGRATIONS);

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/**
 * Orders migrations applied in the same instant. Kysely's default, `localeCompare`, loads ICU's
 * collation on its first call, a fifth of a CLI command's start; the names are ASCII and Kysely
 * sorts the list above in code-unit order, so compare them in that order too.
 */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Brings the schema to the latest version; returns the names of the migrations it ran. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const { error, results } = await new Migrator({
    db,
    provider,
    nameComparator: byCodeUnits,
  }).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
