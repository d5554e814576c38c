/**
 * The DLT content templates of an account, as registered on the DLT portal (its headers are in
 * senders.ts). Sends are checked against them (docs/sms.md).
 */

import { requireAccountExists } from "../accounts/accounts.js";
import { recordAudit } from "../audit/record.js";
import { templateSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { DltTemplateRules } from "../config.js";
import type { AppContext } from "../context.js";
import {
  type DbOrTrx,
  TEMPLATE_CATEGORIES,
  type TemplateCategory,
  type TemplateStatus,
  type TemplatesTable,
} from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import { parseTemplateContent } from "./placeholders.js";
import {
  DIGIT_HEADER,
  LETTER_HEADER,
  normaliseHeader,
  registeredSenders,
  requireRegisteredSenders,
} from "./senders.js";
import {
  MAX_JUSTIFICATION_LENGTH,
  type TemplateRuleCode,
  type TemplateWarning,
  templateRuleWarnings,
} from "./template-rules.js";

/** A template as sends read it. */
export interface Template {
  id: string;
  template_id: string;
  entity_id: string;
  name: string;
  category: TemplateCategory;
  content: string;
  placeholders: string[];
  senders: string[];
  status: TemplateStatus;
  created_at: string;
  updated_at: string;
}

/** A template as people see it (dashboard, CLI): with TRAI's template rules it breaks. */
export interface TemplateView extends Template {
  variables_justification: string | null;
  /** Empty when it breaks none, or when DLT_TEMPLATE_RULES is `off`. */
  warnings: TemplateWarning[];
}

/** The columns sends read: a template's rules and warnings are for people, not for sends. */
export const TEMPLATE_SEND_COLUMNS = [
  "id",
  "account_id",
  "template_id",
  "entity_id",
  "name",
  "category",
  "content",
  "placeholders",
  "senders",
  "status",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof TemplatesTable>;
export type TemplateSendRow = Pick<TemplatesTable, (typeof TEMPLATE_SEND_COLUMNS)[number]>;

export interface NewTemplate {
  accountId: string;
  /** DLT content template id: digits, kept as a string (DLT issues 19, beyond safe integers). */
  templateId: string;
  /** DLT principal entity (PE) id. */
  entityId: string;
  name: string;
  category: TemplateCategory;
  senders: string[];
  content: string;
  /** Why the template has more than 3 variables, as given on the DLT portal. */
  variablesJustification?: string | null;
}

export const TEMPLATE_STATUSES: readonly TemplateStatus[] = ["active", "inactive"];
const DLT_ID = /^[0-9]{1,30}$/;
export const MAX_TEMPLATE_NAME_LENGTH = 100;

export async function addTemplate(
  ctx: AppContext,
  input: NewTemplate,
  origin: ChangeOrigin,
): Promise<TemplateView> {
  const templateId = requireDltId(input.templateId, "template_id");
  const entityId = requireDltId(input.entityId, "entity_id");
  const name = requireTemplateName(input.name);
  const senders = requireTemplateSenders(input.category, input.senders);
  const { content, placeholders } = parseTemplateContent(input.content);
  const justification = requireJustification(input.variablesJustification);
  const warnings = checkTemplateRules(ctx.dltTemplateRules, content, justification);

  const now = isoNow(ctx.clock);
  const row: TemplatesTable = {
    id: newId("tpl"),
    account_id: input.accountId,
    template_id: templateId,
    entity_id: entityId,
    name,
    category: input.category,
    content,
    placeholders: JSON.stringify(placeholders),
    senders: JSON.stringify(senders),
    status: "active",
    variables_justification: justification,
    warnings: JSON.stringify(warnings),
    created_at: now,
    updated_at: now,
  };
  await inTransaction(ctx, async (trx) => {
    await requireAccountExists(trx, input.accountId);
    await requireRegisteredSenders(trx, input.accountId, senders);
    const inserted = await trx
      .insertInto("templates")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "template_id"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) {
      throw new ApiError(
        "invalid_request",
        `template ${templateId} is already registered for this account.`,
        "template_id",
      );
    }
    await recordAudit(trx, ctx.clock, {
      accountId: input.accountId,
      environment: null,
      origin,
      action: "template.created",
      target: { type: "template", id: templateId },
      after: templateSnapshot(toTemplate(row)),
    });
  });
  ctx.settingsCache.forget(input.accountId);
  return toTemplateView(row, ctx.dltTemplateRules);
}

/**
 * TRAI's template rules on `content` (as stored) and `justification`: every breach, whatever the
 * mode, so that the warnings are there when the mode changes. In `strict` mode a breach refuses
 * the template (`template_rule`): `param` `content`, or `variables_justification` when a
 * justification alone would mend it.
 */
export function checkTemplateRules(
  mode: DltTemplateRules,
  content: string,
  justification: string | null,
): TemplateWarning[] {
  const warnings = templateRuleWarnings(content, justification);
  if (mode !== "strict" || warnings.length === 0) return warnings;
  const justificationOnly: TemplateRuleCode = "too_many_variables";
  throw new ApiError(
    "template_rule",
    `The template breaks TRAI's template rules, and this server refuses such templates: ${warnings
      .map((warning) => `${warning.code}: ${warning.message}`)
      .join(" ")}`,
    warnings.every((warning) => warning.code === justificationOnly) ? "variables_justification" : "content",
  );
}

/**
 * A `variables_justification`, trimmed; null when none or only white space was given.
 * `invalid_request` (param `variables_justification`) when it is longer than 1000 characters.
 */
export function requireJustification(raw: string | null | undefined): string | null {
  const justification = (raw ?? "").trim();
  if (justification === "") return null;
  if ([...justification].length > MAX_JUSTIFICATION_LENGTH) {
    throw new ApiError(
      "invalid_request",
      `variables_justification must be at most ${MAX_JUSTIFICATION_LENGTH} characters.`,
      "variables_justification",
    );
  }
  return justification;
}

/** A template's name, trimmed; `invalid_request` (param `name`) unless 1 to 100 characters. */
export function requireTemplateName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > MAX_TEMPLATE_NAME_LENGTH) {
    throw new ApiError(
      "invalid_request",
      `name must be 1 to ${MAX_TEMPLATE_NAME_LENGTH} characters.`,
      "name",
    );
  }
  return name;
}

