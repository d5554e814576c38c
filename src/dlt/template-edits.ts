/**
 * Correcting and removing registered DLT templates. Messages keep the text they were rendered
 * with (and their template and entity ids), so neither touches what is already queued or sent.
 * OTP settings that name a template are protected: an update must leave it fit for OTPs, and it
 * cannot be removed while they name it (docs/cli.md).
 */

import { requireAccountExists } from "../accounts/accounts.js";
import type { AppContext } from "../context.js";
import { lockForUpdate } from "../db/locks.js";
import type { DbOrTrx, Environment, TemplateCategory } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { parseTemplateContent } from "./placeholders.js";
import {
  registeredSenders,
  requireDltId,
  requireRegisteredSenders,
  requireTemplateName,
  requireTemplateSenders,
  type Template,
  toTemplate,
  withRegisteredSenders,
} from "./registry.js";

/** What an update may change; at least one field. Each is checked exactly as `addTemplate` checks it. */
export interface TemplateChanges {
  name?: string;
  content?: string;
  senders?: string[];
  entityId?: string;
  category?: TemplateCategory;
}

export interface RemovedTemplate {
  template_id: string;
  removed: true;
}

/**
 * Changes a template's name, content, senders, entity id or category. New content gets its
 * placeholders named and checked as on registration; new senders must be registered and fit the
 * category. If OTP settings use the template, the result must still have exactly `{#otp#}` and
 * allow their sender (`invalid_request` otherwise). Answers the template as `listTemplates` shows it.
 */
export async function updateTemplate(
  ctx: AppContext,
  accountId: string,
  templateId: string,
  changes: TemplateChanges,
): Promise<Template> {
  const given = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (given.length === 0) {
    throw new ApiError(
      "invalid_request",
      "Nothing to change: give a new name, content, senders, entity_id or category.",
    );
  }
  const name = changes.name === undefined ? undefined : requireTemplateName(changes.name);
  const entityId = changes.entityId === undefined ? undefined : requireDltId(changes.entityId, "entity_id");
  const parsed = changes.content === undefined ? undefined : parseTemplateContent(changes.content);
  const id = templateId.trim();

  const row = await inTransaction(ctx, async (trx) => {
    await requireAccountExists(trx, accountId);
    await lockForUpdate(trx, ctx.dialect, `template:${accountId}:${id}`);
    const current = await findTemplateRow(trx, accountId, id);
    const category = changes.category ?? current.category;
    const senders = requireTemplateSenders(category, changes.senders ?? current.senders);
    if (changes.senders !== undefined) await requireRegisteredSenders(trx, accountId, senders);
    const placeholders = parsed?.placeholders ?? current.placeholders;
    await requireFitForOtp(trx, accountId, id, placeholders, senders);

    return trx
      .updateTable("templates")
      .set({
        name: name ?? current.name,
        entity_id: entityId ?? current.entity_id,
        category,
        content: parsed?.content ?? current.content,
        placeholders: JSON.stringify(placeholders),
        senders: JSON.stringify(senders),
        updated_at: isoNow(ctx.clock),
      })
      .where("account_id", "=", accountId)
      .where("template_id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  ctx.settingsCache.forget(accountId);
  return withRegisteredSenders(toTemplate(row), await registeredSenders(ctx.db, accountId));
}

/**
 * Deletes a template: sends with it are `unknown_template` from then on. Messages already queued
 * still go out with their rendered text. Refused (`invalid_request`, param `template_id`) while OTP
 * settings use it for SMS OTPs: choose another OTP template first, or deactivate it instead.
 */
export async function removeTemplate(
  ctx: AppContext,
  accountId: string,
  templateId: string,
): Promise<RemovedTemplate> {
  const id = templateId.trim();
  const removed = await inTransaction(ctx, async (trx) => {
    await requireAccountExists(trx, accountId);
    await lockForUpdate(trx, ctx.dialect, `template:${accountId}:${id}`);
    await findTemplateRow(trx, accountId, id);
    const users = await otpSettingsUsing(trx, accountId, id);
    if (users.length > 0) {
      throw new ApiError(
        "invalid_request",
        `Template ${id} is the SMS OTP template of the ${describeEnvironments(users)} OTP settings: ` +
          "set another OTP template there first, or deactivate this one instead.",
        "template_id",
      );
    }
    await trx
      .deleteFrom("templates")
      .where("account_id", "=", accountId)
      .where("template_id", "=", id)
      .execute();
    return { template_id: id, removed: true as const };
  });
  ctx.settingsCache.forget(accountId);
  return removed;
}

async function findTemplateRow(db: DbOrTrx, accountId: string, templateId: string) {
  const row = await db
    .selectFrom("templates")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("template_id", "=", templateId)
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", `No template ${templateId} on this account.`, "template_id");
  return toTemplate(row);
}

async function otpSettingsUsing(
  db: DbOrTrx,
  accountId: string,
  templateId: string,
): Promise<Array<{ environment: Environment; sms_sender: string | null }>> {
  return db
    .selectFrom("otp_settings")
    .select(["environment", "sms_sender"])
    .where("account_id", "=", accountId)
    .where("sms_template_id", "=", templateId)
    .orderBy("environment")
    .execute();
}

/** The OTP settings' own rule (src/otp/settings.ts): exactly `{#otp#}`, and their sender allowed. */
async function requireFitForOtp(
  db: DbOrTrx,
  accountId: string,
  templateId: string,
  placeholders: readonly string[],
  senders: readonly string[],
): Promise<void> {
  const users = await otpSettingsUsing(db, accountId, templateId);
  if (users.length === 0) return;
  const where = `the SMS OTP template of the ${describeEnvironments(users)} OTP settings`;
  if (placeholders.length !== 1 || placeholders[0] !== "otp") {
    throw new ApiError(
      "invalid_request",
      `Template ${templateId} is ${where}, so its content must have exactly one placeholder, {#otp#}.`,
      "content",
    );
  }
  const lost = users.find((user) => user.sms_sender !== null && !senders.includes(user.sms_sender));
  if (lost?.sms_sender) {
    throw new ApiError(
      "invalid_request",
      `Template ${templateId} is ${where}, so its senders must keep ${lost.sms_sender}.`,
      "senders",
    );
  }
}

function describeEnvironments(users: ReadonlyArray<{ environment: Environment }>): string {
  return users.map((user) => user.environment).join(" and ");
}
