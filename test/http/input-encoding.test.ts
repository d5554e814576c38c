import type { LightMyRequestResponse } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { dashboardRequest, type SignedIn, signIn } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey, TEST_PASSWORD } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/*
 * U+0000 and unpaired UTF-16 surrogates, wherever a request carries text: PostgreSQL cannot store
 * either (a NUL answered 500), and a lone surrogate was priced as one UCS-2 unit but stored as
 * U+FFFD. Both are refused up front with 400 invalid_request, on every dialect, storing nothing.
 */

const TEMPLATE = "1107161234567890123";
const TO = "+919876543210";
const HUNDRED_RUPEES = 1_000_000;

/** A JSON text as a client would write it, with `\u0000` / `\ud800` escapes kept as escapes. */
function sendBody(fields: { reference?: string; variables?: string }): string {
  const variables = fields.variables ?? '{"name":"Asha"}';
  const reference = fields.reference === undefined ? "" : `,"reference":"${fields.reference}"`;
  return `{"to":"${TO}","sender":"DAKIYA","template_id":"${TEMPLATE}","variables":${variables}${reference}}`;
}

function expectRefused(response: LightMyRequestResponse, param: string | undefined): void {
  expect(response.statusCode, response.body).toBe(400);
  const error = response.json().error;
  expect(error.code).toBe("invalid_request");
  if (param === undefined) expect(error).not.toHaveProperty("param");
  else expect(error.param).toBe(param);
  expect(error.message).toMatch(/NUL|surrogate/);
}

