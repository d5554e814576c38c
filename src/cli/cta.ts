import type { Command } from "commander";
import { CLI_ORIGIN } from "../audit/types.js";
import type { CtaKind } from "../db/schema.js";
import { addCtaEntry, type CtaEntryView, listCtaEntries, removeCtaEntry } from "../dlt/cta/store.js";
import { ConfigError } from "../errors.js";
import { commandGroup, type OutputOptions, print, withContext } from "./run.js";

interface EntryOptions {
  account: string;
  url?: string;
  number?: string;
}

export function ctaCommands(program: Command, output: () => OutputOptions): void {
  const cta = commandGroup(
    program,
    "cta",
    "manage an account's whitelisted calls to action: the URL prefixes and callback numbers it whitelisted on DLT",
  );

  cta
    .command("add")
    .description(
      "whitelist a URL prefix or a callback number: sends' url/urlott values must then start with a whitelisted prefix, cbn values be a whitelisted number",
    )
    .requiredOption("--account <id>", "account id (acct_…)")
    .option("--url <prefix>", "an http(s) URL prefix, e.g. https://dky.in/ or https://dky.in/offers/")
    .option("--number <e164>", "a callback number in E.164, e.g. +9118001234567")
    .action(async (opts: EntryOptions) => {
      const [kind, value] = entryOf("cta add", opts);
      const added = await withContext((ctx) => addCtaEntry(ctx, opts.account, kind, value, CLI_ORIGIN));
      print(output(), added, [`Whitelisted ${describeEntry(added)}.`]);
    });

  cta
    .command("list")
    .description("list an account's whitelisted URL prefixes and callback numbers")
    .requiredOption("--account <id>", "account id (acct_…)")
    .action(async (opts: { account: string }) => {
      const data = await withContext((ctx) => listCtaEntries(ctx, opts.account));
      print(
        output(),
        { data },
        data.length === 0
          ? [
              "No whitelisted links or numbers: sends' links and callback numbers are not checked (unless DLT_TEMPLATE_RULES=strict).",
            ]
          : data.map((entry) => `${describeEntry(entry)}  (added ${entry.created_at})`),
      );
    });

  cta
    .command("remove")
    .description(
      "remove a whitelisted URL prefix or callback number (written in any form that reads the same)",
    )
    .requiredOption("--account <id>", "account id (acct_…)")
    .option("--url <prefix>", "the URL prefix")
    .option("--number <e164>", "the callback number")
    .action(async (opts: EntryOptions) => {
      const [kind, value] = entryOf("cta remove", opts);
      const removed = await withContext((ctx) => removeCtaEntry(ctx, opts.account, kind, value, CLI_ORIGIN));
      print(output(), { ...removed, removed: true }, [`Removed ${describeEntry(removed)}.`]);
    });
}

/** The one entry given: exactly one of --url and --number. */
function entryOf(command: string, opts: EntryOptions): [CtaKind, string] {
  if (opts.url !== undefined && opts.number !== undefined) {
    throw new ConfigError(`${command}: give --url or --number, not both.`);
  }
  if (opts.url !== undefined) return ["url", opts.url];
  if (opts.number !== undefined) return ["number", opts.number];
  throw new ConfigError(`${command}: give --url <prefix> or --number <e164>.`);
}

function describeEntry(entry: Pick<CtaEntryView, "kind" | "value">): string {
  return entry.kind === "url" ? `URL prefix ${entry.value}` : `number ${entry.value}`;
}