/**
 * A template's senders, upper-cased and without repeats, checked against its category: 6 letters
 * for transactional and service-implicit templates, 6 digits for promotional and service-explicit
 * ones (service-explicit templates were migrated to promotional by DLT in May 2025).
 */
export function requireTemplateSenders(category: TemplateCategory, raw: readonly string[]): string[] {
  if (!TEMPLATE_CATEGORIES.includes(category)) {
    throw new ApiError(
      "invalid_request",
      `category must be one of ${TEMPLATE_CATEGORIES.join(", ")}.`,
      "category",
    );
  }
  const senders = [...new Set(raw.map(normaliseHeader).filter((s) => s !== ""))];
  if (senders.length === 0) {
    throw new ApiError("invalid_request", "a template needs at least one sender.", "senders");
  }
  const digits = category === "promotional" || category === "service_explicit";
  const misfit = senders.find((s) => !(digits ? DIGIT_HEADER : LETTER_HEADER).test(s));
  if (misfit !== undefined) {
    const rule =
      category === "promotional"
        ? "promotional templates go out under 6-digit headers"
        : category === "service_explicit"
          ? "service_explicit templates go out under 6-digit headers: since May 2025 DLT treats " +
            "service-explicit content as promotional, so it needs a promotional (numeric) header"
          : `${category} templates go out under 6-letter headers`;
    throw new ApiError("invalid_request", `sender ${misfit} does not fit: ${rule}.`, "senders");
  }
  return senders;
}

/** The account's templates as shown to people: each lists only its senders still registered. */
export async function listTemplates(ctx: AppContext, accountId: string): Promise<TemplateView[]> {
  await requireAccountExists(ctx.db, accountId);
  const [rows, registered] = await Promise.all([
    ctx.db
      .selectFrom("templates")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy("created_at")
      .orderBy("template_id")
      .execute(),
    registeredSenders(ctx.db, accountId),
  ]);
  return rows.map((row) => withRegisteredSenders(toTemplateView(row, ctx.dltTemplateRules), registered));
}

