import { Type } from "typebox";
import { getAccount } from "../../accounts/update.js";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { getOtpSettings, type OtpSettings, updateOtpSettings } from "../../otp/settings.js";
import { defaultVoiceCallerId, voiceCallerIdProblem } from "../../otp/voice-caller-id.js";
import { sessionOf } from "../auth.js";
import { EnvironmentQuery, HIDDEN } from "../schemas.js";

const NullableText = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()]);

/** Any subset of the settings; ranges and registry checks are the service's. */
const SettingsChange = Type.Object(
  {
    expiry_seconds: Type.Optional(Type.Integer()),
    max_attempts: Type.Optional(Type.Integer()),
    resend_cooldown_seconds: Type.Optional(Type.Integer()),
    fallback_after_seconds: Type.Optional(Type.Integer()),
    length: Type.Optional(Type.Integer()),
    sms_template_id: Type.Optional(NullableText(30)),
    sms_sender: Type.Optional(NullableText(32)),
    whatsapp_template: Type.Optional(NullableText(512)),
    whatsapp_language: Type.Optional(Type.String({ pattern: "^[a-z]{2,3}(_[A-Z]{2})?$" })),
    test_numbers: Type.Optional(
      Type.Record(Type.String({ maxLength: 16 }), Type.String({ maxLength: 10 }), { maxProperties: 50 }),
    ),
    voice_caller_id: Type.Optional(NullableText(32)),
  },
  { additionalProperties: false },
);

/**
 * The settings as the console shows them, with what it shows beside the voice caller ID: whether
 * the account is BFSI (the operator sets it), the server's default caller ID, and why voice OTPs
 * would be refused as things stand (null when they would not).
 */
async function settingsView(ctx: AppContext, accountId: string, settings: OtpSettings) {
  const { bfsi } = await getAccount(ctx.db, accountId);
  return {
    ...settings,
    bfsi,
    default_voice_caller_id: defaultVoiceCallerId(ctx),
    voice_refusal: voiceCallerIdProblem(ctx, settings.voice_caller_id, bfsi),
  };
}

export function otpSettingsRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/otp-settings",
    { schema: { ...HIDDEN, querystring: EnvironmentQuery } },
    async (request) => {
      const { accountId } = sessionOf(request);
      return settingsView(ctx, accountId, await getOtpSettings(ctx.db, accountId, request.query.environment));
    },
  );

  app.patch(
    "/dashboard/api/otp-settings",
    { schema: { ...HIDDEN, querystring: EnvironmentQuery, body: SettingsChange } },
    async (request) => {
      const change = request.body;
      // An empty choice in a form means "not set".
      for (const field of [
        "sms_template_id",
        "sms_sender",
        "whatsapp_template",
        "voice_caller_id",
      ] as const) {
        if (change[field] === "") change[field] = null;
      }
      const { accountId } = sessionOf(request);
      return settingsView(
        ctx,
        accountId,
        await updateOtpSettings(ctx, accountId, request.query.environment, change, dashboardActor(request)),
      );
    },
  );
}
