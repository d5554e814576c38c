import type { AppContext } from "../../src/context.js";
import type { TemplateCategory, TemplateStatus } from "../../src/db/schema.js";
import { addSender, addTemplate, setTemplateStatus, type Template } from "../../src/dlt/registry.js";

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
