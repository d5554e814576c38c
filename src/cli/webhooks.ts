import { type Command, Option } from "commander";
import { requireAccountExists } from "../accounts/accounts.js";
import { CLI_ORIGIN } from "../audit/types.js";
import { ENVIRONMENTS, type Environment } from "../db/schema.js";
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  type WebhookEndpoint,
} from "../webhooks/endpoints.js";
import { sendTestEvent } from "../webhooks/replay.js";
import { environmentOption } from "./accounts.js";
import { commandGroup, type OutputOptions, print, withContext } from "./run.js";

export function webhookCommands(program: Command, output: () => OutputOptions): void {
  const webhooks = commandGroup(program, "webhooks", "manage webhook endpoints (where events are posted)");

  webhooks
    .command("add")
    .description("add a webhook endpoint; prints it with its signing secret")
    .requiredOption("--account <id>", "account id (acct_…)")
    .addOption(environmentOption())
    .requiredOption("--url <url>", "where events are posted: http(s)://, https:// in live")
    .option("--events <types>", 'comma-separated event types, or "*" for all', "*")
    .option("--description <text>", "what the endpoint is for")
    .action(
      async (opts: {
        account: string;
        environment: Environment;
        url: string;
        events: string;
        description?: string;
      }) => {
        const endpoint = await withContext(async (ctx) => {
          await requireAccountExists(ctx.db, opts.account);
          return createEndpoint(
            ctx,
            { accountId: opts.account, environment: opts.environment },
            {
              url: opts.url,
              events: opts.events
                .split(",")
                .map((type) => type.trim())
                .filter(Boolean),
              description: opts.description ?? null,
            },
            CLI_ORIGIN,
          );
        });
        print(output(), endpoint, [`Added ${describe(endpoint)}`, `Signing secret: ${endpoint.secret}`]);
      },
    );

  webhooks
    .command("list")
    .description("list an account's webhook endpoints (without their secrets)")
    .requiredOption("--account <id>", "account id (acct_…)")
    .addOption(new Option("--environment <environment>", "only live or only sandbox").choices(ENVIRONMENTS))
    .action(async (opts: { account: string; environment?: Environment }) => {
      const data = await withContext(async (ctx) => {
        await requireAccountExists(ctx.db, opts.account);
        return listEndpoints(ctx, { accountId: opts.account, environment: opts.environment });
      });
      print(output(), { data }, data.length === 0 ? ["No webhook endpoints."] : data.map(describe));
    });

  webhooks
    .command("remove")
    .description("delete a webhook endpoint with its waiting deliveries and attempt log")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--webhook <id>", "endpoint id (whk_…)")
    .action(async (opts: { account: string; webhook: string }) => {
      await withContext((ctx) => deleteEndpoint(ctx, { accountId: opts.account }, opts.webhook, CLI_ORIGIN));
      print(output(), { id: opts.webhook, deleted: true }, [`Removed ${opts.webhook}.`]);
    });

  webhooks
    .command("test")
    .description("queue a webhook.test event for one endpoint; a running worker delivers it")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--webhook <id>", "endpoint id (whk_…)")
    .action(async (opts: { account: string; webhook: string }) => {
      const event = await withContext((ctx) => sendTestEvent(ctx, { accountId: opts.account }, opts.webhook));
      print(output(), event, [
        `Queued ${event.type} ${event.id} for ${opts.webhook}; a running server or worker delivers it.`,
      ]);
    });
}

function describe(endpoint: WebhookEndpoint): string {
  const status = endpoint.status === "enabled" ? "enabled" : `disabled (${endpoint.disabled_reason})`;
  const note = endpoint.description ? ` "${endpoint.description}"` : "";
  return `${endpoint.id} ${endpoint.environment} ${status} ${endpoint.url} [${endpoint.events.join(", ")}]${note}`;
}
