/**
 * Correcting and removing registered DLT templates. Messages keep the text they were rendered
 * with (and their template and entity ids), so neither touches what is already queued or sent.
 * OTP settings that name a template are protected: an update must leave it fit for OTPs, and it
 * cannot be removed while they name it (docs/cli.md).
 */

import { requireAccountExists } from "../accounts/accounts.js";
import { recordAudit } from "../audit/record.js";
import { templateSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import { lockForUpdate } from "../db/locks.js";
import type { DbOrTrx, Environment, TemplateCategory } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { otpCodeSlot, otpSlotProblem } from "./otp-slot.js";
import { parseTemplateContent } from "./placeholders.js";
import {
  checkTemplateRules,
  requireDltId,
  requireJustification,
  requireTemplateName,
  requireTemplateSenders,
  type TemplateView,
  toTemplate,
  toTemplateView,
  withRegisteredSenders,
} from "./registry.js";
import { registeredSenders, requireRegisteredSenders } from "./senders.js";

/** What an update may change; at least one field. Each is checked exactly as `addTemplate` checks it. */
export interface TemplateChanges {
  name?: string;
  content?: string;
  senders?: string[];
  entityId?: string;
  category?: TemplateCategory;
  /** Why the template has more than 3 variables; empty or null clears it. */
  variablesJustification?: string | null;
}

export interface RemovedTemplate {
  template_id: string;
  removed: true;
}

/**
 * Changes a template's name, content, senders, entity id, category or variables justification.
 * New content gets its placeholders named and checked as on registration; new senders, or a new
 * category, must fit (senders registered, headers of the category's kind): a template registered
 * before a category changed its headers keeps the ones it has while neither changes. TRAI's
 * template rules are checked on the result, so in `strict` mode no template is saved that breaks
 * them. If OTP settings use the template, the result must still have exactly `{#otp#}` and allow
 * their sender (`invalid_request` otherwise). Answers the template as `listTemplates` shows it.
 */
export async function updateTemplate(
  ctx: AppContext,
  accountId: string,
  templateId: string,
  changes: TemplateChanges,
  origin: ChangeOrigin,
): Promise<TemplateView> {
  const given = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (given.length === 0) {
    throw new ApiError(
      "invalid_request",
      "Nothing to change: give a new name, content, senders, entity_id, category or variables_justification.",
    );
  }
  const name = changes.name === undefined ? undefined : requireTemplateName(changes.name);
  const entityId = changes.entityId === undefined ? undefined : requireDltId(changes.entityId, "entity_id");
  const parsed = changes.content === undefined ? undefined : parseTemplateContent(changes.content);
  const justification =
    changes.variablesJustification === undefined
      ? undefined
      : requireJustification(changes.variablesJustification);
  const id = templateId.trim();

  const row = await inTransaction(ctx, async (trx) => {
    await requireAccountExists(trx, accountId);
    await lockForUpdate(trx, ctx.dialect, `template:${accountId}:${id}`);
    const current = await findTemplateRow(trx, accountId, id);
    const category = changes.category ?? current.category;
    const senders =
      changes.senders === undefined && changes.category === undefined
        ? current.senders
        : requireTemplateSenders(category, changes.senders ?? current.senders);
    if (changes.senders !== undefined) await requireRegisteredSenders(trx, accountId, senders);
    const placeholders = parsed?.placeholders ?? current.placeholders;
    await requireFitForOtp(trx, accountId, id, placeholders, senders);
    const content = parsed?.content ?? current.content;
    const variablesJustification =
      justification === undefined ? current.variables_justification : justification;
    const warnings = checkTemplateRules(ctx.dltTemplateRules, content, variablesJustification);

    const updated = await trx
      .updateTable("templates")
      .set({
        name: name ?? current.name,
        entity_id: entityId ?? current.entity_id,
        category,
        content,
        placeholders: JSON.stringify(placeholders),
        senders: JSON.stringify(senders),
        variables_justification: variablesJustification,
        warnings: JSON.stringify(warnings),
        updated_at: isoNow(ctx.clock),
      })
      .where("account_id", "=", accountId)
      .where("template_id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment: null,
      origin,
      action: "template.updated",
      target: { type: "template", id },
      before: templateSnapshot(current),
      after: templateSnapshot(toTemplate(updated)),
    });
    return updated;
  });
  ctx.settingsCache.forget(accountId);
  return withRegisteredSenders(
    toTemplateView(row, ctx.dltTemplateRules),
    await registeredSenders(ctx.db, accountId),
  );
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
  origin: ChangeOrigin,
): Promise<RemovedTemplate> {
  const id = templateId.trim();
  const removed = await inTransaction(ctx, async (trx) => {
    await requireAccountExists(trx, accountId);
    await lockForUpdate(trx, ctx.dialect, `template:${accountId}:${id}`);
    const current = await findTemplateRow(trx, accountId, id);
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
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment: null,
      origin,
      action: "template.deleted",
      target: { type: "template", id },
      before: templateSnapshot(current),
    });
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
  return { ...toTemplate(row), variables_justification: row.variables_justification };
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

/** The OTP settings' own rule (src/otp/settings.ts): one placeholder for the code, and their sender allowed. */
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
  if (otpCodeSlot(placeholders) === undefined) {
    throw new ApiError(
      "invalid_request",
      `Template ${templateId} is ${where}, so it must keep one placeholder for the code: ${otpSlotProblem(placeholders)}.`,
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
