import { type Command, InvalidArgumentError } from "commander";
import { requireAccountExists } from "../accounts/accounts.js";
import { type AuditRecord, listAuditLog, MAX_AUDIT_PAGE } from "../audit/log.js";
import { type OutputOptions, print, withContext } from "./run.js";

export function auditCommands(program: Command, output: () => OutputOptions): void {
  program
    .command("audit")
    .description("list an account's audit log, newest first: who changed what, when, from where")
    .requiredOption("--account <id>", "account id (acct_…)")
    .option("--limit <n>", `how many entries, 1 to ${MAX_AUDIT_PAGE}`, parseLimit, 20)
    .option("--action <action>", "only this action (key.created), or a target's every action (key)")
    .action(async (opts: { account: string; limit: number; action?: string }) => {
      const page = await withContext(async (ctx) => {
        await requireAccountExists(ctx.db, opts.account);
        return listAuditLog(ctx.db, opts.account, { action: opts.action, limit: opts.limit });
      });
      const lines = page.data.length === 0 ? ["No audit entries."] : page.data.map(describe);
      if (page.has_more) lines.push(`… more: raise --limit (up to ${MAX_AUDIT_PAGE}) or narrow --action.`);
      print(output(), page, lines);
    });
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d{1,3}$/.test(value) || limit < 1 || limit > MAX_AUDIT_PAGE) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_AUDIT_PAGE}.`);
  }
  return limit;
}

/** `2026-11-29T10:00:00.000Z  key.created  api_key key_…  by member a@b.in from 203.0.113.7 (live)` */
function describe(record: AuditRecord): string {
  const actor = record.actor.label ?? record.actor.id ?? record.actor.type;
  const by = record.actor.type === "cli" ? "by the CLI" : `by ${record.actor.type} ${actor}`;
  const from = record.client_address === null ? "" : ` from ${record.client_address}`;
  const environment = record.environment === null ? "" : ` (${record.environment})`;
  const target = record.target.id === null ? record.target.type : `${record.target.type} ${record.target.id}`;
  return `${record.created_at}  ${record.action}  ${target}  ${by}${from}${environment}`;
}
