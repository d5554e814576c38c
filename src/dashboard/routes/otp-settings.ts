import { Type } from "typebox";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { getOtpSettings, updateOtpSettings } from "../../otp/settings.js";
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
  },
  { additionalProperties: false },
);

export function otpSettingsRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/dashboard/api/otp-settings",
    { schema: { ...HIDDEN, querystring: EnvironmentQuery } },
    async (request) => getOtpSettings(ctx.db, sessionOf(request).accountId, request.query.environment),
  );

  app.patch(
    "/dashboard/api/otp-settings",
    { schema: { ...HIDDEN, querystring: EnvironmentQuery, body: SettingsChange } },
    async (request) => {
      const change = request.body;
      // An empty choice in a form means "not set".
      for (const field of ["sms_template_id", "sms_sender", "whatsapp_template"] as const) {
        if (change[field] === "") change[field] = null;
      }
      return updateOtpSettings(ctx, sessionOf(request).accountId, request.query.environment, change);
    },
  );
}
