import { changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { Environment, TemplateCategory, TemplateStatus } from "../../src/db/schema.js";
import { addTemplate, setTemplateStatus, type Template } from "../../src/dlt/registry.js";
import { addSender } from "../../src/dlt/senders.js";
import type { KeyPrincipal } from "../../src/keys/authenticate.js";
import { type OtpSettings, updateOtpSettings } from "../../src/otp/settings.js";
import { createAccountWithKey, createTestAccount } from "./fixtures.js";

/** A 19-digit DLT principal entity id: beyond Number.MAX_SAFE_INTEGER, as real ones are. */
export const TEST_ENTITY_ID = "1101456789012345678";

export interface TemplateSpec {
  /** DLT content template id (digits). */
  templateId: string;
  content: string;
  /** Senders the template may go out under; the first registered sender if not given. */
  senders?: string[];
  category?: TemplateCategory;
  name?: string;
  /** Registered active, then deactivated when `inactive`. */
  status?: TemplateStatus;
}

/**
 * Registers DLT senders (headers) and content templates for an account, the way the dashboard
 * and the CLI do, through the registry. Returns the templates in the order given.
 */
export async function registerDlt(
  ctx: AppContext,
  accountId: string,
  registry: { senders?: string[]; templates?: TemplateSpec[] },
): Promise<Template[]> {
  const senders = registry.senders ?? ["DAKIYA"];
  for (const sender of senders) await addSender(ctx, accountId, sender, CLI_ORIGIN);
  const templates: Template[] = [];
  for (const spec of registry.templates ?? []) {
    let template = await addTemplate(
      ctx,
      {
        accountId,
        templateId: spec.templateId,
        entityId: TEST_ENTITY_ID,
        name: spec.name ?? `Template ${spec.templateId}`,
        category: spec.category ?? "transactional",
        senders: spec.senders ?? senders.slice(0, 1),
        content: spec.content,
      },
      CLI_ORIGIN,
    );
    if (spec.status === "inactive") {
      template = await setTemplateStatus(ctx, accountId, spec.templateId, "inactive", CLI_ORIGIN);
    }
    templates.push(template);
  }
  return templates;
}

export const SMS_TEMPLATE_ID = "1107161234567890123";
export const SMS_TEMPLATE_CONTENT = "Order {#ref#} is confirmed.";
/** Exactly one placeholder, {#otp#}, as an OTP template must have. */
export const OTP_TEMPLATE_ID = "1107161234567890124";
export const OTP_TEMPLATE_CONTENT = "{#otp#} is your Dakiya code. Do not share it.";

export interface SendingAccountOptions {
  environment?: Environment;
  /** Set over the SMS template and sender; null leaves the account without OTP settings. */
  otpSettings?: Partial<OtpSettings> | null;
}

/**
 * An account with a key and `credits` in `environment` (sandbox unless given), ready to send SMS
 * (sender DAKIYA, template SMS_TEMPLATE_ID with a `ref` variable) and OTPs by SMS (template
 * OTP_TEMPLATE_ID set in its OTP settings, with `otpSettings` over it).
 */
export async function createSendingAccount(
  ctx: AppContext,
  credits: number,
  options: SendingAccountOptions = {},
): ReturnType<typeof createAccountWithKey> {
  const environment = options.environment ?? "sandbox";
  const account = await createAccountWithKey(ctx, environment, credits);
  await registerDlt(ctx, account.accountId, {
    senders: ["DAKIYA"],
    templates: [
      { templateId: SMS_TEMPLATE_ID, content: SMS_TEMPLATE_CONTENT },
      { templateId: OTP_TEMPLATE_ID, content: OTP_TEMPLATE_CONTENT },
    ],
  });
  if (options.otpSettings !== null) {
    await updateOtpSettings(
      ctx,
      account.accountId,
      environment,
      {
        sms_template_id: OTP_TEMPLATE_ID,
        sms_sender: "DAKIYA",
        ...options.otpSettings,
      },
      CLI_ORIGIN,
    );
  }
  return account;
}

/**
 * An account with ₹10,000 of live credits, sender DAKIYA and `templates`, and the principal a live
 * key of it would give, for calling sendSms directly (no key is made).
 */
export async function createLiveSender(
  ctx: AppContext,
  templates: TemplateSpec[],
): Promise<{ accountId: string; principal: KeyPrincipal }> {
  const accountId = await createTestAccount(ctx);
  await changeBalance(ctx, {
    accountId,
    environment: "live",
    amount: 100_000_000,
    reason: "credits_added",
    reference: null,
  });
  await registerDlt(ctx, accountId, { senders: ["DAKIYA"], templates });
  return { accountId, principal: { accountId, environment: "live", keyId: "key_test" } };
}
