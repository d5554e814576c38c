import type { AddressInfo } from "node:net";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import type { HostLookup } from "../../src/webhooks/ssrf.js";
import { DIALECTS } from "../helpers/database.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";
import { type RawResponse, rawExchange } from "../helpers/raw-http.js";

/*
 * Action routes take no fields: a POST with no body and no Content-Type (curl -X POST …) is taken
 * as `{}`, as is `application/json` with an empty body, however the empty body is framed. A body
 * still needs Content-Type: application/json (docs/api-reference.md#conventions). Sent as bytes
 * over a real connection, so the framing is exactly what a client would put on the wire.
 */

const publicLookup: HostLookup = async () => [{ address: "93.184.216.34", family: 4 }];

describe.each(DIALECTS)("POST with an empty body on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let base: string;
  let secret: string;

  beforeAll(async () => {
    ({ ctx, app } = instances);
    ctx.outboundWebhooks.lookup = publicLookup;
    await app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  // An account of its own for each test: an environment holds at most 16 endpoints.
  beforeEach(async () => {
    ({ secret } = await createAccountWithKey(ctx, "sandbox"));
  });

  async function createEndpoint(): Promise<{ id: string; secret: string }> {
    const response = await app.inject({
      method: "POST",
      url: "/v2/webhooks",
      headers: bearer(secret),
      payload: { url: "https://hooks.example.com/dakiya" },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  /** One request, written as these bytes after the request line and the Host and Authorization headers. */
  async function send(path: string, headersAndBody: string): Promise<RawResponse> {
    const bytes =
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\n` +
      `Connection: close\r\n${headersAndBody}`;
    const { responses } = await rawExchange(base, bytes);
    expect(responses).toHaveLength(1);
    return responses[0] as RawResponse;
  }

  const EMPTY_BODIES: Record<string, string> = {
    "no Content-Type, no Content-Length (curl -X POST)": "\r\n",
    "no Content-Type, Content-Length: 0": "Content-Length: 0\r\n\r\n",
    "no Content-Type, an empty chunked body": "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "application/json, Content-Length: 0": "Content-Type: application/json\r\nContent-Length: 0\r\n\r\n",
    "application/json, an empty chunked body":
      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "application/json, no Content-Length": "Content-Type: application/json\r\n\r\n",
  };

  it.each(Object.entries(EMPTY_BODIES))("rotates a webhook secret with %s", async (_name, request) => {
    const endpoint = await createEndpoint();
    const response = await send(`/v2/webhooks/${endpoint.id}/rotate-secret`, request);
    expect(response.status, response.body).toBe(200);
    const rotated = JSON.parse(response.body) as { id: string; secret: string };
    expect(rotated.id).toBe(endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
  });

  it.each(Object.entries(EMPTY_BODIES))("sends a webhook test event with %s", async (_name, request) => {
    const endpoint = await createEndpoint();
    const response = await send(`/v2/webhooks/${endpoint.id}/test`, request);
    expect(response.status, response.body).toBe(202);
    expect(JSON.parse(response.body)).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: "webhook.test",
    });
  });

  it("takes fetch's POST without a body (Content-Length: 0, no type)", async () => {
    const endpoint = await createEndpoint();
    const response = await fetch(`${base}/v2/webhooks/${endpoint.id}/rotate-secret`, {
      method: "POST",
      headers: bearer(secret),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { secret: string }).secret).not.toBe(endpoint.secret);
  });

  it("answers a route that needs fields 400 naming the first missing, as for {}", async () => {
    for (const request of Object.values(EMPTY_BODIES)) {
      const response = await send("/v2/webhooks", request);
      expect(response.status, response.body).toBe(400);
      expect(JSON.parse(response.body).error).toMatchObject({ code: "invalid_request", param: "url" });
    }
  });

  it.each([
    ["text/plain with a body", "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}"],
    ["text/plain, empty", "Content-Type: text/plain\r\nContent-Length: 0\r\n\r\n"],
    ["a form", "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\na=1"],
    ["no Content-Type with a body", "Content-Length: 2\r\n\r\n{}"],
    ["no Content-Type with a chunked body", "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"],
    ["no Content-Type with a body of one space", "Content-Length: 1\r\n\r\n "],
  ])("still refuses %s with 415 and changes nothing", async (_name, request) => {
    const endpoint = await createEndpoint();
    for (const action of ["rotate-secret", "test"]) {
      const response = await send(`/v2/webhooks/${endpoint.id}/${action}`, request);
      expect(response.status, response.body).toBe(415);
      expect(JSON.parse(response.body).error.code).toBe("unsupported_media_type");
    }
    const events = await app.inject({ method: "GET", url: "/v2/events", headers: bearer(secret) });
    const tests = (events.json() as { data: Array<{ type: string; data: { object?: { id?: string } } }> })
      .data;
    expect(JSON.stringify(tests)).not.toContain(endpoint.id);
    const after = await app.inject({
      method: "GET",
      url: `/v2/webhooks/${endpoint.id}`,
      headers: bearer(secret),
    });
    expect(after.json()).toMatchObject({ secret: endpoint.secret });
  });

  it("still refuses JSON that is only whitespace or not JSON at all with 400", async () => {
    const endpoint = await createEndpoint();
    for (const body of [" ", "{"]) {
      const response = await send(
        `/v2/webhooks/${endpoint.id}/rotate-secret`,
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(response.status, response.body).toBe(400);
      expect(JSON.parse(response.body).error.code).toBe("invalid_request");
    }
  });

  it("answers an unknown address 404 whatever its body", async () => {
    for (const request of ["\r\n", "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"]) {
      expect((await send("/v2/nothing-here", request)).status).toBe(404);
    }
    expect(
      (await send("/v2/nothing-here", "Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n")).status,
    ).toBe(404);
  });
});
