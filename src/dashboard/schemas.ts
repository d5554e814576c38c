import { Type } from "typebox";
import { MAX_PASSWORD_LENGTH } from "../members/credentials.js";

export const EnvironmentSchema = Type.Union([Type.Literal("live"), Type.Literal("sandbox")]);

/** The query of a route that reads or changes one environment's data. */
export const EnvironmentQuery = Type.Object(
  { environment: EnvironmentSchema },
  { additionalProperties: false },
);

export const Credentials = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
);

/** Dashboard routes are not part of the public API: they stay out of `/openapi.json`. */
export const HIDDEN = { hide: true } as const;
