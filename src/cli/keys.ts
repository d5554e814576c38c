import { type Command, InvalidArgumentError, Option } from "commander";
import { CLI_ORIGIN } from "../audit/types.js";
import type { Environment, KeyScope } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { canonicalCidr, MAX_ALLOWED_IPS } from "../keys/allowed-ips.js";
import {
  type ApiKey,
  type CreatedApiKey,
  createKey,
  deleteKey,
  listKeys,
  rotateKey,
  setKeyRateLimit,
} from "../keys/keys.js";
import { KEY_SCOPES } from "../keys/scopes.js";
import { environmentOption } from "./accounts.js";
import { commandGroup, type OutputOptions, parseNonNegativeInteger, print, withContext } from "./run.js";

const SECRET_WARNING = "Copy the secret now: it is shown only this once.";
const RATE_LIMIT_HELP =
  'requests a minute for this key, or "default" for the server\'s (RATE_LIMIT_PER_MINUTE)';

export function keyCommands(program: Command, output: () => OutputOptions): void {
  const keys = commandGroup(program, "keys", "manage API keys");

  keys
    .command("create")
    .description("create an API key; its secret is shown once")
    .requiredOption("--account <id>", "account id (acct_…)")
    .addOption(environmentOption())
    .option("--label <label>", "a name to tell keys apart")
    .option("--rate-limit <n>", RATE_LIMIT_HELP, parseRateLimit)
    .addOption(
      new Option(
        "--scope <scope>",
        "what the key may call: full, send (sends and OTP verify only) or read (GETs only)",
      )
        .choices(KEY_SCOPES)
        .default("full"),
    )
    .option(
      "--allow-ip <cidr>",
      `an address or CIDR the key may be used from (repeatable, up to ${MAX_ALLOWED_IPS}); any address without it`,
      collectCidr,
    )
    .action(
      async (opts: {
        account: string;
        environment: Environment;
        label?: string;
        rateLimit?: number | "default";
        scope: KeyScope;
        allowIp?: string[];
      }) => {
        const key = await withContext((ctx) =>
          createKey(
            ctx,
            {
              accountId: opts.account,
              environment: opts.environment,
              label: opts.label ?? null,
              rateLimit: ownRate(opts.rateLimit),
              scope: opts.scope,
              allowedIps: opts.allowIp ?? null,
            },
            CLI_ORIGIN,
          ),
        );
        print(output(), key, [`Created ${describe(key)}`, `Secret: ${key.secret}`, SECRET_WARNING]);
      },
    );

  keys
    .command("update")
    .description("change an API key's request rate limit")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--key <id>", "key id (key_…)")
    .requiredOption("--rate-limit <n>", RATE_LIMIT_HELP, parseRateLimit)
    .action(async (opts: { account: string; key: string; rateLimit: number | "default" }) => {
      const key = await withContext((ctx) =>
        setKeyRateLimit(
          ctx,
          {
            accountId: opts.account,
            keyId: opts.key,
            rateLimit: ownRate(opts.rateLimit),
          },
          CLI_ORIGIN,
        ),
      );
      print(output(), key, [`Updated ${describe(key)}`]);
    });

  keys
    .command("list")
    .description("list an account's API keys (never their secrets)")
    .requiredOption("--account <id>", "account id (acct_…)")
    .action(async (opts: { account: string }) => {
      const data = await withContext((ctx) => listKeys(ctx, opts.account));
      print(output(), { data }, data.length === 0 ? ["No API keys."] : data.map(describe));
    });

  keys
    .command("delete")
    .description("delete an API key; it stops working at once")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--key <id>", "key id (key_…)")
    .action(async (opts: { account: string; key: string }) => {
      await withContext((ctx) => deleteKey(ctx, opts.account, opts.key, CLI_ORIGIN));
      print(output(), { id: opts.key, deleted: true }, [`Deleted ${opts.key}.`]);
    });

  keys
    .command("rotate")
    .description("replace an API key with a new one of the same environment and label")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--key <id>", "key id (key_…)")
    .option(
      "--grace-seconds <n>",
      "how long the old key keeps working: 0, 3600, 86400 or 604800",
      parseNonNegativeInteger,
      0,
    )
    .action(async (opts: { account: string; key: string; graceSeconds: number }) => {
      const { key, rotated } = await withContext((ctx) =>
        rotateKey(
          ctx,
          { accountId: opts.account, keyId: opts.key, graceSeconds: opts.graceSeconds },
          CLI_ORIGIN,
        ),
      );
      const oldKeyFate = rotated?.expires_at
        ? `${opts.key} keeps working until ${rotated.expires_at}.`
        : `${opts.key} is deleted.`;
      print(output(), { ...key, replaced_key: { id: opts.key, expires_at: rotated?.expires_at ?? null } }, [
        `Created ${describe(key)}`,
        `Secret: ${key.secret}`,
        SECRET_WARNING,
        oldKeyFate,
      ]);
    });
}

function describe(key: ApiKey | CreatedApiKey): string {
  const label = key.label ? ` "${key.label}"` : "";
  const used = key.last_used_at ? `last used ${key.last_used_at}` : "never used";
  const expiry = key.expires_at ? `, expires ${key.expires_at}` : "";
  const rate = key.rate_limit === null ? "" : `, ${key.rate_limit} requests a minute`;
  const from = key.allowed_ips === null ? "any address" : key.allowed_ips.join(" ");
  return `${key.id} ${key.environment}${label} ${key.prefix}…${key.last_four ?? ""} scope ${key.scope} from ${from}, created ${key.created_at}, ${used}${expiry}${rate}`;
}

/** `--allow-ip`, repeated: each checked as it is read, so a mistake is reported before anything is made. */
function collectCidr(value: string, previous: string[] | undefined): string[] {
  try {
    return [...(previous ?? []), canonicalCidr(value)];
  } catch (error) {
    if (error instanceof ApiError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

function ownRate(option: number | "default" | undefined): number | null {
  return option === undefined || option === "default" ? null : option;
}

/**
 * A per-key rate: a whole number of requests a minute, or `default` to drop the key's own
 * (kept as the word: commander turns a parser's `null` into an empty string).
 */
function parseRateLimit(value: string): number | "default" {
  if (value === "default") return value;
  if (!/^\d{1,9}$/.test(value)) {
    throw new InvalidArgumentError('must be a whole number of requests a minute, or "default".');
  }
  return Number(value);
}
