import { getAccount } from "../accounts/update.js";
import { recordAudit } from "../audit/record.js";
import { otpSettingsSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import { readTogether } from "../db/read-together.js";
import type { Db, DbOrTrx, Dialect, Environment, OtpSettingsTable } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { otpCodeSlot, otpSlotProblem } from "../dlt/otp-slot.js";
import { findTemplate, TEMPLATE_SEND_COLUMNS, type Template, toTemplate } from "../dlt/registry.js";
import { senderExists } from "../dlt/senders.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";
import { requireIndianMobile } from "../lib/phone.js";
import { requireSavableCallerId } from "./voice-caller-id.js";

export interface OtpSettings {
  expiry_seconds: number;
  max_attempts: number;
  resend_cooldown_seconds: number;
  fallback_after_seconds: number;
  length: number;
  sms_template_id: string | null;
  sms_sender: string | null;
  whatsapp_template: string | null;
  whatsapp_language: string;
  /** E.164 number → its fixed code, for app store reviewers. */
  test_numbers: Record<string, string>;
  /** The number voice OTPs call from; null: the operator's VOICE_FROM (docs/otp.md#voice-caller-id). */
  voice_caller_id: string | null;
}

export const DEFAULT_OTP_SETTINGS: OtpSettings = {
  expiry_seconds: 600,
  max_attempts: 5,
  resend_cooldown_seconds: 30,
  fallback_after_seconds: 7,
  length: 6,
  sms_template_id: null,
  sms_sender: null,
  whatsapp_template: null,
  whatsapp_language: "en",
  test_numbers: {},
  voice_caller_id: null,
};

/** Bounds of docs/otp.md. */
const RANGES = {
  expiry_seconds: [10, 3600],
  max_attempts: [1, 20],
  resend_cooldown_seconds: [0, 600],
  fallback_after_seconds: [1, 120],
  length: [4, 10],
} as const;

/**
 * The settings of one account and environment. An SMS sender that is no longer registered reads
 * as none (removing a sender clears it; this also covers settings from before that), found in
 * the same query by a join on the senders' primary key.
 */
export async function getOtpSettings(
  db: DbOrTrx,
  accountId: string,
  environment: Environment,
): Promise<OtpSettings> {
  return settingsOf(await settingsQuery(db, accountId, environment).executeTakeFirst());
}

export interface SendSettings {
  settings: OtpSettings;
  smsTemplate: Template | null;
  /** The account is marked BFSI: its voice OTPs call only from a 1600-series number. */
  bfsi: boolean;
}

/**
 * What an OTP send reads before it writes: the settings, the SMS template they name (null if
 * none, or not registered) and whether the account is BFSI, from the settings cache. Treat the answer as read-only: it is shared.
 */
export function getSendSettings(
  ctx: Pick<AppContext, "db" | "dialect" | "settingsCache">,
  accountId: string,
  environment: Environment,
): Promise<SendSettings> {
  return ctx.settingsCache.read(accountId, `otp:${environment}`, () =>
    readSendSettings(ctx, accountId, environment),
  );
}

/** `getSendSettings` from the database: all read together (one round trip on PostgreSQL). */
async function readSendSettings(
  database: { db: Db; dialect: Dialect },
  accountId: string,
  environment: Environment,
): Promise<SendSettings> {
  const { db } = database;
  const [settingsRows, templateRows, accountRows] = await readTogether(database, [
    settingsQuery(db, accountId, environment).compile(),
    db
      .selectFrom("templates")
      .select(TEMPLATE_SEND_COLUMNS)
      .where("account_id", "=", accountId)
      .where(
        "template_id",
        "=",
        db
          .selectFrom("otp_settings")
          .select("sms_template_id")
          .where("account_id", "=", accountId)
          .where("environment", "=", environment),
      )
      .compile(),
    db.selectFrom("accounts").select("bfsi").where("id", "=", accountId).compile(),
  ]);
  const template = templateRows[0];
  return {
    settings: settingsOf(settingsRows[0]),
    smsTemplate: template ? toTemplate(template) : null,
    bfsi: Number(accountRows[0]?.bfsi ?? 0) === 1,
  };
}

function settingsQuery(db: DbOrTrx, accountId: string, environment: Environment) {
  return db
    .selectFrom("otp_settings")
    .leftJoin("senders", (join) =>
      join
        .onRef("senders.account_id", "=", "otp_settings.account_id")
        .onRef("senders.sender", "=", "otp_settings.sms_sender"),
    )
    .selectAll("otp_settings")
    .select("senders.sender as registered_sender")
    .where("otp_settings.account_id", "=", accountId)
    .where("otp_settings.environment", "=", environment);
}

function settingsOf(row: (OtpSettingsTable & { registered_sender: string | null }) | undefined): OtpSettings {
  if (!row) return { ...DEFAULT_OTP_SETTINGS, test_numbers: {} };
  const { registered_sender, ...settings } = row;
  return fromRow({ ...settings, sms_sender: registered_sender });
}

/**
 * Changes some settings; checks ranges, that the SMS template and sender are registered and fit,
 * and that the voice caller ID is one the account may call from.
 */
export async function updateOtpSettings(
  ctx: AppContext,
  accountId: string,
  environment: Environment,
  changes: Partial<OtpSettings>,
  origin: ChangeOrigin,
): Promise<OtpSettings> {
  const { bfsi } = await getAccount(ctx.db, accountId);
  const settings = { ...(await getOtpSettings(ctx.db, accountId, environment)), ...changes };
  // Headers are compared case-insensitively and kept as registered: upper-case (docs/sms.md).
  if (settings.sms_sender !== null) settings.sms_sender = settings.sms_sender.toUpperCase();
  for (const [name, [min, max]] of Object.entries(RANGES)) {
    const value = settings[name as keyof typeof RANGES];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ApiError("invalid_request", `${name} must be an integer from ${min} to ${max}.`, name);
    }
  }
  if (settings.sms_template_id !== null) {
    const template = await findTemplate(ctx.db, accountId, settings.sms_template_id);
    if (!template)
      throw new ApiError(
        "invalid_request",
        `Template ${settings.sms_template_id} is not registered.`,
        "sms_template_id",
      );
    if (otpCodeSlot(template.placeholders) === undefined) {
      throw new ApiError(
        "invalid_request",
        `Template ${settings.sms_template_id} cannot carry the code: ${otpSlotProblem(template.placeholders)}.`,
        "sms_template_id",
      );
    }
    if (settings.sms_sender !== null && !template.senders.includes(settings.sms_sender)) {
      throw new ApiError(
        "invalid_request",
        `Template ${settings.sms_template_id} may not go out under ${settings.sms_sender}.`,
        "sms_sender",
      );
    }
  }
  if (settings.sms_sender !== null && !(await senderExists(ctx.db, accountId, settings.sms_sender))) {
    throw new ApiError("invalid_request", `Sender ${settings.sms_sender} is not registered.`, "sms_sender");
  }
  if (settings.whatsapp_template !== null && !/^[a-z0-9_]{1,512}$/.test(settings.whatsapp_template)) {
    throw new ApiError(
      "invalid_request",
      "whatsapp_template must be a template name (a-z, 0-9, _).",
      "whatsapp_template",
    );
  }
  for (const [number, code] of Object.entries(settings.test_numbers)) {
    requireIndianMobile(number, "test_numbers");
    if (!/^\d{4,10}$/.test(code)) {
      throw new ApiError(
        "invalid_request",
        `The fixed code of ${number} must be 4 to 10 digits.`,
        "test_numbers",
      );
    }
  }
  requireSavableCallerId(settings.voice_caller_id, bfsi);
  const row: OtpSettingsTable = {
    account_id: accountId,
    environment,
    expiry_seconds: settings.expiry_seconds,
    max_attempts: settings.max_attempts,
    resend_cooldown_seconds: settings.resend_cooldown_seconds,
    fallback_after_seconds: settings.fallback_after_seconds,
    code_length: settings.length,
    sms_template_id: settings.sms_template_id,
    sms_sender: settings.sms_sender,
    whatsapp_template: settings.whatsapp_template,
    whatsapp_language: settings.whatsapp_language,
    test_numbers: JSON.stringify(settings.test_numbers),
    voice_caller_id: settings.voice_caller_id,
    updated_at: isoNow(ctx.clock),
  };
  const { account_id, environment: _environment, ...update } = row;
  await inTransaction(ctx, async (trx) => {
    const before = await getOtpSettings(trx, accountId, environment);
    await trx
      .insertInto("otp_settings")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "environment"]).doUpdateSet(update))
      .execute();
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment,
      origin,
      action: "otp_settings.updated",
      target: { type: "otp_settings", id: null },
      before: otpSettingsSnapshot(before),
      after: otpSettingsSnapshot(settings),
    });
  });
  ctx.settingsCache.forget(accountId);
  return settings;
}

function fromRow(row: OtpSettingsTable): OtpSettings {
  return {
    expiry_seconds: row.expiry_seconds,
    max_attempts: row.max_attempts,
    resend_cooldown_seconds: row.resend_cooldown_seconds,
    fallback_after_seconds: row.fallback_after_seconds,
    length: row.code_length,
    sms_template_id: row.sms_template_id,
    sms_sender: row.sms_sender,
    whatsapp_template: row.whatsapp_template,
    whatsapp_language: row.whatsapp_language,
    test_numbers: JSON.parse(row.test_numbers) as Record<string, string>,
    voice_caller_id: row.voice_caller_id,
  };
}
