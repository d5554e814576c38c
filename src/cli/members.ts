import { type Command, Option } from "commander";
import { CLI_ORIGIN } from "../audit/types.js";
import { loadConfig } from "../config.js";
import type { AppContext } from "../context.js";
import {
  changeRole,
  findMember,
  type IssuedLink,
  inviteMember,
  issuePasswordReset,
  linkUrl,
  listMembers,
  type Member,
  removeMember,
} from "../members/members.js";
import { ROLES, type Role } from "../members/roles.js";
import { resetTwoFactor } from "../two-factor/two-factor.js";
import { commandGroup, type OutputOptions, print, withContext } from "./run.js";

/** The operator acts for the account as an owner would: the CLI is the way back in when no owner can sign in. */
const OPERATOR: Role = "owner";

function roleOption(): Option {
  return new Option("--role <role>", ROLES.join(", ")).choices(ROLES).makeOptionMandatory();
}

/** The console's address for a link: PUBLIC_URL, or where `dakiya serve` listens with this configuration. */
function linkOf(ctx: AppContext, link: IssuedLink): string {
  const { host, port } = loadConfig();
  return linkUrl(ctx.publicUrl ?? `http://${host.includes(":") ? `[${host}]` : host}:${port}`, link.token);
}

export function memberCommands(program: Command, output: () => OutputOptions): void {
  const members = commandGroup(program, "members", "manage the people who sign in to an account's console");

  members
    .command("add")
    .description("invite a member: prints a one-time link, valid 7 days, where they set their password")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--email <email>", "the member's email")
    .addOption(roleOption())
    .action(async (opts: { account: string; email: string; role: Role }) => {
      const { member, url, expires } = await withContext(async (ctx) => {
        const link = await inviteMember(
          ctx,
          {
            accountId: opts.account,
            email: opts.email,
            role: opts.role,
            by: OPERATOR,
          },
          CLI_ORIGIN,
        );
        return { member: link.member, url: linkOf(ctx, link), expires: link.expires_at };
      });
      print(output(), { ...member, invite_url: url, invite_expires_at: expires }, [
        `Invited ${member.email} as ${member.role} (${member.id}).`,
        `Send them this link (shown once, valid until ${expires}): ${url}`,
      ]);
    });

  members
    .command("list")
    .description("list an account's members, oldest first")
    .requiredOption("--account <id>", "account id (acct_…)")
    .action(async (opts: { account: string }) => {
      const data = await withContext((ctx) => listMembers(ctx.db, opts.account));
      print(output(), { data }, data.length === 0 ? ["No members."] : data.map(describeMember));
    });

  members
    .command("role")
    .description("give a member another role (an account keeps at least one owner)")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--email <email>", "the member's email")
    .addOption(roleOption())
    .action(async (opts: { account: string; email: string; role: Role }) => {
      const member = await withContext(async (ctx) => {
        const found = await findMember(ctx.db, opts.account, { email: opts.email });
        return changeRole(
          ctx,
          {
            accountId: opts.account,
            memberId: found.id,
            role: opts.role,
            by: OPERATOR,
          },
          CLI_ORIGIN,
        );
      });
      print(output(), member, [`${member.email} is now ${member.role}.`]);
    });

  members
    .command("remove")
    .description("remove a member; their console sessions end at once (the last owner stays)")
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--email <email>", "the member's email")
    .action(async (opts: { account: string; email: string }) => {
      const member = await withContext(async (ctx) => {
        const found = await findMember(ctx.db, opts.account, { email: opts.email });
        return removeMember(ctx, { accountId: opts.account, memberId: found.id, by: OPERATOR }, CLI_ORIGIN);
      });
      print(output(), { id: member.id, email: member.email, removed: true }, [`Removed ${member.email}.`]);
    });

  members
    .command("reset-password")
    .description(
      "end a member's password and sessions and print a one-time link, valid 24 hours, where they set a new one",
    )
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--email <email>", "the member's email")
    .action(async (opts: { account: string; email: string }) => {
      const { member, url, expires } = await withContext(async (ctx) => {
        const link = await issuePasswordReset(
          ctx,
          { accountId: opts.account, email: opts.email },
          CLI_ORIGIN,
        );
        return { member: link.member, url: linkOf(ctx, link), expires: link.expires_at };
      });
      print(output(), { id: member.id, email: member.email, reset_url: url, reset_expires_at: expires }, [
        `${member.email}'s password no longer works and their sessions have ended.`,
        `Send them this link (shown once, valid until ${expires}): ${url}`,
      ]);
    });

  members
    .command("reset-2fa")
    .description(
      "turn off a member's two-factor sign-in and recovery codes and end their sessions, for a lost authenticator app",
    )
    .requiredOption("--account <id>", "account id (acct_…)")
    .requiredOption("--email <email>", "the member's email")
    .action(async (opts: { account: string; email: string }) => {
      const member = await withContext((ctx) =>
        resetTwoFactor(ctx, { accountId: opts.account, email: opts.email }, CLI_ORIGIN),
      );
      print(output(), { id: member.id, email: member.email, two_factor: false }, [
        `${member.email}'s two-factor sign-in and recovery codes are gone and their sessions have ended.`,
        "They sign in with their password; if the account requires two-factor sign-in they set it up again first.",
      ]);
    });
}

function describeMember(member: Member): string {
  const signIn = member.last_sign_in_at ? `last signed in ${member.last_sign_in_at}` : "never signed in";
  return `${member.id} ${member.email} ${member.role} ${member.status}, ${signIn}`;
}
