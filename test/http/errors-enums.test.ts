import Ajv from "ajv";
import { Type } from "typebox";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { TEMPLATE_CATEGORIES } from "../../src/db/schema.js";
import { EVENT_TYPES } from "../../src/events/outbox.js";
import type { App } from "../../src/http/types.js";
import { type AjvIssue, describeAllowed } from "../../src/http/validation-messages.js";
import { type SignedIn, signIn } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { bearer, createAccountWithKey, TEST_PASSWORD } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

const CHANNELS = "sms, whatsapp, voice";
const STATUSES = "scheduled, queued, submitted, delivered, undelivered, failed, cancelled";
const ENVIRONMENTS = "live, sandbox";

/** What Ajv says when left to itself; none of it may reach a client. */
const AJV_WORDING = /equal to constant|allowed values|match a schema in anyOf/;

describe("describeAllowed: what a value outside a schema's allowed values must be", () => {
  const ajv = new Ajv.default({ allErrors: false, strict: false });
  const problem = (schema: object, value: unknown): string | undefined => {
    const validate = ajv.compile({ type: "object", properties: { field: schema } });
    expect(validate({ field: value })).toBe(false);
    const issues = (validate.errors ?? []) as AjvIssue[];
    return describeAllowed(issues, issues[0] as AjvIssue);
  };
  const channel = Type.Union([Type.Literal("sms"), Type.Literal("whatsapp"), Type.Literal("voice")]);

  it("names the values of a union of literals, whatever the wrong value's type", () => {
    for (const value of ["fax", "SMS", "", 5, true, null, ["sms"], { sms: 1 }]) {
      expect(problem(channel, value), JSON.stringify(value)).toBe(`must be one of ${CHANNELS}`);
    }
  });

  it("names the values of an enum, of a single literal, and of a nullable union", () => {
    expect(problem(Type.String({ enum: ["a", "b"] }), "c")).toBe("must be one of a, b");
    expect(problem(Type.Literal("INR"), "USD")).toBe("must be INR");
    expect(problem(Type.Union([Type.Literal(1), Type.Literal(2)]), 3)).toBe("must be one of 1, 2");
    expect(problem(Type.Union([channel, Type.Null()]), "fax")).toBe(`must be one of ${CHANNELS}, or null`);
  });

  it("says which types a union of plain types takes, and leaves a fitting type's own check to Ajv", () => {
    const label = Type.Union([Type.String({ maxLength: 3 }), Type.Null()]);
    expect(problem(label, 5)).toBe("must be a string or null");
    expect(problem(Type.Union([Type.String(), Type.Integer()]), true)).toBe("must be a string or an integer");
    expect(problem(label, "abcd")).toBeUndefined();
    expect(problem(Type.String({ maxLength: 1 }), "ab")).toBeUndefined();
    const objectOrLiteral = Type.Union([Type.Literal("all"), Type.Object({ n: Type.Integer() })]);
    expect(problem(objectOrLiteral, { n: "x" })).toBeUndefined();
  });
});

