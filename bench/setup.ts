import { CLI_ORIGIN } from "../src/audit/types.js";
// What a run starts from: a fresh database (a SQLite file in the temporary folder, or a new
// PostgreSQL database dropped at the end) and, through the service functions, an account with
// balances, a live and a sandbox key, a sender, the templates every scenario sends with and,
// unless --no-webhooks, a webhook endpoint per environment subscribed to every event.

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.js";
import { changeBalance } from "../src/accounts/ledger.js";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { addTemplate } from "../src/dlt/registry.js";
import { addSender } from "../src/dlt/senders.js";
import { createKey } from "../src/keys/keys.js";
import { createLogger } from "../src/lib/logger.js";
import { updateOtpSettings } from "../src/otp/settings.js";
import { ALL_EVENTS, createEndpoint } from "../src/webhooks/endpoints.js";
import { createPostgresDatabase } from "../test/helpers/database.js";
import { fail, onCleanup } from "./lifecycle.js";
import { DIALECT, type Dialect } from "./options.js";
import type { WebhookReceiver } from "./webhooks.js";

export const SMSC_CREDENTIALS = { systemId: "bench", password: "benchpw" };
export const SENDER = "DAKIYA";
export const TEMPLATE_ID = "1107161234567890123";
export const TEMPLATE_CONTENT = "Your Dakiya login code is {#var#}. Do not share it with anyone.";
export const OTP_TEMPLATE_ID = "1107161234567890124";
const ENTITY_ID = "1101456789012345678";

export interface BenchDatabase {
  dialect: Dialect;
  url: string;
  /** The SQLite file. */
  path?: string;
}

export async function createBenchDatabase(temp: string): Promise<BenchDatabase> {
  if (DIALECT === "sqlite") {
    const path = join(temp, "dakiya.db");
    return { dialect: "sqlite", url: `sqlite:${path}`, path };
  }
  const adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!adminUrl) fail("--db postgres needs TEST_DATABASE_URL or DATABASE_URL (a PostgreSQL server)");
  const name = `dakiya_bench_${randomBytes(6).toString("hex")}`;
  const database = await createPostgresDatabase(adminUrl, name);
  onCleanup(() => database.drop());
  return { dialect: "postgres", url: database.url };
}

export interface BenchKeys {
  live: string;
  sandbox: string;
}

// Set-up through the service functions, on a context of its own that is closed before the server
// starts (the server migrates the same database again, which is a no-op).
export async function setUpAccount(
  databaseUrl: string,
  secret: string,
  webhookUrls: WebhookReceiver["urls"] = {},
): Promise<BenchKeys> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DAKIYA_SECRET: secret,
    LOG_LEVEL: "warn",
    // The receiver is on loopback, which endpoints may only use with this.
    WEBHOOK_ALLOW_PRIVATE: "true",
  });
  const ctx = await createContext(config, { log: createLogger("warn") });
  try {
    const account = await createAccount(ctx, { email: "bench@example.com", password: "bench passphrase" });
    for (const environment of ["live", "sandbox"] as const) {
      await changeBalance(ctx, {
        accountId: account.id,
        environment,
        amount: 10_000_000 * 10_000, // ₹1 crore: 40 million messages at ₹0.25
        reason: "credits_added",
        reference: "bench",
      });
    }
    const live = await createKey(
      ctx,
      { accountId: account.id, environment: "live", label: "bench" },
      CLI_ORIGIN,
    );
    const sandbox = await createKey(
      ctx,
      { accountId: account.id, environment: "sandbox", label: "bench" },
      CLI_ORIGIN,
    );
    await addSender(ctx, account.id, SENDER, CLI_ORIGIN);
    await addTemplate(
      ctx,
      {
        accountId: account.id,
        templateId: TEMPLATE_ID,
        entityId: ENTITY_ID,
        name: "login-code",
        category: "transactional",
        senders: [SENDER],
        content: TEMPLATE_CONTENT,
      },
      CLI_ORIGIN,
    );
    await addTemplate(
      ctx,
      {
        accountId: account.id,
        templateId: OTP_TEMPLATE_ID,
        entityId: ENTITY_ID,
        name: "otp",
        category: "transactional",
        senders: [SENDER],
        content: "{#otp#} is your Dakiya verification code. Do not share it with anyone.",
      },
      CLI_ORIGIN,
    );
    for (const environment of ["live", "sandbox"] as const) {
      await updateOtpSettings(
        ctx,
        account.id,
        environment,
        {
          sms_template_id: OTP_TEMPLATE_ID,
          sms_sender: SENDER,
          max_attempts: 20,
        },
        CLI_ORIGIN,
      );
    }
    for (const [environment, url] of Object.entries(webhookUrls)) {
      await createEndpoint(
        ctx,
        { accountId: account.id, environment: environment as keyof typeof webhookUrls },
        { url, events: [ALL_EVENTS], description: "npm run bench" },
        CLI_ORIGIN,
      );
    }
    return { live: live.secret, sandbox: sandbox.secret };
  } finally {
    await ctx.close();
  }
}
