import { describe, expect, it } from "vitest";
import { DIALECTS } from "../helpers/database.js";
import { nextNumber, useOtpHarness } from "../helpers/otp.js";

/* Send limits: per OTP, per number per hour, per account per hour. */

describe.each(DIALECTS)("OTP send limits on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const { clock, openOther, account, send, sendOk, verifyOk, sentOtp, ledgerOf, stateOf } = harness;

  describe("limits", () => {
    it("sends one OTP at most 5 times, then 429 rate_limited", async () => {
      const { accountId, secret } = await account();
      const first = await sentOtp(secret);
      for (let sends = 2; sends <= 5; sends++) {
        clock.advance(30);
        expect((await sendOk(secret, { to: first.to })).sends).toBe(sends);
      }
      clock.advance(30);
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: first.to });
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe("rate_limited");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(await stateOf(accountId)).toEqual(before);
      // The code still works.
      expect((await verifyOk(secret, first.to, first.code)).reason).toBe("approved");
    });

    it("sends at most 10 OTPs an hour to one number, then 429 rate_limited until the hour has passed", async () => {
      const { accountId, secret } = await account({ otpSettings: { resend_cooldown_seconds: 0 } });
      const to = nextNumber();
      clock.advance((60_000 - (clock.now().getTime() % 60_000)) / 1000); // to the start of a minute
      const firstAt = clock.now().getTime();
      for (let i = 0; i < 10; i++) {
        // Five sends of one OTP, then a new OTP with the caller's code; the first six in one minute.
        const body = i === 5 ? { to, code: "55555555" } : { to };
        expect((await send(secret, body)).statusCode, `send ${i + 1}`).toBe(200);
        clock.advance(10);
      }
      const before = await stateOf(accountId);
      const refused = await send(secret, { to, code: "66666666" });
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe("rate_limited");
      expect(refused.headers["retry-after"]).toBeDefined();
      expect(await stateOf(accountId)).toEqual(before);
      // Another number of the same account is not held back.
      expect((await send(secret, { to: nextNumber() })).statusCode).toBe(200);

      // Sends are counted per minute: the first minute's six leave the hour 61 minutes after it began.
      clock.advance((firstAt + 3599_000 - clock.now().getTime()) / 1000);
      expect((await send(secret, { to, code: "77777777" })).statusCode).toBe(429);
      clock.advance(61);
      for (const code of ["1111111", "2222222", "3333333", "4444444", "5555555", "6666666"]) {
        expect((await send(secret, { to, code })).statusCode).toBe(200);
      }
      expect((await send(secret, { to, code: "88888888" })).statusCode).toBe(429);
      clock.advance(3600);
      expect((await send(secret, { to, code: "99999999" })).statusCode).toBe(200);
    });

    it("honours the operator's OTP_MAX_SENDS_PER_OTP and OTP_MAX_SENDS_PER_NUMBER_PER_HOUR", async () => {
      const limited = await openOther({
        env: { OTP_MAX_SENDS_PER_OTP: "2", OTP_MAX_SENDS_PER_NUMBER_PER_HOUR: "3" },
      });
      const { secret } = await account();
      const to = nextNumber();
      expect((await send(secret, { to }, { target: limited.app })).statusCode).toBe(200);
      clock.advance(30);
      expect((await send(secret, { to }, { target: limited.app })).statusCode).toBe(200);
      clock.advance(30);
      const perOtp = await send(secret, { to }, { target: limited.app });
      expect(perOtp.statusCode, perOtp.body).toBe(429);
      expect(perOtp.json().error.code).toBe("rate_limited");
      expect((await send(secret, { to, code: "1234" }, { target: limited.app })).statusCode).toBe(200);
      clock.advance(30);
      const perNumber = await send(secret, { to, code: "5678" }, { target: limited.app });
      expect(perNumber.statusCode, perNumber.body).toBe(429);
      expect(perNumber.json().error.code).toBe("rate_limited");
      expect(perNumber.headers["retry-after"]).toBeDefined();
      clock.advance(3600);
      expect((await send(secret, { to, code: "5678" }, { target: limited.app })).statusCode).toBe(200);
    });

    it("caps an account's OTP sends per hour across numbers (OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR)", async () => {
      const capped = await openOther({ env: { OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "3" } });
      const { accountId, secret } = await account();
      const neighbour = await account();
      for (let i = 0; i < 3; i++) {
        expect((await send(secret, { to: nextNumber() }, { target: capped.app })).statusCode).toBe(200);
      }
      const before = await stateOf(accountId);
      const refused = await send(secret, { to: nextNumber(), channel: "voice" }, { target: capped.app });
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().error.code).toBe("rate_limited");
      expect(refused.headers["retry-after"]).toBeDefined();
      expect(await stateOf(accountId)).toEqual(before);
      // Another account has its own cap.
      expect((await send(neighbour.secret, { to: nextNumber() }, { target: capped.app })).statusCode).toBe(
        200,
      );
      // Sends are counted per minute, so one leaves the hour 60 to 61 minutes after it was made.
      clock.advance(3599);
      expect((await send(secret, { to: nextNumber() }, { target: capped.app })).statusCode).toBe(429);
      clock.advance(61);
      expect((await send(secret, { to: nextNumber() }, { target: capped.app })).statusCode).toBe(200);
    });

    it("concurrent sends cannot pass the per-account cap", async () => {
      const env = { OTP_MAX_SENDS_PER_ACCOUNT_PER_HOUR: "3" };
      const targets =
        dialect === "postgres"
          ? [(await openOther({ env })).app, (await openOther({ env })).app]
          : [(await openOther({ env })).app];
      const { accountId, secret } = await account();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          send(secret, { to: nextNumber() }, { target: targets[i % targets.length] }),
        ),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(3);
      for (const refused of results.filter((r) => r.statusCode !== 200)) {
        expect(refused.json().error.code).toBe("rate_limited");
      }
      expect(await ledgerOf(accountId)).toHaveLength(3);
    });
  });
});