describe.each(DIALECTS)("enum errors name the allowed values, on /v2 and /dashboard/api (%s)", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let key: Record<string, string>;
  let session: SignedIn;

  beforeAll(async () => {
    ({ ctx, app } = instances);
    const account = await createAccountWithKey(ctx, "sandbox", 10_000_000);
    key = bearer(account.secret);
    const { email } = await ctx.db
      .selectFrom("accounts")
      .select("email")
      .where("id", "=", account.accountId)
      .executeTakeFirstOrThrow();
    session = await signIn(app, email, TEST_PASSWORD);
  });

  interface Case {
    method: "GET" | "POST" | "PATCH";
    url: string;
    payload?: object;
    param: string;
    allowed: string;
  }

  const v2: Case[] = [
    {
      method: "POST",
      url: "/v2/otp/send",
      payload: { to: "+919876543210", channel: "fax" },
      param: "channel",
      allowed: CHANNELS,
    },
    {
      method: "POST",
      url: "/v2/otp/send",
      payload: { to: "+919876543210", channel: 5 },
      param: "channel",
      allowed: CHANNELS,
    },
    {
      method: "POST",
      url: "/v2/otp/send",
      payload: { to: "+919876543210", fallback: "email" },
      param: "fallback",
      allowed: CHANNELS,
    },
    { method: "GET", url: "/v2/sms?status=sent", param: "status", allowed: STATUSES },
    { method: "GET", url: "/v2/events?type=sms.sent", param: "type", allowed: EVENT_TYPES.join(", ") },
    {
      method: "PATCH",
      url: "/v2/webhooks/whk_x",
      payload: { status: "paused" },
      param: "status",
      allowed: "enabled, disabled",
    },
  ];

  const dashboard: Case[] = [
    {
      method: "GET",
      url: "/dashboard/api/keys?environment=prod",
      param: "environment",
      allowed: ENVIRONMENTS,
    },
    {
      method: "POST",
      url: "/dashboard/api/keys",
      payload: { environment: "production" },
      param: "environment",
      allowed: ENVIRONMENTS,
    },
    {
      method: "GET",
      url: "/dashboard/api/overview?environment=test",
      param: "environment",
      allowed: ENVIRONMENTS,
    },
    {
      method: "GET",
      url: "/dashboard/api/messages?environment=sandbox&status=sent",
      param: "status",
      allowed: STATUSES,
    },
    {
      method: "GET",
      url: "/dashboard/api/messages?environment=sandbox&channel=fax",
      param: "channel",
      allowed: CHANNELS,
    },
    {
      method: "POST",
      url: "/dashboard/api/templates",
      payload: {
        template_id: "1",
        entity_id: "1",
        name: "n",
        category: "otp",
        senders: ["DAKIYA"],
        content: "x",
      },
      param: "category",
      allowed: TEMPLATE_CATEGORIES.join(", "),
    },
    {
      method: "PATCH",
      url: "/dashboard/api/templates/1",
      payload: { category: "marketing" },
      param: "category",
      allowed: TEMPLATE_CATEGORIES.join(", "),
    },
    {
      method: "POST",
      url: "/dashboard/api/templates/1/status",
      payload: { status: "paused" },
      param: "status",
      allowed: "active, inactive",
    },
    {
      method: "PATCH",
      url: "/dashboard/api/webhooks/whk_x?environment=sandbox",
      payload: { status: "paused" },
      param: "status",
      allowed: "enabled, disabled",
    },
    {
      method: "GET",
      url: "/dashboard/api/webhooks/whk_x/attempts?environment=staging",
      param: "environment",
      allowed: ENVIRONMENTS,
    },
  ];

  async function expectEnumError(request: Case, headers: Record<string, string>): Promise<void> {
    const response = await app.inject({
      method: request.method,
      url: request.url,
      headers,
      ...(request.payload ? { payload: request.payload } : {}),
    });
    const label = `${request.method} ${request.url}`;
    expect(response.statusCode, `${label}: ${response.body}`).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe("invalid_request");
    expect(error.param, label).toBe(request.param);
    expect(error.message, label).toBe(`${request.param} must be one of ${request.allowed}.`);
  }

  it("on the public API", async () => {
    for (const request of v2) await expectEnumError(request, key);
  });

  it("on the dashboard's API", async () => {
    const headers = { cookie: session.cookie, "x-csrf-token": session.csrf };
    for (const request of dashboard) await expectEnumError(request, headers);
  });

  it("never in Ajv's words, for a nullable field of the wrong type either", async () => {
    const headers = { cookie: session.cookie, "x-csrf-token": session.csrf };
    const label = await app.inject({
      method: "POST",
      url: "/dashboard/api/keys",
      headers,
      payload: { environment: "sandbox", label: 5 },
    });
    expect(label.statusCode).toBe(400);
    expect(label.json().error).toMatchObject({ param: "label", message: "label must be a string or null." });
    for (const request of [...v2, ...dashboard]) {
      const response = await app.inject({
        method: request.method,
        url: request.url,
        headers: request.url.startsWith("/v2/") ? key : headers,
        ...(request.payload ? { payload: request.payload } : {}),
      });
      expect(response.body).not.toMatch(AJV_WORDING);
    }
  });
});
