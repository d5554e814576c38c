import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";
import { addProbeRoutes } from "../helpers/probe-routes.js";

describe("the error envelope for everything the framework rejects", () => {
  const instances = useTestInstances("sqlite");
  let ctx: AppContext;
  let app: App;
  let auth: Record<string, string>;

  beforeAll(async () => {
    ({ ctx, app } = instances);
    addProbeRoutes(app, ctx);
    auth = bearer((await createAccountWithKey(ctx, "sandbox", 10_000_000)).secret);
  });

  const post = (payload: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: "POST",
      url: "/v2/probe/charges",
      payload,
      headers: { "content-type": "application/json", ...auth, ...headers },
    });

  function expectError(
    response: Awaited<ReturnType<typeof post>>,
    status: number,
    code: string,
    param?: string,
  ): void {
    expect(response.statusCode).toBe(status);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    const body = response.json();
    expect(Object.keys(body)).toEqual(["error"]);
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe("string");
    expect(body.error.request_id).toBe(response.headers["x-request-id"]);
    if (param === undefined) expect(body.error).not.toHaveProperty("param");
    else expect(body.error.param).toBe(param);
  }

  it("accepts a valid request (the baseline for the cases below)", async () => {
    const response = await post(JSON.stringify({ amount: "1.0000", meta: { tag: "x" } }));
    expect(response.statusCode).toBe(201);
  });

  it("malformed JSON → 400 invalid_request", async () => {
    expectError(await post('{"amount": "1.0000",'), 400, "invalid_request");
    expectError(await post("{'amount': 1}"), 400, "invalid_request");
  });

  it("an empty JSON body is taken as {} → 400 naming the first missing field", async () => {
    expectError(await post(""), 400, "invalid_request", "amount");
  });

  it("a body that is not an object → 400 invalid_request", async () => {
    expectError(await post("[1,2]"), 400, "invalid_request");
    expectError(await post('"text"'), 400, "invalid_request");
  });

  it("a missing required field → 400 with its param", async () => {
    expectError(await post("{}"), 400, "invalid_request", "amount");
  });

  it("a wrong type is refused, not coerced → 400 with its param", async () => {
    expectError(await post(JSON.stringify({ amount: 1 })), 400, "invalid_request", "amount");
    expectError(
      await post(JSON.stringify({ amount: "1.0000", delay_ms: "5" })),
      400,
      "invalid_request",
      "delay_ms",
    );
  });

  it("a bad format → 400 with its param", async () => {
    expectError(await post(JSON.stringify({ amount: "1.5" })), 400, "invalid_request", "amount");
  });

  it("an unknown field → 400 naming it, also when nested", async () => {
    const response = await post(JSON.stringify({ amount: "1.0000", amount_inr: "1" }));
    expectError(response, 400, "invalid_request", "amount_inr");
    const nested = await post(JSON.stringify({ amount: "1.0000", meta: { tag: "x", colour: "red" } }));
    expectError(nested, 400, "invalid_request", "meta.colour");
    const nestedType = await post(JSON.stringify({ amount: "1.0000", meta: { tag: 5 } }));
    expectError(nestedType, 400, "invalid_request", "meta.tag");
  });

  it("a wrong content type → 415, with or without a body; no content type → 415 with a body", async () => {
    expectError(
      await post("amount=1", { "content-type": "application/x-www-form-urlencoded" }),
      415,
      "unsupported_media_type",
    );
    expectError(
      await post('{"amount":"1.0000"}', { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
    expectError(await post("", { "content-type": "text/plain" }), 415, "unsupported_media_type");
    const noType = await app.inject({
      method: "POST",
      url: "/v2/probe/charges",
      headers: { ...auth, "content-length": "19" },
      payload: '{"amount":"1.0000"}',
    });
    expectError(noType, 415, "unsupported_media_type");
    // No body and no type is no body, taken as {}.
    const noBody = await app.inject({ method: "POST", url: "/v2/probe/charges", headers: auth });
    expectError(noBody, 400, "invalid_request", "amount");
  });

  it("accepts application/json with a charset", async () => {
    const response = await post(JSON.stringify({ amount: "1.0000" }), {
      "content-type": "application/json; charset=utf-8",
    });
    expect(response.statusCode).toBe(201);
  });

  it("a body over 16 KiB → 413 payload_too_large", async () => {
    const big = JSON.stringify({ amount: "1.0000", note: "x".repeat(16 * 1024) });
    expectError(await post(big), 413, "payload_too_large");
  });

  it("an unknown route → 404 not_found, with or without a key", async () => {
    expectError(
      await app.inject({ method: "GET", url: "/v2/nothing-here", headers: auth }),
      404,
      "not_found",
    );
    expectError(await app.inject({ method: "GET", url: "/v2/nothing-here" }), 404, "not_found");
    expectError(
      await app.inject({ method: "DELETE", url: "/v2/balance/extra", headers: auth }),
      404,
      "not_found",
    );
    expectError(await app.inject({ method: "GET", url: "/nope" }), 404, "not_found");
  });

  it("auth comes before body checks: no key → 401, even with a bad body", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/v2/probe/charges",
      payload: "{",
      headers: { "content-type": "text/plain" },
    });
    expectError(response, 401, "missing_api_key");
  });

  it("an internal error → 500 internal_error with no stack, SQL or path in the body", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/v2/probe/crash",
      payload: "{}",
      headers: { "content-type": "application/json", ...auth },
    });
    expectError(response, 500, "internal_error");
    for (const leak of ["insert", "secret_table", "SQLITE", "app.ts", "at ", "Error:"]) {
      expect(response.body).not.toContain(leak);
    }
  });

  it("insufficient balance → 402 and nothing changes", async () => {
    const response = await post(JSON.stringify({ amount: "999999.0000" }));
    expectError(response, 402, "insufficient_balance");
  });
});
