import type { LightMyRequestResponse } from "fastify";
import { generate } from "otplib";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { App } from "../../src/http/types.js";
import type { Clock } from "../../src/lib/clock.js";
import { issuePasswordReset } from "../../src/members/members.js";
import { CHALLENGE_LIFETIME_SECONDS, SECOND_FACTOR_LIMITS } from "../../src/two-factor/challenges.js";
import { resetTwoFactor } from "../../src/two-factor/two-factor.js";
import {
  dashboardRequest,
  type SignedIn,
  sessionCookie,
  signedInAccount,
  signedInMember,
  signIn,
} from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/** The code an authenticator app shows now, by the server's (test) clock. */
function codeAt(clock: Clock, secret: string): Promise<string> {
  return generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) });
}

function errorOf(response: LightMyRequestResponse): [number, string, string | undefined] {
  const { code, param } = response.json().error;
  return [response.statusCode, code, param];
}

describe.each(DIALECTS)("two-factor sign-in on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let app: App;

  beforeAll(() => {
    ({ app } = instances);
  });

  /** Sets up two-factor sign-in for the session's member; answers the secret and the recovery codes. */
  async function enrol(session: SignedIn): Promise<{ secret: string; recoveryCodes: string[] }> {
    const setup = await dashboardRequest(app, session, "POST", "/dashboard/api/two-factor/setup");
    expect(setup.statusCode).toBe(200);
    const { secret } = setup.json<{ secret: string }>();
    const enabled = await dashboardRequest(app, session, "POST", "/dashboard/api/two-factor/enable", {
      code: await codeAt(instances.clock, secret),
    });
    expect(enabled.statusCode, enabled.body).toBe(200);
    return { secret, recoveryCodes: enabled.json().recovery_codes };
  }

  /** The password step: a challenge, and no session cookie. */
  async function passwordStep(email: string): Promise<string> {
    const response = await app.inject({
      method: "POST",
      url: "/dashboard/api/session",
      payload: { email, password: TEST_PASSWORD },
    });
    expect(response.statusCode).toBe(200);
    expect(sessionCookie(response)).toBeUndefined();
    const body = response.json();
    expect(body).toEqual({
      two_factor_required: true,
      challenge: expect.stringMatching(/^[0-9A-Za-z]{43}$/),
    });
    return body.challenge;
  }

  function secondStep(answer: { challenge: string; code?: string; recovery_code?: string }) {
    return app.inject({ method: "POST", url: "/dashboard/api/session/two-factor", payload: answer });
  }

  async function emailOf(session: SignedIn): Promise<string> {
    return (await dashboardRequest(app, session, "GET", "/dashboard/api/session")).json().member.email;
  }

  async function storedTwoFactorData(): Promise<string> {
    const db = instances.ctx.db;
    return JSON.stringify([
      await db.selectFrom("members").selectAll().execute(),
      await db.selectFrom("two_factor_recovery_codes").selectAll().execute(),
      await db.selectFrom("two_factor_challenges").selectAll().execute(),
    ]);
  }

  it("enrols with a code from the secret, keeps the secret sealed, and then asks every sign-in for a code", async () => {
    const owner = await signedInAccount(instances.ctx, app);
    const email = await emailOf(owner);
    const setup = await dashboardRequest(app, owner, "POST", "/dashboard/api/two-factor/setup");
    const { secret, otpauth_url, qr_svg } = setup.json();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/Dakiya:/);
    expect(otpauth_url).toContain(`secret=${secret}`);
    expect(otpauth_url).toContain("issuer=Dakiya");
    expect(qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);

    // Pending until confirmed: sign-in still needs the password only, and a wrong code does not confirm it.
    const wrong = await dashboardRequest(app, owner, "POST", "/dashboard/api/two-factor/enable", {
      code: String((Number(await codeAt(instances.clock, secret)) + 1) % 1_000_000).padStart(6, "0"),
    });
    expect(errorOf(wrong)).toEqual([401, "invalid_credentials", "code"]);
    await signIn(app, email, TEST_PASSWORD);

    const enrolmentCode = await codeAt(instances.clock, secret);
    const enabled = await dashboardRequest(app, owner, "POST", "/dashboard/api/two-factor/enable", {
      code: enrolmentCode,
    });
    expect(enabled.statusCode).toBe(200);
    const codes: string[] = enabled.json().recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);

    const stored = await storedTwoFactorData();
    expect(stored).not.toContain(secret);
    for (const code of codes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replaceAll("-", ""));
    }
    const session = await dashboardRequest(app, owner, "GET", "/dashboard/api/session");
    expect(session.json().member.two_factor).toBe(true);
    expect(session.json().account.require_two_factor).toBe(false);
    expect(session.body).not.toContain(secret);
    const again = await dashboardRequest(app, owner, "POST", "/dashboard/api/two-factor/setup");
    expect(again.statusCode).toBe(400);
    expect(again.body).not.toContain(secret);

    // The code that confirmed the set-up is spent: it does not sign in within its window.
    const challenge = await passwordStep(email);
    expect(errorOf(await secondStep({ challenge, code: enrolmentCode }))).toEqual([
      401,
      "invalid_credentials",
      "code",
    ]);
    instances.clock.advance(30);
    const code = await codeAt(instances.clock, secret);
    const opened = await secondStep({ challenge, code: `${code.slice(0, 3)} ${code.slice(3)}` });
    expect(opened.statusCode, opened.body).toBe(200);
    const cookie = sessionCookie(opened);
    expect(cookie).toBeDefined();
    expect(opened.json().member).toMatchObject({ email, two_factor: true });
    expect(opened.body).not.toContain(secret);

    // The challenge worked once, and the code too, even with a new challenge.
    expect(errorOf(await secondStep({ challenge, code }))).toEqual([401, "invalid_credentials", "challenge"]);
    const next = await passwordStep(email);
    expect(errorOf(await secondStep({ challenge: next, code }))).toEqual([
      401,
      "invalid_credentials",
      "code",
    ]);
    expect(errorOf(await secondStep({ challenge: next, code: "12345" }))).toEqual([
      401,
      "invalid_credentials",
      "code",
    ]);
    expect(errorOf(await secondStep({ challenge: "x".repeat(43), code }))).toEqual([
      401,
      "invalid_credentials",
      "challenge",
    ]);
    // A step later (one step of drift either way is accepted) the next code signs in.
    instances.clock.advance(30);
    const later = await secondStep({ challenge: next, code: await codeAt(instances.clock, secret) });
    expect(later.statusCode).toBe(200);
  });

  it("ends a challenge after 5 minutes, and stops guessing at the limit", async () => {
    const owner = await signedInAccount(instances.ctx, app);
    const email = await emailOf(owner);
    const { secret } = await enrol(owner);

    const stale = await passwordStep(email);
    instances.clock.advance(CHALLENGE_LIFETIME_SECONDS + 1);
    expect(
      errorOf(await secondStep({ challenge: stale, code: await codeAt(instances.clock, secret) })),
    ).toEqual([401, "invalid_credentials", "challenge"]);

    const challenge = await passwordStep(email);
    const right = await codeAt(instances.clock, secret);
    const wrongCodes = ["000000", "111111", "222222", "333333", "444444", "555555"].filter(
      (c) => c !== right,
    );
    for (const wrong of wrongCodes.slice(0, SECOND_FACTOR_LIMITS.perMember)) {
      expect(errorOf(await secondStep({ challenge, code: wrong }))).toEqual([
        401,
        "invalid_credentials",
        "code",
      ]);
    }
    // Past the limit even the right code is refused, on this challenge and any new one.
    const limited = await secondStep({ challenge, code: right });
    expect(errorOf(limited)).toEqual([429, "rate_limited", undefined]);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    const fresh = await passwordStep(email);
    expect((await secondStep({ challenge: fresh, code: right })).statusCode).toBe(429);

    instances.clock.advance(SECOND_FACTOR_LIMITS.windowSeconds);
    const afterWait = await passwordStep(email);
    const opened = await secondStep({ challenge: afterWait, code: await codeAt(instances.clock, secret) });
    expect(opened.statusCode).toBe(200);
  });

  it("accepts each recovery code once, and replaces them all with the password", async () => {
    const owner = await signedInAccount(instances.ctx, app);
    const email = await emailOf(owner);
    const { recoveryCodes } = await enrol(owner);
    const [first, second] = recoveryCodes as [string, string];

    const used = await secondStep({
      challenge: await passwordStep(email),
      recovery_code: first.toUpperCase().replaceAll("-", ""),
    });
    expect(used.statusCode).toBe(200);
    const signedIn = {
      cookie: sessionCookie(used) as string,
      csrf: used.json().csrf_token,
      accountId: owner.accountId,
    };
    expect(errorOf(await secondStep({ challenge: await passwordStep(email), recovery_code: first }))).toEqual(
      [401, "invalid_credentials", "recovery_code"],
    );

    const wrongPassword = await dashboardRequest(
      app,
      signedIn,
      "POST",
      "/dashboard/api/two-factor/recovery-codes",
      {
        password: "not the password at all",
      },
    );
    expect(errorOf(wrongPassword)).toEqual([401, "invalid_credentials", "password"]);
    const renewed = await dashboardRequest(
      app,
      signedIn,
      "POST",
      "/dashboard/api/two-factor/recovery-codes",
      {
        password: TEST_PASSWORD,
      },
    );
    expect(renewed.statusCode).toBe(200);
    const fresh: string[] = renewed.json().recovery_codes;
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(second);
    // The old, unused codes no longer work; the new ones do.
    const challenge = await passwordStep(email);
    expect(errorOf(await secondStep({ challenge, recovery_code: second }))).toEqual([
      401,
      "invalid_credentials",
      "recovery_code",
    ]);
    expect((await secondStep({ challenge, recovery_code: fresh[0] })).statusCode).toBe(200);
  });

  it("holds a member without a second factor to enrolment while the account requires it, and lets them in after", async () => {
    const owner = await signedInAccount(instances.ctx, app);
    const refused = await dashboardRequest(app, owner, "PATCH", "/dashboard/api/two-factor/policy", {
      required: true,
    });
    expect(errorOf(refused)).toEqual([400, "invalid_request", "required"]);
    await enrol(owner);
    const admin = await signedInMember(instances.ctx, app, owner.accountId, "admin");
    const byAdmin = await dashboardRequest(app, admin, "PATCH", "/dashboard/api/two-factor/policy", {
      required: true,
    });
    expect(errorOf(byAdmin)).toEqual([403, "forbidden", undefined]);
    const developer = await signedInMember(instances.ctx, app, owner.accountId, "developer");

    const required = await dashboardRequest(app, owner, "PATCH", "/dashboard/api/two-factor/policy", {
      required: true,
    });
    expect(required.json()).toEqual({ require_two_factor: true });
    // The owner, who has it, goes on; the developer's open session is held at once.
    expect(
      (await dashboardRequest(app, owner, "GET", "/dashboard/api/keys?environment=sandbox")).statusCode,
    ).toBe(200);
    for (const [method, url] of [
      ["GET", "/dashboard/api/keys?environment=sandbox"],
      ["GET", "/dashboard/api/overview?environment=sandbox"],
      ["POST", "/dashboard/api/two-factor/disable"],
      ["DELETE", "/dashboard/api/keys/key_unknown"],
    ] as const) {
      const held = await dashboardRequest(
        app,
        developer,
        method,
        url,
        method === "POST" ? { password: "x" } : undefined,
      );
      expect(errorOf(held), `${method} ${url}`).toEqual([403, "two_factor_required", undefined]);
      expect(held.json().error.message).toContain("Settings → Security");
    }
    const view = (await dashboardRequest(app, developer, "GET", "/dashboard/api/session")).json();
    expect(view.account.require_two_factor).toBe(true);
    expect(view.member.two_factor).toBe(false);
    // A new sign-in opens a session too, held the same way: enrolment is how they get in.
    const again = await signIn(app, developer.email, TEST_PASSWORD);
    expect(
      (await dashboardRequest(app, again, "GET", "/dashboard/api/keys?environment=sandbox")).statusCode,
    ).toBe(403);

    await enrol(developer);
    expect(
      (await dashboardRequest(app, developer, "GET", "/dashboard/api/keys?environment=sandbox")).statusCode,
    ).toBe(200);

    // While required, nobody turns theirs off; once the owner lifts it, a member may.
    const disable = await dashboardRequest(app, developer, "POST", "/dashboard/api/two-factor/disable", {
      password: TEST_PASSWORD,
    });
    expect(errorOf(disable)).toEqual([403, "forbidden", undefined]);
    expect(disable.json().error.message).toMatch(/requires two-factor sign-in/);
    await dashboardRequest(app, owner, "PATCH", "/dashboard/api/two-factor/policy", { required: false });
    const wrongPassword = await dashboardRequest(
      app,
      developer,
      "POST",
      "/dashboard/api/two-factor/disable",
      {
        password: "not the password at all",
      },
    );
    expect(errorOf(wrongPassword)).toEqual([401, "invalid_credentials", "password"]);
    const disabled = await dashboardRequest(app, developer, "POST", "/dashboard/api/two-factor/disable", {
      password: TEST_PASSWORD,
    });
    expect(disabled.statusCode).toBe(204);
    expect(
      (await dashboardRequest(app, developer, "GET", "/dashboard/api/session")).json().member.two_factor,
    ).toBe(false);
    await signIn(app, developer.email, TEST_PASSWORD);
  });

  it("keeps the second factor through a password reset, and the operator's reset clears it and ends sessions", async () => {
    const owner = await signedInAccount(instances.ctx, app);
    const member = await signedInMember(instances.ctx, app, owner.accountId, "finance");
    const { secret } = await enrol(member);
    // A sign-in halfway through (the password given, the code not yet) when the reset comes.
    const halfway = await passwordStep(member.email);

    const reset = await issuePasswordReset(
      instances.ctx,
      {
        accountId: owner.accountId,
        email: member.email,
      },
      CLI_ORIGIN,
    );
    const redeemed = await app.inject({
      method: "POST",
      url: "/dashboard/api/invites/accept",
      payload: { token: reset.token, password: TEST_PASSWORD },
    });
    expect(redeemed.statusCode).toBe(200);
    expect(sessionCookie(redeemed)).toBeUndefined();
    expect(redeemed.json().two_factor_required).toBe(true);
    instances.clock.advance(30);
    const stale = await secondStep({ challenge: halfway, code: await codeAt(instances.clock, secret) });
    expect(stale.statusCode).toBe(401);
    const opened = await secondStep({
      challenge: redeemed.json().challenge,
      code: await codeAt(instances.clock, secret),
    });
    expect(opened.statusCode).toBe(200);
    const session = {
      cookie: sessionCookie(opened) as string,
      csrf: opened.json().csrf_token,
      accountId: owner.accountId,
    };

    await resetTwoFactor(instances.ctx, { accountId: owner.accountId, email: member.email }, CLI_ORIGIN);
    expect(errorOf(await dashboardRequest(app, session, "GET", "/dashboard/api/session"))).toEqual([
      401,
      "not_signed_in",
      undefined,
    ]);
    const back = await signIn(app, member.email, TEST_PASSWORD);
    expect(
      (await dashboardRequest(app, back, "GET", "/dashboard/api/session")).json().member.two_factor,
    ).toBe(false);
    expect(
      await instances.ctx.db
        .selectFrom("two_factor_recovery_codes")
        .where("member_id", "=", member.memberId)
        .selectAll()
        .execute(),
    ).toEqual([]);
  });
});
