import Ajv, { type ValidateFunction } from "ajv";
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
    compiledOnFirstUse(() => (httpPart === "body" ? bodyAjv : textAjv).compile(schema as object)),
  );
}

type Validate = ((data: unknown, context?: object) => boolean) & {
  errors?: ValidateFunction["errors"];
  schemaEnv?: unknown;
};

/**
 * A route's validator, compiled by its first request rather than when the server starts:
 * compiling every route's schemas was a quarter of the CPU `dakiya serve` took to start
 * listening, most of it for routes a process may never serve. `errors` is what Fastify reads
 * after a failed validation; `schemaEnv` marks an Ajv function, to which Fastify passes the
 * request as the parent of the part it validates, so that Ajv can set defaults on it.
 */
export function compiledOnFirstUse(compile: () => ValidateFunction): Validate {
  let validate: ValidateFunction | undefined;
  const lazy: Validate = (data, context) => {
    validate ??= compile();
    const valid = validate(data, context as Parameters<ValidateFunction>[1]);
    lazy.errors = validate.errors;
    return valid;
  };
  lazy.schemaEnv = true;
  return lazy;
}
