import { describe, expect, it } from "vitest";
import { getOtpSettings, type OtpSettings } from "../../src/otp/settings.js";
import { cliAccount, json, oneLineError } from "../helpers/cli.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";

const OTP_TEMPLATE = "1107161234567890123";
const TWO_PLACEHOLDERS = "1107161234567890124";
const SLOW = 60_000;

const cli = cliAccount(async (ctx, accountId) => {
  await registerDlt(ctx, accountId, {
    senders: ["DAKIYA"],
    templates: [
      { templateId: OTP_TEMPLATE, content: "{#otp#} is your Dakiya code. Do not share it." },
      { templateId: TWO_PLACEHOLDERS, content: "Hi {#name#}, {#otp#} is your code." },
    ],
  });
});
const { dakiya } = cli;

type PrintedSettings = OtpSettings & { account: string; environment: string };

function storedSettings(environment: "live" | "sandbox"): Promise<OtpSettings> {
  return cli.withContext((ctx) => getOtpSettings(ctx.db, cli.accountId, environment));
}

describe("dakiya otp settings", () => {
  it(
    "sets the SMS template, sender and a test number, prints the settings, and keeps them per environment",
    async () => {
      const printed = json<PrintedSettings>(
        await dakiya(
          "--json",
          "otp",
          "settings",
          "--account",
          cli.accountId,
          "--environment",
          "sandbox",
          "--sms-template-id",
          OTP_TEMPLATE,
          "--sms-sender",
          "dakiya",
          "--test-number",
          "+919000000001=123456",
          "--max-attempts",
          "3",
        ),
      );
      expect(printed).toEqual({
        account: cli.accountId,
        environment: "sandbox",
        expiry_seconds: 600,
        max_attempts: 3,
        resend_cooldown_seconds: 30,
        fallback_after_seconds: 7,
        length: 6,
        sms_template_id: OTP_TEMPLATE,
        sms_sender: "DAKIYA",
        whatsapp_template: null,
        whatsapp_language: "en",
        test_numbers: { "+919000000001": "123456" },
        voice_caller_id: null,
      });
      const { account: _account, environment: _environment, ...settings } = printed;
      expect(await storedSettings("sandbox")).toEqual(settings);
      // Live is untouched.
      expect(await storedSettings("live")).toMatchObject({
        sms_template_id: null,
        max_attempts: 5,
        test_numbers: {},
      });

      // Without changes it shows them; a test number can be removed again.
      expect(
        json<PrintedSettings>(
          await dakiya("--json", "otp", "settings", "--account", cli.accountId, "--environment", "sandbox"),
        ),
      ).toEqual(printed);
      const removed = json<PrintedSettings>(
        await dakiya(
          "--json",
          "otp",
          "settings",
          "--account",
          cli.accountId,
          "--environment",
          "sandbox",
          "--remove-test-number",
          "+919000000001",
        ),
      );
      expect(removed).toEqual({ ...printed, test_numbers: {} });
    },
    SLOW,
  );

  it(
    "refuses bad values with one line on stderr and changes nothing",
    async () => {
      const base = ["--json", "otp", "settings", "--account", cli.accountId, "--environment", "sandbox"];
      const before = await storedSettings("sandbox");
      const results = await Promise.all([
        dakiya(...base, "--max-attempts", "50"),
        dakiya(...base, "--expiry-seconds", "5"),
        dakiya(...base, "--length", "ten"),
        dakiya(...base, "--sms-template-id", TWO_PLACEHOLDERS, "--sms-sender", "DAKIYA"),
        dakiya(...base, "--sms-template-id", "1107000000000000000"),
        dakiya(...base, "--sms-sender", "NOSUCH"),
        dakiya(...base, "--test-number", "+919000000001=12"),
        dakiya(...base, "--test-number", "+14155552671=123456"),
        dakiya(
          "--json",
          "otp",
          "settings",
          "--account",
          "acct_doesnotexist000000000",
          "--environment",
          "sandbox",
        ),
        dakiya("--json", "otp", "settings", "--account", cli.accountId, "--environment", "staging"),
      ]);
      const lines = results.map((result) => oneLineError(result));
      expect(lines[0]).toMatch(/max_attempts/);
      expect(lines[1]).toMatch(/expiry_seconds/);
      expect(lines[3]).toMatch(/\{#otp#\}/);
      expect(lines[5]).toMatch(/NOSUCH/);
      expect(lines[6]).toMatch(/4 to 10 digits/);
      expect(lines[8]).toMatch(/acct_doesnotexist/);
      expect(await storedSettings("sandbox")).toEqual(before);
    },
    SLOW,
  );
});
