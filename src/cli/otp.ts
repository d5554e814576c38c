import type { Command } from "commander";
import { requireAccountExists } from "../accounts/accounts.js";
import { CLI_ORIGIN } from "../audit/types.js";
import type { Environment } from "../db/schema.js";
import { getOtpSettings, type OtpSettings, updateOtpSettings } from "../otp/settings.js";
import { environmentOption } from "./accounts.js";
import { commandGroup, type OutputOptions, parseNonNegativeInteger, print, withContext } from "./run.js";

interface SettingsOptions {
  account: string;
  environment: Environment;
  expirySeconds?: number;
  maxAttempts?: number;
  resendCooldownSeconds?: number;
  fallbackAfterSeconds?: number;
  length?: number;
  smsTemplateId?: string;
  smsSender?: string;
  whatsappTemplate?: string;
  whatsappLanguage?: string;
  testNumber?: string[];
  removeTestNumber?: string[];
  voiceCallerId?: string;
}

export function otpCommands(program: Command, output: () => OutputOptions): void {
  const otp = commandGroup(program, "otp", "manage one-time passcodes");
  otp
    .command("settings")
    .description("show or change an account's OTP settings for one environment")
    .requiredOption("--account <id>", "account id (acct_…)")
    .addOption(environmentOption())
    .option("--expiry-seconds <n>", "how long a code is valid, 10–3600", parseNonNegativeInteger)
    .option("--max-attempts <n>", "codes that may be tried, 1–20", parseNonNegativeInteger)
    .option("--resend-cooldown-seconds <n>", "wait between sends, 0–600", parseNonNegativeInteger)
    .option(
      "--fallback-after-seconds <n>",
      "wait for delivery before the fallback channel, 1–120",
      parseNonNegativeInteger,
    )
    .option("--length <n>", "digits of a generated code, 4–10", parseNonNegativeInteger)
    .option(
      "--sms-template-id <digits>",
      "the registered template for SMS OTPs: one placeholder, which carries the code",
    )
    .option("--sms-sender <sender>", "the registered sender for SMS OTPs")
    .option("--whatsapp-template <name>", "the approved WhatsApp authentication template's name")
    .option("--whatsapp-language <code>", "its language code, e.g. en or en_US")
    .option("--test-number <number=code>", "a test number with a fixed code (repeatable)", collect, [])
    .option("--remove-test-number <number>", "remove a test number (repeatable)", collect, [])
    .option(
      "--voice-caller-id <e164>",
      'the number voice OTPs call from ("" for the server\'s VOICE_FROM); BFSI accounts: 1600-series only',
    )
    .action(async (opts: SettingsOptions) => {
      const settings = await withContext(async (ctx) => {
        await requireAccountExists(ctx.db, opts.account);
        const current = await getOtpSettings(ctx.db, opts.account, opts.environment);
        const changes = changesFrom(opts, current);
        if (Object.keys(changes).length === 0) return current;
        return updateOtpSettings(ctx, opts.account, opts.environment, changes, CLI_ORIGIN);
      });
      const numbers = Object.keys(settings.test_numbers);
      print(output(), { account: opts.account, environment: opts.environment, ...settings }, [
        `OTP settings of ${opts.account} (${opts.environment}):`,
        `  expiry ${settings.expiry_seconds} s, ${settings.max_attempts} attempts, resend after ${settings.resend_cooldown_seconds} s, fallback after ${settings.fallback_after_seconds} s, ${settings.length} digits`,
        `  SMS: template ${settings.sms_template_id ?? "not set"}, sender ${settings.sms_sender ?? "not set"}`,
        `  WhatsApp: template ${settings.whatsapp_template ?? "not set"} (${settings.whatsapp_language})`,
        `  Voice: caller ID ${settings.voice_caller_id ?? "the server's default (VOICE_FROM)"}`,
        `  test numbers: ${numbers.length === 0 ? "none" : numbers.join(", ")}`,
      ]);
    });
}

function changesFrom(opts: SettingsOptions, current: OtpSettings): Partial<OtpSettings> {
  const changes: Partial<OtpSettings> = {};
  if (opts.expirySeconds !== undefined) changes.expiry_seconds = opts.expirySeconds;
  if (opts.maxAttempts !== undefined) changes.max_attempts = opts.maxAttempts;
  if (opts.resendCooldownSeconds !== undefined) changes.resend_cooldown_seconds = opts.resendCooldownSeconds;
  if (opts.fallbackAfterSeconds !== undefined) changes.fallback_after_seconds = opts.fallbackAfterSeconds;
  if (opts.length !== undefined) changes.length = opts.length;
  if (opts.smsTemplateId !== undefined) changes.sms_template_id = opts.smsTemplateId;
  if (opts.smsSender !== undefined) changes.sms_sender = opts.smsSender.toUpperCase();
  if (opts.whatsappTemplate !== undefined) changes.whatsapp_template = opts.whatsappTemplate;
  if (opts.whatsappLanguage !== undefined) changes.whatsapp_language = opts.whatsappLanguage;
  if (opts.voiceCallerId !== undefined) changes.voice_caller_id = opts.voiceCallerId.trim() || null;
  if ((opts.testNumber ?? []).length > 0 || (opts.removeTestNumber ?? []).length > 0) {
    const numbers = { ...current.test_numbers };
    for (const entry of opts.testNumber ?? []) {
      const [number = "", code = ""] = entry.split("=");
      numbers[number] = code;
    }
    for (const number of opts.removeTestNumber ?? []) delete numbers[number];
    changes.test_numbers = numbers;
  }
  return changes;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