describe.each(DIALECTS)("NUL bytes and broken Unicode on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let account: { accountId: string; secret: string };
  let session: SignedIn;

  beforeAll(async () => {
    ({ ctx, app } = instances);
    account = await createAccountWithKey(ctx, "sandbox", HUNDRED_RUPEES);
    await registerDlt(ctx, account.accountId, {
      senders: ["DAKIYA"],
      templates: [{ templateId: TEMPLATE, content: "Hi {#name#}, your order has shipped." }],
    });
    await createAccount(ctx, { email: `owner-${dialect}@example.com`, password: TEST_PASSWORD });
    session = await signIn(app, `owner-${dialect}@example.com`, TEST_PASSWORD);
  });

  function postSend(payload: string): Promise<LightMyRequestResponse> {
    return app.inject({
      method: "POST",
      url: "/v2/sms/send",
      payload,
      headers: { "content-type": "application/json", ...bearer(account.secret) },
    });
  }

  function get(url: string): Promise<LightMyRequestResponse> {
    return app.inject({ method: "GET", url, headers: bearer(account.secret) });
  }

  /** The account's messages and sandbox balance: what a refused send must leave as it was. */
  async function stored(): Promise<{ messages: number; balance: number }> {
    const messages = await ctx.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.accountId)
      .execute();
    const balance = await ctx.db
      .selectFrom("balances")
      .select("balance")
      .where("account_id", "=", account.accountId)
      .where("environment", "=", "sandbox")
      .executeTakeFirstOrThrow();
    return { messages: messages.length, balance: Number(balance.balance) };
  }

  it("refuses a NUL in a body field, naming the field, and stores nothing", async () => {
    const before = await stored();
    expectRefused(await postSend(sendBody({ reference: "order\\u000077" })), "reference");
    expectRefused(await postSend(sendBody({ variables: '{"name":"As\\u0000ha"}' })), "variables.name");
    expectRefused(await postSend(sendBody({ variables: '{"name":"\\u0000"}' })), "variables.name");
    expect(await stored()).toEqual(before);
    // The same request without the NUL goes through.
    expect((await postSend(sendBody({ reference: "order77" }))).statusCode).toBe(202);
  });

  it("refuses a NUL in a body key", async () => {
    const before = await stored();
    expectRefused(await postSend(sendBody({ variables: '{"na\\u0000me":"Asha"}' })), "variables");
    expectRefused(
      await postSend(`{"to":"${TO}","sender":"DAKIYA","template_id":"${TEMPLATE}","\\u0000":"x"}`),
      undefined,
    );
    expect(await stored()).toEqual(before);
  });

  it("refuses a NUL in a path id, a query string and the raw address", async () => {
    expectRefused(await get("/v2/sms/%00x"), "id");
    expectRefused(await get("/v2/otp/otp_%00"), "id");
    expectRefused(await get("/v2/sandbox/messages?to=%00"), "to");
    expectRefused(await get("/v2/sandbox/messages?to=%2B91987654321%00"), "to");
    expectRefused(await get("/v2/nowhere%00"), undefined);
    expectRefused(
      await dashboardRequest(app, session, "GET", "/dashboard/api/messages/msg_%00?environment=sandbox"),
      "id",
    );
    expectRefused(
      await dashboardRequest(app, session, "GET", "/dashboard/api/messages?environment=sandbox&before=%00x"),
      "before",
    );
    expectRefused(
      await dashboardRequest(app, session, "DELETE", "/dashboard/api/senders/DAK%00YA"),
      "sender",
    );
  });

  it("answers an address whose percent-encoding is not UTF-8 (an encoded lone surrogate) in the error format", async () => {
    for (const url of ["/v2/sms/%ED%A0%80", "/v2/sms/%C0%80", "/v2/otp/%E0%A4"]) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error, url).toMatchObject({
        code: "invalid_request",
        request_id: expect.any(String),
      });
      expect(response.headers["x-request-id"]).toBe(response.json().error.request_id);
    }
  });

  it("refuses a NUL in the dashboard sign-in email, before any authentication", async () => {
    for (const url of ["/dashboard/api/session", "/dashboard/api/setup"]) {
      const response = await app.inject({
        method: "POST",
        url,
        payload: `{"email":"owner-${dialect}@example.com\\u0000","password":"${TEST_PASSWORD}"}`,
        headers: { "content-type": "application/json" },
      });
      expectRefused(response, "email");
    }
    const password = await app.inject({
      method: "POST",
      url: "/dashboard/api/session",
      payload: `{"email":"owner-${dialect}@example.com","password":"x\\u0000"}`,
      headers: { "content-type": "application/json" },
    });
    expectRefused(password, "password");
  });

  it("refuses a body that is not valid UTF-8, rather than storing U+FFFD in its place", async () => {
    const before = await stored();
    const bytes = (hex: string) => Buffer.from(hex.replace(/ /g, ""), "hex");
    const broken: Array<[string, Buffer]> = [
      ["a lone continuation byte", bytes("80")],
      ["a byte never in UTF-8", bytes("ff")],
      ["a sequence cut short", bytes("e0a4")],
      ["an encoded surrogate", bytes("eda080")],
      ["an overlong NUL", bytes("c080")],
      ["a code point beyond U+10FFFF", bytes("f4908080")],
    ];
    for (const [name, bad] of broken) {
      const [head, tail] = sendBody({ variables: '{"name":"As|ha"}' }).split("|");
      const body = Buffer.concat([Buffer.from(head ?? ""), bad, Buffer.from(tail ?? "")]);
      const response = await app.inject({
        method: "POST",
        url: "/v2/sms/send",
        payload: body,
        headers: { "content-type": "application/json", ...bearer(account.secret) },
      });
      expect(response.statusCode, `${name}: ${response.body}`).toBe(400);
      const { error } = response.json();
      expect(error, name).toMatchObject({
        code: "invalid_request",
        request_id: response.headers["x-request-id"],
      });
      expect(error).not.toHaveProperty("param");
      expect(error.message).toMatch(/UTF-8/);
      // In a field name, and on the dashboard's sign-in, before any password is compared.
      const inKey = await app.inject({
        method: "POST",
        url: "/dashboard/api/session",
        payload: Buffer.concat([
          Buffer.from('{"em'),
          bad,
          Buffer.from(`ail":"owner-${dialect}@example.com","password":"x"}`),
        ]),
        headers: { "content-type": "application/json" },
      });
      expect(inKey.statusCode, `${name}: ${inKey.body}`).toBe(400);
      expect(inKey.json().error.message).toMatch(/UTF-8/);
    }
    expect(await stored()).toEqual(before);

    // Well-formed UTF-8 goes through, U+FFFD itself included: it is a character like any other.
    const text = Buffer.from(sendBody({ variables: '{"name":"आशा \ufffd"}' }), "utf8");
    const accepted = await app.inject({
      method: "POST",
      url: "/v2/sms/send",
      payload: text,
      headers: { "content-type": "application/json", ...bearer(account.secret) },
    });
    expect(accepted.statusCode, accepted.body).toBe(202);
    expect(accepted.json().text).toBe("Hi आशा \ufffd, your order has shipped.");
  });

  it("refuses a lone surrogate in a variable, so what is priced is what is stored and sent", async () => {
    const before = await stored();
    expectRefused(await postSend(sendBody({ variables: '{"name":"\\ud800"}' })), "variables.name");
    expectRefused(await postSend(sendBody({ variables: '{"name":"A\\udc00sha"}' })), "variables.name");
    expectRefused(await postSend(sendBody({ variables: '{"name":"\\ude00\\ud83d"}' })), "variables.name");
    expectRefused(await postSend(sendBody({ variables: '{"\\ud800":"Asha"}' })), "variables");
    expectRefused(await postSend(sendBody({ reference: "\\udbff" })), "reference");
    expect(await stored()).toEqual(before);

    // A well-formed pair (an emoji) is text like any other: priced as UCS-2 and kept intact.
    const emoji = await postSend(sendBody({ variables: '{"name":"Asha \\ud83d\\ude00"}' }));
    expect(emoji.statusCode, emoji.body).toBe(202);
    expect(emoji.json()).toMatchObject({ text: "Hi Asha 😀, your order has shipped.", encoding: "ucs2" });
    const fetched = await get(`/v2/sms/${emoji.json().id}`);
    expect(fetched.json().text).toBe("Hi Asha 😀, your order has shipped.");
  });
});
