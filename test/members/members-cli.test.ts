import { describe, expect, it } from "vitest";
import { redeemLink } from "../../src/members/members.js";
import { cliAccount, json, oneLineError } from "../helpers/cli.js";

const SLOW = 60_000;
const NEW_PASSWORD = "a fresh long passphrase";

interface CliMember {
  id: string;
  email: string;
  role: string;
  status: string;
}

const cli = cliAccount();
const { dakiya } = cli;

describe("dakiya members commands", () => {
  it(
    "invites with a one-time link, lists, changes roles, resets a password and removes, keeping the last owner",
    async () => {
      const invited = json<CliMember & { invite_url: string }>(
        await dakiya(
          "--json",
          "members",
          "add",
          "--account",
          cli.accountId,
          "--email",
          "Ops@Example.com",
          "--role",
          "admin",
        ),
      );
      expect(invited).toMatchObject({ email: "ops@example.com", role: "admin", status: "invited" });
      expect(invited.invite_url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/invite\/[0-9A-Za-z]{43}$/);
      const token = invited.invite_url.split("/").pop() as string;
      await cli.withContext((ctx) => redeemLink(ctx, { token, password: NEW_PASSWORD, clientAddress: null }));

      const listed = json<{ data: CliMember[] }>(
        await dakiya("--json", "members", "list", "--account", cli.accountId),
      );
      expect(listed.data.map((m) => [m.role, m.status])).toEqual([
        ["owner", "active"],
        ["admin", "active"],
      ]);
      const text = await dakiya("members", "list", "--account", cli.accountId);
      // Setting the password through the link is not a sign-in: the console signs them in after it.
      expect(text.stdout).toContain("ops@example.com admin active, never signed in");

      const role = json<CliMember>(
        await dakiya(
          "--json",
          "members",
          "role",
          "--account",
          cli.accountId,
          "--email",
          "ops@example.com",
          "--role",
          "viewer",
        ),
      );
      expect(role.role).toBe("viewer");

      const owner = listed.data[0] as CliMember;
      const lastOwner = await dakiya(
        "members",
        "role",
        "--account",
        cli.accountId,
        "--email",
        owner.email,
        "--role",
        "admin",
      );
      expect(oneLineError(lastOwner)).toMatch(/at least one owner/);
      const removeOwner = await dakiya(
        "members",
        "remove",
        "--account",
        cli.accountId,
        "--email",
        owner.email,
      );
      expect(oneLineError(removeOwner)).toMatch(/at least one owner/);

      const reset = await dakiya(
        "members",
        "reset-password",
        "--account",
        cli.accountId,
        "--email",
        "ops@example.com",
      );
      expect(reset.code).toBe(0);
      expect(reset.stdout).toMatch(/password no longer works/);
      const resetToken = /\/invite\/([0-9A-Za-z]{43})/.exec(reset.stdout)?.[1] as string;
      const after = await cli.withContext((ctx) =>
        redeemLink(ctx, { token: resetToken, password: NEW_PASSWORD, clientAddress: null }),
      );
      expect(after).toMatchObject({ email: "ops@example.com", role: "viewer" });

      const removed = json<{ removed: boolean }>(
        await dakiya("--json", "members", "remove", "--account", cli.accountId, "--email", "ops@example.com"),
      );
      expect(removed.removed).toBe(true);
      const unknown = await dakiya(
        "members",
        "remove",
        "--account",
        cli.accountId,
        "--email",
        "ops@example.com",
      );
      expect(oneLineError(unknown)).toMatch(/No member ops@example.com/);
      const badRole = await dakiya(
        "members",
        "add",
        "--account",
        cli.accountId,
        "--email",
        "x@example.com",
        "--role",
        "root",
      );
      expect(oneLineError(badRole)).toMatch(/owner, admin, developer, finance, viewer/);
    },
    SLOW,
  );
});
