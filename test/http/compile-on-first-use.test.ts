import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { serializersOnFirstUse } from "../../src/http/serialization.js";
import { compiledOnFirstUse } from "../../src/http/validation.js";

describe("route schemas compiled by their first request", () => {
  it("compiles a validator once, on its first use, and passes on its errors and defaults", () => {
    const ajv = new Ajv.default({ useDefaults: true });
    let compiled = 0;
    const validate = compiledOnFirstUse(() => {
      compiled += 1;
      return ajv.compile({
        type: "object",
        properties: { to: { type: "string" }, channel: { type: "string", default: "sms" } },
        required: ["to"],
        additionalProperties: false,
      });
    });
    expect(compiled).toBe(0);
    expect(validate.schemaEnv).toBeTruthy();

    const body: Record<string, unknown> = { to: "+919876543210" };
    expect(validate(body, { parentData: { body }, parentDataProperty: "body" })).toBe(true);
    expect(body).toEqual({ to: "+919876543210", channel: "sms" });
    expect(validate.errors).toBeNull();

    expect(validate({ to: 1 })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: "/to", keyword: "type" });
    expect(validate({})).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: "required" });
    expect(validate({ to: "x" })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(compiled).toBe(1);
  });

  it("compiles a response serializer on its first answer, writing what the schema lists", () => {
    const compile = serializersOnFirstUse({}, {});
    const serialize = compile({
      method: "GET",
      url: "/v2/balance",
      httpStatus: "200",
      schema: {
        type: "object",
        properties: { balance: { type: "string" }, currency: { type: "string" } },
      },
    });
    expect(serialize({ balance: "10.0000", currency: "INR", secret: "not listed" })).toBe(
      '{"balance":"10.0000","currency":"INR"}',
    );
    expect(serialize({ balance: "0.0000", currency: "INR" })).toBe('{"balance":"0.0000","currency":"INR"}');
  });
});
