import { Type } from "typebox";
import { DASHBOARD_ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../errors.js";

/** A field that is `schema` or null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** The codes of the public API (docs/api-reference.md#errors): every code but the dashboard's own. */
export const PUBLIC_ERROR_CODES = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter(
  (code) => !DASHBOARD_ERROR_CODES.has(code),
);

/**
 * The error envelope of docs/api-reference.md#errors for an answer that carries one of `codes`; the OpenAPI
 * document lists them with what each means (src/http/openapi.ts).
 */
export function errorResponse(codes: readonly ErrorCode[]) {
  return Type.Object(
    {
      error: Type.Object({
        code: Type.String({ enum: [...codes] }),
        message: Type.String({ description: "What went wrong and what to do, for a person to read" }),
        param: Type.Optional(
          Type.String({ description: "The field at fault, as a dotted path like variables.otp" }),
        ),
        retry_after: Type.Optional(Type.Integer({ description: "Seconds to wait, on a 429" })),
        request_id: Type.String({ description: "The X-Request-Id of the request" }),
      }),
    },
    { description: "Every error has this shape" },
  );
}

/** The error envelope with any public code; a route's answer of a given status is narrowed to its codes. */
export const ErrorResponse = errorResponse(PUBLIC_ERROR_CODES);
