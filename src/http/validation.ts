import Ajv from "ajv";
import addFormats from "ajv-formats";
import type { App } from "./types.js";

/**
 * Bodies are validated strictly: no type coercion and no silent removal of unknown fields, so a
 * wrong type or an unknown field is a 400. Query strings and path parameters arrive as text and
 * are coerced to the schema's types.
 */
export function registerValidation(app: App): void {
  const options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false } as const;
  const bodyAjv = addFormats.default(new Ajv.default({ ...options, coerceTypes: false }));
  const textAjv = addFormats.default(new Ajv.default({ ...options, coerceTypes: "array" }));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === "body" ? bodyAjv : textAjv).compile(schema as object),
  );
}