export async function setTemplateStatus(
  ctx: AppContext,
  accountId: string,
  templateId: string,
  status: TemplateStatus,
  origin: ChangeOrigin,
): Promise<TemplateView> {
  if (!TEMPLATE_STATUSES.includes(status)) {
    throw new ApiError("invalid_request", `status must be one of ${TEMPLATE_STATUSES.join(", ")}.`, "status");
  }
  const row = await inTransaction(ctx, async (trx) => {
    const before = await trx
      .selectFrom("templates")
      .select(TEMPLATE_SEND_COLUMNS)
      .where("account_id", "=", accountId)
      .where("template_id", "=", templateId)
      .executeTakeFirst();
    if (!before) throw new ApiError("not_found", `No template ${templateId} on this account.`, "template_id");
    const after = await trx
      .updateTable("templates")
      .set({ status, updated_at: isoNow(ctx.clock) })
      .where("id", "=", before.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment: null,
      origin,
      action: "template.updated",
      target: { type: "template", id: templateId },
      before: templateSnapshot(toTemplate(before)),
      after: templateSnapshot(toTemplate(after)),
    });
    return after;
  });
  ctx.settingsCache.forget(accountId);
  return withRegisteredSenders(
    toTemplateView(row, ctx.dltTemplateRules),
    await registeredSenders(ctx.db, accountId),
  );
}

/**
 * The send path's template lookup: one query on the (account_id, template_id) unique index. Its
 * `senders` are the stored DLT links, registered or not: callers check the sender itself.
 */
export async function findTemplate(
  db: DbOrTrx,
  accountId: string,
  templateId: string,
): Promise<Template | undefined> {
  const row = await templateQuery(db, accountId, templateId).executeTakeFirst();
  return row && toTemplate(row);
}

/** The query of `findTemplate`: the template's row, if there is one (map it with `toTemplate`). */
export function templateQuery(db: DbOrTrx, accountId: string, templateId: string) {
  return db
    .selectFrom("templates")
    .select(TEMPLATE_SEND_COLUMNS)
    .where("account_id", "=", accountId)
    .where("template_id", "=", templateId);
}

/** A batch send's template lookup: the templates of `templateIds` that exist, by DLT id, in one query. */
export async function findTemplates(
  db: DbOrTrx,
  accountId: string,
  templateIds: readonly string[],
): Promise<Map<string, Template>> {
  if (templateIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("templates")
    .select(TEMPLATE_SEND_COLUMNS)
    .where("account_id", "=", accountId)
    .where("template_id", "in", [...new Set(templateIds)])
    .execute();
  return new Map(rows.map((row) => [row.template_id, toTemplate(row)]));
}

export function withRegisteredSenders<T extends Template>(template: T, registered: Set<string>): T {
  return { ...template, senders: template.senders.filter((s) => registered.has(s)) };
}

export function toTemplate(row: TemplateSendRow): Template {
  return {
    id: row.id,
    template_id: row.template_id,
    entity_id: row.entity_id,
    name: row.name,
    category: row.category,
    content: row.content,
    placeholders: JSON.parse(row.placeholders) as string[],
    senders: JSON.parse(row.senders) as string[],
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A stored template as people see it: its warnings only where the rules are checked (not `off`). */
export function toTemplateView(row: TemplatesTable, mode: DltTemplateRules): TemplateView {
  return {
    ...toTemplate(row),
    variables_justification: row.variables_justification,
    warnings: mode === "off" ? [] : (JSON.parse(row.warnings) as TemplateWarning[]),
  };
}

export function requireDltId(value: string, param: "template_id" | "entity_id"): string {
  const id = value.trim();
  if (!DLT_ID.test(id)) {
    throw new ApiError("invalid_request", `${param} must be a DLT id: 1 to 30 digits.`, param);
  }
  return id;
}

/**
 * Once at start, where the rules are checked: one warning line with how many templates (of how
 * many accounts) break TRAI's template rules, rather than a line per template.
 */
export async function logTemplateWarnings(ctx: AppContext): Promise<void> {
  if (ctx.dltTemplateRules === "off") return;
  const row = await ctx.db
    .selectFrom("templates")
    .select((eb) => [
      eb.fn.countAll<number | string>().as("templates"),
      eb.fn.count<number | string>("account_id").distinct().as("accounts"),
    ])
    .where("warnings", "<>", "[]")
    .executeTakeFirstOrThrow();
  const templates = Number(row.templates);
  if (templates === 0) return;
  const accounts = Number(row.accounts);
  ctx.log.warn(
    { templates, accounts, dlt_template_rules: ctx.dltTemplateRules },
    `${templates} DLT template${templates === 1 ? "" : "s"} of ${accounts} account${accounts === 1 ? "" : "s"} ` +
      "break TRAI's template rules: see each template's warnings (console: Templates & senders; " +
      "dakiya template list --account ID)",
  );
}
