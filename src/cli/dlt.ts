import { type Command, Option } from "commander";
import { CLI_ORIGIN } from "../audit/types.js";
import { TEMPLATE_CATEGORIES, type TemplateStatus } from "../db/schema.js";
import {
  addTemplate,
  listTemplates,
  type NewTemplate,
  setTemplateStatus,
  type TemplateView,
} from "../dlt/registry.js";
import { addSender, listSenders, removeSender, type Sender } from "../dlt/senders.js";
import { removeTemplate, type TemplateChanges, updateTemplate } from "../dlt/template-edits.js";
import { ConfigError } from "../errors.js";
import { commandGroup, type OutputOptions, print, withContext } from "./run.js";

export function dltCommands(program: Command, output: () => OutputOptions): void {
  const sender = commandGroup(program, "sender", "manage the DLT headers (sender ids) of an account");

  sender
    .command("add")
    .description(
      "register a DLT header: 6 letters (transactional, service-implicit) or 6 digits (promotional, service-explicit)",
    )
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--sender <header>", "the header, e.g. DAKIYA")
    .action(async (opts: { account: string; sender: string }) => {
      const added = await withContext((ctx) => addSender(ctx, opts.account, opts.sender, CLI_ORIGIN));
      print(output(), added, [`Registered sender ${added.sender}.`]);
    });

  sender
    .command("list")
    .description("list an account's registered headers")
    .requiredOption("--account <id>", "account id (acct_…)")
    .action(async (opts: { account: string }) => {
      const data = await withContext((ctx) => listSenders(ctx, opts.account));
      print(output(), { data }, data.length === 0 ? ["No senders."] : data.map(describeSender));
    });

  sender
    .command("remove")
    .description(
      "unregister a header; sends and SMS OTPs under it are refused from then on, and OTP settings naming it lose it",
    )
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--sender <header>", "the header, e.g. DAKIYA")
    .action(async (opts: { account: string; sender: string }) => {
      const removed = await withContext((ctx) => removeSender(ctx, opts.account, opts.sender, CLI_ORIGIN));
      const lines = [`Removed sender ${removed.sender}.`];
      for (const environment of removed.otp_settings_cleared) {
        lines.push(
          `SMS OTPs (${environment}) have no sender now: choose one with dakiya otp settings --account ${opts.account} --environment ${environment} --sms-sender <header>.`,
        );
      }
      print(output(), { ...removed, removed: true }, lines);
    });

  const template = commandGroup(program, "template", "manage the DLT content templates of an account");

  template
    .command("add")
    .description("register a DLT content template; bare {#var#} placeholders become {#var1#}, {#var2#}, …")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--template-id <digits>", "DLT content template id")
    .requiredOption("--entity-id <digits>", "DLT principal entity (PE) id")
    .requiredOption("--name <name>", "a name to tell templates apart")
    .addOption(
      new Option("--category <category>", "the DLT category")
        .choices(TEMPLATE_CATEGORIES)
        .makeOptionMandatory(),
    )
    .requiredOption(
      "--senders <headers>",
      "comma-separated registered headers, e.g. DAKIYA,DKYOTP",
      parseList,
    )
    .requiredOption("--content <text>", 'the approved text, e.g. "Your code is {#otp#}"')
    .option(
      "--variables-justification <text>",
      "why the template has more than 3 variables, as given on the DLT portal",
    )
    .action(async ({ account, ...template }: Omit<NewTemplate, "accountId"> & { account: string }) => {
      const added = await withContext((ctx) =>
        addTemplate(ctx, { accountId: account, ...template }, CLI_ORIGIN),
      );
      print(output(), added, describeTemplate(added, "Registered "));
    });

  template
    .command("list")
    .description("list an account's templates")
    .requiredOption("--account <id>", "account id (acct_…)")
    .action(async (opts: { account: string }) => {
      const data = await withContext((ctx) => listTemplates(ctx, opts.account));
      print(
        output(),
        { data },
        data.length === 0 ? ["No templates."] : data.flatMap((one) => describeTemplate(one)),
      );
    });

  template
    .command("update")
    .description(
      "correct a template: each value given is checked as on add; messages already sent keep their text",
    )
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--template-id <digits>", "DLT content template id")
    .option("--content <text>", "the approved text; bare {#var#} placeholders become {#var1#}, …")
    .option("--senders <headers>", "comma-separated registered headers; replaces the list", parseList)
    .option("--name <name>", "a name to tell templates apart")
    .option("--entity-id <digits>", "DLT principal entity (PE) id")
    .addOption(new Option("--category <category>", "the DLT category").choices(TEMPLATE_CATEGORIES))
    .option(
      "--variables-justification <text>",
      'why the template has more than 3 variables, as given on the DLT portal ("" clears it)',
    )
    .action(
      async ({
        account,
        templateId,
        ...changes
      }: TemplateChanges & { account: string; templateId: string }) => {
        if (Object.values(changes).every((value) => value === undefined)) {
          throw new ConfigError(
            "template update: nothing to change; give --content, --senders, --name, --entity-id, --category or --variables-justification.",
          );
        }
        const updated = await withContext((ctx) =>
          updateTemplate(ctx, account, templateId, changes, CLI_ORIGIN),
        );
        print(output(), updated, describeTemplate(updated, "Updated "));
      },
    );

  template
    .command("remove")
    .description(
      "delete a template (later sends get unknown_template; queued messages still go out); refused while OTP settings use it",
    )
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--template-id <digits>", "DLT content template id")
    .action(async (opts: { account: string; templateId: string }) => {
      const removed = await withContext((ctx) =>
        removeTemplate(ctx, opts.account, opts.templateId, CLI_ORIGIN),
      );
      print(output(), removed, [`Removed template ${removed.template_id}.`]);
    });

  for (const [command, status, what] of [
    ["deactivate", "inactive", "stop sends with a template (template_inactive)"],
    ["activate", "active", "allow sends with a template again"],
  ] as const satisfies ReadonlyArray<readonly [string, TemplateStatus, string]>) {
    template
      .command(command)
      .description(what)
      .requiredOption("--account <id>", "account id (acct_…)")
      .requiredOption("--template-id <digits>", "DLT content template id")
      .action(async (opts: { account: string; templateId: string }) => {
        const updated = await withContext((ctx) =>
          setTemplateStatus(ctx, opts.account, opts.templateId, status, CLI_ORIGIN),
        );
        print(output(), updated, [`Template ${updated.template_id} is now ${updated.status}.`]);
      });
  }
}

function parseList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function describeSender(sender: Sender): string {
  return `${sender.sender} registered ${sender.created_at}`;
}

/** A template on one line, then its justification and each DLT warning on a line of its own. */
function describeTemplate(template: TemplateView, prefix = ""): string[] {
  const placeholders = template.placeholders.length === 0 ? "none" : template.placeholders.join(",");
  const lines = [
    `${prefix}${template.template_id} ${template.status} ${template.category} "${template.name}" ` +
      `entity ${template.entity_id} senders ${template.senders.join(",")} placeholders ${placeholders}: ` +
      JSON.stringify(template.content),
  ];
  if (template.variables_justification !== null) {
    lines.push(`  variables justification: ${JSON.stringify(template.variables_justification)}`);
  }
  for (const warning of template.warnings) lines.push(`  DLT warning ${warning.code}: ${warning.message}`);
  return lines;
}
