import { Type } from "typebox";
import { dashboardActor } from "../../audit/actor.js";
import type { AppContext } from "../../context.js";
import type { App } from "../../http/types.js";
import { MAX_PASSWORD_LENGTH } from "../../members/credentials.js";
import {
  disableTwoFactor,
  enableTwoFactor,
  regenerateRecoveryCodes,
  setTwoFactorRequirement,
  startEnrolment,
} from "../../two-factor/two-factor.js";
import { sessionOf } from "../auth.js";
import { HIDDEN } from "../schemas.js";

const Code = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 20 }) },
  { additionalProperties: false },
);
const Password = Type.Object(
  { password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }) },
  { additionalProperties: false },
);
const Policy = Type.Object({ required: Type.Boolean() }, { additionalProperties: false });

/** Settings → Security: the member's own second factor, and (owners) the account's rule (docs/two-factor.md). */
export function twoFactorRoutes(app: App, ctx: AppContext): void {
  app.post("/dashboard/api/two-factor/setup", { schema: HIDDEN }, async (request) =>
    startEnrolment(ctx, sessionOf(request)),
  );

  app.post("/dashboard/api/two-factor/enable", { schema: { ...HIDDEN, body: Code } }, async (request) => ({
    recovery_codes: await enableTwoFactor(
      ctx,
      sessionOf(request),
      request.body.code,
      dashboardActor(request),
    ),
  }));

  app.post(
    "/dashboard/api/two-factor/disable",
    { schema: { ...HIDDEN, body: Password } },
    async (request, reply) => {
      await disableTwoFactor(ctx, sessionOf(request), request.body.password, dashboardActor(request));
      return reply.code(204).send();
    },
  );

  app.post(
    "/dashboard/api/two-factor/recovery-codes",
    { schema: { ...HIDDEN, body: Password } },
    async (request) => ({
      recovery_codes: await regenerateRecoveryCodes(
        ctx,
        sessionOf(request),
        request.body.password,
        dashboardActor(request),
      ),
    }),
  );

  app.patch("/dashboard/api/two-factor/policy", { schema: { ...HIDDEN, body: Policy } }, async (request) =>
    setTwoFactorRequirement(ctx, sessionOf(request), request.body.required, dashboardActor(request)),
  );
}
