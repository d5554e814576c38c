import type { AppContext } from "../../src/context.js";
import type { TemplateCategory, TemplateStatus } from "../../src/db/schema.js";
import { addSender, addTemplate, setTemplateStatus, type Template } from "../../src/dlt/registry.js";
import { type OtpSettings, updateOtpSettings } from "../../src/otp/settings.js";
import { createAccountWithKey } from "./fixtures.js";

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
  for (const sender of senders) await addSender(ctx, accountId, sender);
  const templates: Template[] = [];
  for (const spec of registry.templates ?? []) {
    let template = await addTemplate(ctx, {
      accountId,
      templateId: spec.templateId,
      entityId: TEST_ENTITY_ID,
      name: spec.name ?? `Template ${spec.templateId}`,
      category: spec.category ?? "transactional",
      senders: spec.senders ?? senders.slice(0, 1),
      content: spec.content,
    });
    if (spec.status === "inactive") {
      template = await setTemplateStatus(ctx, accountId, spec.templateId, "inactive");
    }
    templates.push(template);
  }
  return templates;
}

export const SMS_TEMPLATE_ID = "1107161234567890123";
export const OTP_TEMPLATE_ID = "1107161234567890124";

/**
 * A sandbox account with `credits` and a key, ready to send SMS (sender DAKIYA, template
 * SMS_TEMPLATE_ID with a `ref` variable) and OTPs by SMS (template OTP_TEMPLATE_ID), with
 * `otpSettings` besides.
 */
export async function createSendingAccount(
  ctx: AppContext,
  credits: number,
  otpSettings: Partial<OtpSettings> = {},
): ReturnType<typeof createAccountWithKey> {
  const account = await createAccountWithKey(ctx, "sandbox", credits);
  await registerDlt(ctx, account.accountId, {
    senders: ["DAKIYA"],
    templates: [
      { templateId: SMS_TEMPLATE_ID, content: "Order {#ref#} is confirmed." },
      { templateId: OTP_TEMPLATE_ID, content: "{#otp#} is your Dakiya code. Do not share it." },
    ],
  });
  await updateOtpSettings(ctx, account.accountId, "sandbox", {
    sms_template_id: OTP_TEMPLATE_ID,
    sms_sender: "DAKIYA",
    ...otpSettings,
  });
  return account;
}
