import { beforeAll, describe, expect, it } from "vitest";
import { SETTINGS_CACHE_MS, SettingsCache } from "../../src/accounts/settings-cache.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { setTemplateStatus } from "../../src/dlt/registry.js";
import type { App } from "../../src/http/types.js";
import { deleteKey } from "../../src/keys/keys.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { cliRunner } from "../helpers/cli.js";
import { TEST_SECRET } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/* Sends read senders, templates and OTP settings from a cache: a change through this process shows at once, one from another process within a second, and keys are never cached. */

const TEMPLATE = "1107160000000000001";
const OTP_TEMPLATE = "1107160000000000002";

describe("SettingsCache", () => {
  it("shares one read among callers, forgets on a change, and drops a read that a change overtook", async () => {
    const cache = new SettingsCache();
    let reads = 0;
    const load = async () => ++reads;
    expect(await Promise.all([cache.read("a", "k", load), cache.read("a", "k", load)])).toEqual([1, 1]);
    expect(await cache.read("a", "k", load)).toBe(1);
    cache.forget("a");
    expect(await cache.read("a", "k", load)).toBe(2);

    let release!: (value: number) => void;
    const slow = cache.read("a", "slow", () => new Promise<number>((resolve) => (release = resolve)));
    cache.forget("a"); // the change lands while the read is under way
    release(1);
    expect(await slow).toBe(1);
    expect(await cache.read("a", "slow", async () => 2)).toBe(2);
  });

  it("does not keep a failed read", async () => {
    const cache = new SettingsCache();
    await expect(cache.read("a", "k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.read("a", "k", async () => "up")).toBe("up");
  });
});

describe.each(DIALECTS)("settings cache on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let accountId: string;
  let keyId: string;
  let secret: string;
  const { dakiya } = cliRunner(() => ({
    ...process.env,
    DATABASE_URL: instances.database.url,
    DAKIYA_SECRET: TEST_SECRET,
    LOG_LEVEL: "warn",
  }));

  beforeAll(async () => {
    ({ ctx, app } = instances);
    ({ accountId, keyId, secret } = await createAccountWithKey(ctx, "sandbox", 1_000_000));
    await registerDlt(ctx, accountId, {
      templates: [
        { templateId: TEMPLATE, content: "Your order {#var#} has shipped." },
        { templateId: OTP_TEMPLATE, content: "Your code is {#otp#}." },
      ],
    });
    await updateOtpSettings(
      ctx,
      accountId,
      "sandbox",
      {
        sms_template_id: OTP_TEMPLATE,
        sms_sender: "DAKIYA",
      },
      CLI_ORIGIN,
    );
  }, 60_000);

  const sendSms = () =>
    app.inject({
      method: "POST",
      url: "/v2/sms/send",
      headers: bearer(secret),
      payload: { to: "+919876500001", sender: "DAKIYA", template_id: TEMPLATE, variables: { var1: "A1" } },
    });
  const sendOtp = (to: string) =>
    app.inject({ method: "POST", url: "/v2/otp/send", headers: bearer(secret), payload: { to } });

  /** Polls `check` until it holds, and says how long that took. */
  async function timeUntil(check: () => Promise<boolean>, limitMs = 3_000): Promise<number> {
    const started = performance.now();
    while (!(await check())) {
      if (performance.now() - started > limitMs) throw new Error(`not seen within ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return performance.now() - started;
  }

  it("a change through this process shows on the next send", async () => {
    expect((await sendSms()).statusCode).toBe(202);
    await setTemplateStatus(ctx, accountId, TEMPLATE, "inactive", CLI_ORIGIN);
    const refused = await sendSms();
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.code).toBe("template_inactive");
    await setTemplateStatus(ctx, accountId, TEMPLATE, "active", CLI_ORIGIN);
    expect((await sendSms()).statusCode).toBe(202);
  });

  it("a change by another process (the CLI) shows within a second", async () => {
    expect((await sendSms()).statusCode).toBe(202);
    const cli = await dakiya("template", "deactivate", "--account", accountId, "--template-id", TEMPLATE);
    expect(cli.code, cli.stderr).toBe(0);
    const took = await timeUntil(async () => (await sendSms()).statusCode === 422);
    expect(took).toBeLessThan(1_000);
    expect((await sendSms()).json().error.code).toBe("template_inactive");

    expect((await sendOtp("+919876500002")).statusCode).toBe(200);
    const removed = await dakiya("sender", "remove", "--account", accountId, "--sender", "DAKIYA");
    expect(removed.code, removed.stderr).toBe(0);
    const otpTook = await timeUntil(async () => (await sendOtp("+919876500003")).statusCode === 422);
    expect(otpTook).toBeLessThan(1_000);
    expect(SETTINGS_CACHE_MS).toBeLessThanOrEqual(1_000);
  }, 60_000);

  it("API keys are not cached: a deleted key fails on the very next request", async () => {
    const balance = () => app.inject({ method: "GET", url: "/v2/balance", headers: bearer(secret) });
    expect((await balance()).statusCode).toBe(200);
    await deleteKey(ctx, accountId, keyId, CLI_ORIGIN);
    expect((await balance()).statusCode).toBe(401);
  });
});
