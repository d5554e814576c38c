import { sql } from "kysely";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { createKey } from "../../src/keys/keys.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { OTP_TEMPLATE_ID } from "../helpers/dlt-fixtures.js";
import { bearer } from "../helpers/fixtures.js";
import { HUNDRED_RUPEES, nextNumber, recordingCarrier, useOtpHarness, wrong } from "../helpers/otp.js";

/* Verifying a code: approval, attempts, expiry, isolation between environments and accounts, concurrency. */

describe.each(DIALECTS)("OTP verify on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const {
    clock,
    openOther,
    account,
    sendOk,
    verify,
    verifyOk,
    getOtp,
    otpDetails,
    inboxOf,
    sentOtp,
    ledgerOf,
  } = harness;
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = harness);
  });

  describe("verify", () => {
    it.runIf(dialect === "postgres")(
      "approves a right code whose one-round-trip approval PostgreSQL aborts for a deadlock, once",
      async () => {
        const { secret } = await account();
        const { otp, to, code } = await sentOtp(secret);
        // The first approval of this OTP is aborted as PostgreSQL aborts a deadlock's victim. A
        // sequence counts the approvals, as its values survive the abort's rollback.
        await sql.raw(`create sequence approvals_seen`).execute(ctx.db);
        await sql
          .raw(
            `create function abort_first_approval() returns trigger language plpgsql as $$
            begin
              if new.id = '${otp.id}' and new.status = 'approved' and nextval('approvals_seen') = 1 then
                raise exception 'deadlock detected' using errcode = '40P01';
              end if;
              return new;
            end $$`,
          )
          .execute(ctx.db);
        await sql
          .raw(`create trigger abort_first_approval before update on otps
            for each row execute function abort_first_approval()`)
          .execute(ctx.db);
        const conflicts = vi.spyOn(ctx.metrics, "transactionConflict");
        try {
          expect(await verifyOk(secret, to, code)).toEqual({
            verified: true,
            reason: "approved",
            attempts_remaining: 4,
          });
          const { rows } = await sql<{ last_value: string }>`select last_value from approvals_seen`.execute(
            ctx.db,
          );
          expect(Number(rows[0]?.last_value)).toBe(2);
          expect(conflicts).toHaveBeenCalledWith("deadlock", "retried");
        } finally {
          conflicts.mockRestore();
          await sql.raw(`drop trigger abort_first_approval on otps`).execute(ctx.db);
          await sql.raw(`drop function abort_first_approval`).execute(ctx.db);
          await sql.raw(`drop sequence approvals_seen`).execute(ctx.db);
        }
        expect(await otpDetails(secret, otp.id)).toMatchObject({ status: "approved", attempts_remaining: 4 });
        const verified = await ctx.db
          .selectFrom("events")
          .select("id")
          .where("type", "=", "otp.verified")
          .where("data", "like", `%${otp.id}%`)
          .execute();
        expect(verified).toHaveLength(1);
      },
    );

    it("approves the right code once, then says already_verified", async () => {
      const { secret } = await account();
      const { otp, to, code } = await sentOtp(secret);
      expect(await verifyOk(secret, to, code)).toEqual({
        verified: true,
        reason: "approved",
        attempts_remaining: 4,
      });
      expect(await verifyOk(secret, to, code)).toEqual({
        verified: false,
        reason: "already_verified",
        attempts_remaining: 4,
      });
      expect((await verifyOk(secret, to, wrong(code))).reason).toBe("already_verified");
      expect(await otpDetails(secret, otp.id)).toMatchObject({ status: "approved", attempts_remaining: 4 });
    });

    it("counts wrong codes down and locks the OTP after max_attempts, even against the right code", async () => {
      const { secret } = await account();
      const { otp, to, code } = await sentOtp(secret);
      for (const remaining of [4, 3, 2, 1, 0]) {
        expect(await verifyOk(secret, to, wrong(code))).toEqual({
          verified: false,
          reason: "incorrect_code",
          attempts_remaining: remaining,
        });
      }
      expect(await verifyOk(secret, to, code)).toEqual({
        verified: false,
        reason: "max_attempts_reached",
        attempts_remaining: 0,
      });
      expect(await otpDetails(secret, otp.id)).toMatchObject({ status: "locked", attempts_remaining: 0 });
    });

    it("approves the right code on the last attempt", async () => {
      const { secret } = await account({ otpSettings: { max_attempts: 3 } });
      const { otp, to, code } = await sentOtp(secret);
      expect(otp.attempts_remaining).toBe(3);
      expect((await verifyOk(secret, to, wrong(code))).attempts_remaining).toBe(2);
      expect((await verifyOk(secret, to, wrong(code))).attempts_remaining).toBe(1);
      expect(await verifyOk(secret, to, code)).toEqual({
        verified: true,
        reason: "approved",
        attempts_remaining: 0,
      });
    });

    it("a code works until expires_at and is expired from then on", async () => {
      const { secret } = await account();
      const early = await sentOtp(secret);
      const late = await sentOtp(secret);
      clock.advance(599);
      expect((await verifyOk(secret, early.to, early.code)).reason).toBe("approved");
      expect(await otpDetails(secret, late.otp.id)).toMatchObject({ status: "pending" });
      clock.advance(1);
      expect(clock.now().toISOString()).toBe(late.otp.expires_at);
      expect(await verifyOk(secret, late.to, late.code)).toEqual({
        verified: false,
        reason: "expired",
        attempts_remaining: 5,
      });
      expect((await verifyOk(secret, late.to, wrong(late.code))).reason).toBe("expired");
      expect(await otpDetails(secret, late.otp.id)).toMatchObject({
        status: "expired",
        attempts_remaining: 5,
      });
    });

    it("not_found for a number that was never sent an OTP", async () => {
      const { secret } = await account();
      expect(await verifyOk(secret, nextNumber(), "123456")).toEqual({
        verified: false,
        reason: "not_found",
        attempts_remaining: 0,
      });
    });

    it.each([
      ["3 digits", "123"],
      ["11 digits", "12345678901"],
      ["letters", "12ab56"],
      ["a number, not a string", 123456],
      ["an empty string", ""],
      ["spaces", "123 456"],
    ])("refuses a code of %s with 400 and uses no attempt", async (_name, code) => {
      const { secret } = await account();
      const { otp, to } = await sentOtp(secret);
      const response = await verify(secret, to, code);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({ code: "invalid_request", param: "code" });
      expect((await otpDetails(secret, otp.id)).attempts_remaining).toBe(5);
    });

    it("refuses a malformed verify request with 400", async () => {
      const { secret } = await account();
      for (const [payload, param] of [
        [{ to: "98765", code: "123456" }, "to"],
        [{ code: "123456" }, "to"],
        [{ to: "+919876543210" }, "code"],
        [{ to: "+919876543210", code: "123456", extra: 1 }, "extra"],
      ] as const) {
        const response = await app.inject({
          method: "POST",
          url: "/v2/otp/verify",
          payload: JSON.stringify(payload),
          headers: { "content-type": "application/json", ...bearer(secret) },
        });
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json().error).toMatchObject({ code: "invalid_request", param });
      }
    });

    it("live and sandbox, and other accounts, never see each other's OTPs", async () => {
      const { carrier, sent } = recordingCarrier("test-smsc");
      const live = await openOther({ liveCarriers: { sms: carrier } });
      const { accountId, secret } = await account();
      const liveKey = await createKey(ctx, { accountId, environment: "live" }, CLI_ORIGIN);
      await updateOtpSettings(
        ctx,
        accountId,
        "live",
        {
          sms_template_id: OTP_TEMPLATE_ID,
          sms_sender: "DAKIYA",
        },
        CLI_ORIGIN,
      );
      await ctx.db
        .updateTable("balances")
        .set({ balance: HUNDRED_RUPEES })
        .where("account_id", "=", accountId)
        .where("environment", "=", "live")
        .execute();
      const stranger = await account();

      const sandboxOtp = await sentOtp(secret);
      // Nothing live was sent to this number: live sees nothing of it.
      expect(await verifyOk(liveKey.secret, sandboxOtp.to, sandboxOtp.code, live.app)).toEqual({
        verified: false,
        reason: "not_found",
        attempts_remaining: 0,
      });
      expect((await getOtp(liveKey.secret, sandboxOtp.otp.id, live.app)).statusCode).toBe(404);
      expect((await verifyOk(stranger.secret, sandboxOtp.to, sandboxOtp.code)).reason).toBe("not_found");
      const strangers = await getOtp(stranger.secret, sandboxOtp.otp.id);
      expect(strangers.statusCode).toBe(404);
      expect(strangers.json().error.code).toBe("not_found");
      expect((await getOtp(secret, "otp_doesnotexist00000000000")).statusCode).toBe(404);

      // A live OTP to the same number: its code goes to the live carrier, and each key sees only its own.
      const liveOtp = await sendOk(liveKey.secret, { to: sandboxOtp.to }, live.app);
      expect(liveOtp.environment).toBe("live");
      expect(liveOtp.id).not.toBe(sandboxOtp.otp.id);
      await drainQueue(live.ctx);
      expect(sent).toHaveLength(1);
      const liveCode = sent[0]?.otp?.code as string;
      expect(sent[0]?.text).toBe(`${liveCode} is your Dakiya code. Do not share it.`);
      expect(await inboxOf(secret, sandboxOtp.to)).toHaveLength(1);
      expect((await getOtp(secret, liveOtp.id)).statusCode).toBe(404);
      expect((await ledgerOf(accountId, "live")).map((e) => e.reference)).toEqual([liveOtp.message_id]);
      expect((await ledgerOf(accountId, "sandbox")).map((e) => e.reference)).toEqual([
        sandboxOtp.otp.message_id,
      ]);
      expect((await verifyOk(secret, sandboxOtp.to, sandboxOtp.code)).reason).toBe("approved");
      expect((await verifyOk(liveKey.secret, sandboxOtp.to, liveCode, live.app)).reason).toBe("approved");
    });

    it("50 concurrent wrong guesses: exactly max_attempts are compared, the rest are refused", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { secret } = await account();
      const { otp, to, code } = await sentOtp(secret);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => verifyOk(secret, to, wrong(code), targets[i % targets.length])),
      );
      const incorrect = results.filter((r) => r.reason === "incorrect_code");
      expect(incorrect.map((r) => r.attempts_remaining).sort()).toEqual([0, 1, 2, 3, 4]);
      expect(results.filter((r) => r.reason === "max_attempts_reached")).toHaveLength(45);
      expect(results.every((r) => !r.verified)).toBe(true);
      expect(await otpDetails(secret, otp.id)).toMatchObject({ status: "locked", attempts_remaining: 0 });
      expect((await verifyOk(secret, to, code)).reason).toBe("max_attempts_reached");
    });

    it("a right code among concurrent wrong ones: only counted attempts compare, each once, and a lock stands", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { secret } = await account();
      for (const rightAt of [0, 3, 7, 19]) {
        const { otp, to, code } = await sentOtp(secret);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            verifyOk(secret, to, i === rightAt ? code : wrong(code), targets[i % targets.length]),
          ),
        );
        const compared = results.filter((r) => r.reason === "incorrect_code" || r.reason === "approved");
        expect(compared.length, JSON.stringify(results)).toBeLessThanOrEqual(5);
        expect(results.filter((r) => r.verified)).toHaveLength(results[rightAt]?.verified ? 1 : 0);
        expect(["approved", "max_attempts_reached"]).toContain(results[rightAt]?.reason);
        const uncounted = results.filter((r) => !compared.includes(r));
        for (const r of uncounted) expect(["already_verified", "max_attempts_reached"]).toContain(r.reason);
        const remaining = compared.map((r) => r.attempts_remaining);
        expect(new Set(remaining).size, JSON.stringify(results)).toBe(remaining.length);
        // Every comparison answered was a counted attempt. On PostgreSQL a right code counted on its
        // own may see the OTP locked by the wrong ones before its approval: it is then answered
        // max_attempts_reached, and its attempt was counted all the same.
        const details = await otpDetails(secret, otp.id);
        expect(details.attempts_remaining).toBeLessThanOrEqual(5 - compared.length);
        expect(details.status).toBe(results[rightAt]?.verified ? "approved" : "locked");
      }
    });

    it("20 concurrent right guesses: exactly one is approved", async () => {
      const targets = dialect === "postgres" ? [app, (await openOther()).app] : [app];
      const { secret } = await account();
      for (let round = 0; round < 5; round++) {
        const { otp, to, code } = await sentOtp(secret);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => verifyOk(secret, to, code, targets[i % targets.length])),
        );
        const approved = results.filter((r) => r.reason === "approved");
        expect(approved, JSON.stringify(results)).toHaveLength(1);
        expect(approved[0]?.verified).toBe(true);
        for (const other of results.filter((r) => r.reason !== "approved")) {
          expect(other.verified).toBe(false);
          expect(["already_verified", "max_attempts_reached"]).toContain(other.reason);
        }
        expect((await otpDetails(secret, otp.id)).status).toBe("approved");
      }
    });
  });
});
