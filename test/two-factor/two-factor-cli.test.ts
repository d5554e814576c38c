import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { findSession, openSession } from "../../src/dashboard/sessions.js";
import { findMember } from "../../src/members/members.js";
import { enableTwoFactor, hasTwoFactor, startEnrolment } from "../../src/two-factor/two-factor.js";
import { cliAccount, json, oneLineError } from "../helpers/cli.js";

const SLOW = 60_000;

const cli = cliAccount();
const { dakiya } = cli;

describe("dakiya members reset-2fa", () => {
  it(
    "clears a member's second factor and recovery codes and ends their sessions",
    async () => {
      const { email, memberId, sessionToken } = await cli.withContext(async (ctx) => {
        const [owner] = await ctx.db
          .selectFrom("members")
          .selectAll()
          .where("account_id", "=", cli.accountId)
          .execute();
        if (!owner) throw new Error("the account has no owner");
        const identity = {
          memberId: owner.id,
          accountId: owner.account_id,
          email: owner.email,
          role: owner.role,
        };
        const { secret } = await startEnrolment(ctx, identity);
        await enableTwoFactor(
          ctx,
          identity,
          await generate({ secret, epoch: Math.floor(ctx.clock.now().getTime() / 1000) }),
          CLI_ORIGIN,
        );
        const { token } = await openSession(ctx, identity, "127.0.0.1");
        return { email: owner.email, memberId: owner.id, sessionToken: token };
      });

      const reset = json<{ id: string; email: string; two_factor: boolean }>(
        await dakiya(
          "--json",
          "members",
          "reset-2fa",
          "--account",
          cli.accountId,
          "--email",
          email.toUpperCase(),
        ),
      );
      expect(reset).toEqual({ id: memberId, email, two_factor: false });

      await cli.withContext(async (ctx) => {
        expect(await hasTwoFactor(ctx.db, memberId)).toBe(false);
        const row = await ctx.db
          .selectFrom("members")
          .selectAll()
          .where("id", "=", memberId)
          .executeTakeFirstOrThrow();
        expect(row).toMatchObject({
          two_factor_secret_sealed: null,
          two_factor_pending_secret_sealed: null,
          two_factor_enabled_at: null,
        });
        const codes = await ctx.db
          .selectFrom("two_factor_recovery_codes")
          .selectAll()
          .where("member_id", "=", memberId)
          .execute();
        expect(codes).toEqual([]);
        expect(await findSession(ctx, sessionToken)).toBeUndefined();
        await findMember(ctx.db, cli.accountId, { id: memberId });
      });

      const text = await dakiya("members", "reset-2fa", "--account", cli.accountId, "--email", email);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(
        "two-factor sign-in and recovery codes are gone and their sessions have ended",
      );
      expect(
        oneLineError(
          await dakiya("members", "reset-2fa", "--account", cli.accountId, "--email", "nobody@example.com"),
        ),
      ).toMatch(/No member nobody@example.com/);
    },
    SLOW,
  );
});
