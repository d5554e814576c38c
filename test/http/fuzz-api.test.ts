import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.js";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { Dialect } from "../../src/db/schema.js";
import type { App } from "../../src/http/types.js";
import { createKey } from "../../src/keys/keys.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { openTestContext, UNLIMITED_REQUESTS } from "../helpers/context.js";
import { type SignedIn, signIn } from "../helpers/dashboard.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { registerDlt, TEST_ENTITY_ID } from "../helpers/dlt-fixtures.js";
import { createAccountWithKey, TEST_PASSWORD } from "../helpers/fixtures.js";
import {
  answerProblem,
  authorizations,
  contentTypes,
  type FuzzBody,
  fuzzBody,
  headerText,
  idempotencyKeys,
  type Json,
  nastyString,
  serialize,
} from "../helpers/fuzz.js";
import { listRoutes, type RouteEntry } from "../helpers/routes.js";

/**
 * Property-based fuzzing of every route of the public API and of the dashboard API that takes a
 * body or changes something: arbitrary JSON, valid bodies with one field broken, raw text, and
 * random headers. Whatever comes in, no answer is a 5xx, every error is exactly the envelope of
 * docs/api-reference.md#errors and no body shows a stack trace or SQL. Routes are read from the app, so routes
 * added later are fuzzed too (with `{}` as their valid body until one is written below).
 */

const BODY_RUNS = 30;
const HEADER_RUNS = 15;
const OTP_TEMPLATE = "1107161234567890123";
const ORDER_TEMPLATE = "1107161234567890124";
const SENDER = "DAKIYA";

const FUZZED_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const ROUTES = (await discoverRoutes()).filter(
  (route) =>
    FUZZED_METHODS.has(route.method) &&
    (route.path.startsWith("/v2/") || route.path.startsWith("/dashboard/api/")) &&
    // Signing out would end the session the other dashboard routes are fuzzed with.
    !(route.method === "DELETE" && route.path === "/dashboard/api/session"),
);

/** The app's routes, from an app built on a throwaway database. */
async function discoverRoutes(): Promise<RouteEntry[]> {
  const database = await createTestDatabase("sqlite");
  const ctx = await openTestContext(database.url);
  try {
    const app = await buildApp(ctx);
    await app.ready();
    const routes = listRoutes(app);
    await app.close();
    return routes;
  } finally {
    await ctx.close();
    await database.drop();
  }
}

const mobile = fc
  .tuple(fc.integer({ min: 6, max: 9 }), fc.integer({ min: 0, max: 999_999_999 }))
  .map(([first, rest]) => `+91${first}${String(rest).padStart(9, "0")}`);
const otpCode = fc.stringMatching(/^[0-9]{4,10}$/);
const smsBody = fc.record(
  {
    to: mobile,
    sender: fc.constantFrom(SENDER, SENDER.toLowerCase()),
    template_id: fc.constant(ORDER_TEMPLATE),
    variables: fc.record({ name: fc.constantFrom("Asha", "आशा"), order: fc.stringMatching(/^[0-9]{1,8}$/) }),
    reference: fc.string({ maxLength: 64 }),
  },
  { requiredKeys: ["to", "sender", "template_id", "variables"] },
);

// Public addresses, written as IPs: creating an endpoint resolves its host, and tests stay offline.
const webhookBody: fc.Arbitrary<Json> = fc.record(
  {
    url: fc.constantFrom("https://1.1.1.1/dakiya", "https://1.0.0.1/hooks?x=1"),
    events: fc.constantFrom<string[]>(["sms.delivered"], ["*"], ["otp.verified", "sms.failed"]),
    description: fc.string({ maxLength: 30 }),
  },
  { requiredKeys: ["url", "events"] },
);
const webhookChange: fc.Arbitrary<Json> = fc.record(
  { status: fc.constantFrom("enabled", "disabled"), description: fc.string({ maxLength: 30 }) },
  { requiredKeys: [] },
);

interface Fixture {
  app: App;
  sandboxKey: string;
  liveKey: string;
  session: SignedIn;
  dashboardEmail: string;
  /** A valid value of each path parameter, by the route's path prefix, where the fixture has one. */
  params: Array<{ prefix: string; name: string; value: string }>;
}

/** Valid bodies of each route; a route missing here is fuzzed from `{}`. */
function validBodies(fixture: Fixture): Record<string, fc.Arbitrary<Json>> {
  return {
    "POST /v2/sms/send": smsBody,
    "POST /v2/sms/batch": fc.array(smsBody, { minLength: 1, maxLength: 3 }).map((messages) => ({ messages })),
    "POST /v2/otp/send": fc.record(
      { to: mobile, channel: fc.constant("sms"), code: otpCode, length: fc.integer({ min: 4, max: 10 }) },
      { requiredKeys: ["to"] },
    ),
    "POST /v2/otp/verify": fc.record({ to: mobile, code: otpCode }),
    "POST /v2/webhooks": webhookBody,
    "PATCH /v2/webhooks/:id": webhookChange,
    "POST /v2/webhooks/:id/replay": fc.constant({ since: "2026-11-22T09:00:00Z" }),
    "POST /dashboard/api/webhooks": webhookBody,
    "PATCH /dashboard/api/webhooks/:id": webhookChange,
    "POST /dashboard/api/webhooks/:id/replay": fc.constant({ since: "2026-11-22T09:00:00Z" }),
    "POST /dashboard/api/setup": fc.constant({ email: "first@example.com", password: TEST_PASSWORD }),
    "POST /dashboard/api/session": fc.record({
      email: fc.constant(fixture.dashboardEmail),
      password: fc.constantFrom(TEST_PASSWORD, "not the password"),
    }),
    "POST /dashboard/api/senders": fc.stringMatching(/^[A-Z]{6}$/).map((sender) => ({ sender })),
    "POST /dashboard/api/templates": fc.record({
      template_id: fc.stringMatching(/^[0-9]{19}$/),
      entity_id: fc.constant(TEST_ENTITY_ID),
      name: fc.constant("Fuzzed"),
      category: fc.constantFrom("transactional", "service_implicit", "service_explicit", "promotional"),
      senders: fc.constant<string[]>([SENDER]),
      content: fc.constantFrom("Your code is {#otp#}.", "Hi {#var#}, order {#var#} is ready."),
    }),
    "POST /dashboard/api/templates/:template_id/status": fc
      .constantFrom("active", "inactive")
      .map((status) => ({ status })),
    "POST /dashboard/api/keys": fc.record(
      { environment: fc.constantFrom("live", "sandbox"), label: fc.string({ maxLength: 20 }) },
      { requiredKeys: ["environment"] },
    ),
    "POST /dashboard/api/keys/:id/rotate": fc
      .constantFrom(0, 3_600, 86_400, 604_800)
      .map((grace) => ({ grace_seconds: grace })),
    "POST /dashboard/api/sandbox/credits": fc.constantFrom("1.00", "100.0000").map((amount) => ({ amount })),
    "PATCH /dashboard/api/otp-settings": fc.record(
      {
        expiry_seconds: fc.integer({ min: 10, max: 3_600 }),
        max_attempts: fc.integer({ min: 1, max: 20 }),
        length: fc.integer({ min: 4, max: 10 }),
        test_numbers: fc.dictionary(mobile, otpCode, { maxKeys: 2 }),
      },
      { requiredKeys: [] },
    ),
  };
}

/** The query string of a route: the environment for dashboard routes that need one. */
function queryOf(route: RouteEntry): fc.Arbitrary<string> {
  if (route.path === "/dashboard/api/otp-settings") return fc.constant("?environment=sandbox");
  if (route.path.startsWith("/dashboard/api/")) {
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant("?environment=sandbox") },
      { weight: 1, arbitrary: fc.constantFrom("", "?environment=live", "?environment=") },
    );
  }
  return fc.constant("");
}

/** Percent-encodes any string, lone surrogates included (as U+FFFD, the way a client's UTF-8 would). */
function pathSegment(value: string): string {
  return [...Buffer.from(value, "utf8")]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9_.~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
}

/** The route's path with each parameter valid (when the fixture has a value) or fuzzed. */
function pathOf(route: RouteEntry, fixture: Fixture, fuzzParams: boolean): fc.Arbitrary<string> {
  const segments = route.path.split("/").map((segment) => {
    if (!segment.startsWith(":")) return fc.constant(segment);
    const valid = fixture.params.find(
      (param) => route.path.startsWith(param.prefix) && param.name === segment.slice(1),
    )?.value;
    const fuzzed = nastyString.filter((s) => s !== "").map(pathSegment);
    if (valid === undefined) return fuzzed;
    return fuzzParams ? fc.oneof(fc.constant(valid), fuzzed) : fc.constant(valid);
  });
  return fc.tuple(...segments).map((parts) => parts.join("/"));
}

function isDashboard(route: RouteEntry): boolean {
  return route.path.startsWith("/dashboard/api/");
}

/** The headers a well-behaved client sends to `route`. */
function validHeaders(route: RouteEntry, fixture: Fixture, hasBody: boolean): Record<string, string> {
  return {
    ...(hasBody ? { "content-type": "application/json" } : {}),
    ...(isDashboard(route)
      ? { cookie: fixture.session.cookie, "x-csrf-token": fixture.session.csrf }
      : { authorization: `Bearer ${fixture.sandboxKey}` }),
  };
}

/** Marks a header left as a well-behaved client sends it. */
const KEEP = "(keep)";
type HeaderChanges = Record<string, string | undefined>;

/** Mostly keeps the header, so that requests with one or two odd headers get past the others. */
function sometimes(values: fc.Arbitrary<string | undefined>): fc.Arbitrary<string | undefined> {
  return fc.oneof({ weight: 2, arbitrary: fc.constant(KEEP) }, { weight: 1, arbitrary: values });
}

/** The valid headers with some of them changed or left out. */
function fuzzedHeaders(
  route: RouteEntry,
  fixture: Fixture,
  hasBody: boolean,
): fc.Arbitrary<Record<string, string>> {
  const valid = validHeaders(route, fixture, hasBody);
  return headerChanges(route, fixture).map((changes) => {
    const headers: Record<string, string | undefined> = { ...valid };
    for (const [name, value] of Object.entries(changes)) if (value !== KEEP) headers[name] = value;
    return withoutUndefined(headers);
  });
}

/** Random values for the headers `route` reads (`undefined`: the header is left out). */
function headerChanges(route: RouteEntry, fixture: Fixture): fc.Arbitrary<HeaderChanges> {
  const common = {
    "content-type": sometimes(contentTypes),
    "x-request-id": sometimes(fc.option(headerText(140), { nil: undefined })),
    accept: sometimes(fc.constantFrom(undefined, "application/xml", "*/*", "")),
  };
  if (!isDashboard(route)) {
    return fc.record({
      ...common,
      authorization: sometimes(fc.oneof(authorizations(fixture.sandboxKey), authorizations(fixture.liveKey))),
      "idempotency-key": sometimes(idempotencyKeys),
      cookie: sometimes(fc.option(headerText(60), { nil: undefined })),
    });
  }
  const { cookie, csrf } = fixture.session;
  const token = cookie.split("=")[1] ?? "";
  return fc.record({
    ...common,
    cookie: sometimes(
      fc.oneof(
        fc.constantFrom(
          cookie,
          undefined,
          "dakiya_session=",
          `dakiya_session=${token}x`,
          `dakiya_session=${token.toUpperCase()}`,
          `${cookie}; other=1`,
          `other=1; ${cookie}`,
          `${cookie}; ${cookie}x`,
        ),
        headerText(80).map((text) => `dakiya_session=${text}`),
        headerText(80),
      ),
    ),
    "x-csrf-token": sometimes(
      fc.oneof(
        fc.constantFrom(undefined, "", `${csrf}x`, csrf.slice(0, -1), csrf.toUpperCase(), ` ${csrf}`),
        headerText(60),
      ),
    ),
    origin: sometimes(
      fc.oneof(
        fc.constantFrom("http://localhost:80", "http://localhost", "https://evil.example", "null"),
        headerText(30),
      ),
    ),
  });
}

function withoutUndefined(headers: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** A webhook endpoint's id, when the app has webhook routes (their `:id` then has a valid value). */
async function createWebhook(
  app: App,
  url: string,
  headers: Record<string, string>,
): Promise<string | undefined> {
  const response = await app.inject({
    method: "POST",
    url,
    headers,
    payload: { url: "https://1.1.1.1/dakiya", events: ["*"] },
  });
  return response.statusCode === 201 ? response.json<{ id: string }>().id : undefined;
}

async function check(
  fixture: Fixture,
  request: { method: string; url: string; headers: Record<string, string>; body?: FuzzBody },
): Promise<void> {
  const response = await fixture.app.inject({
    method: request.method as "POST",
    url: request.url,
    headers: request.headers,
    ...(request.body === undefined ? {} : { payload: serialize(request.body) }),
  });
  const problem = answerProblem({
    statusCode: response.statusCode,
    headers: response.headers,
    body: response.body,
  });
  if (problem) throw new Error(`${request.method} ${request.url}: ${problem}`);
}

describe.each(DIALECTS)("fuzzing the HTTP API on %s", (dialect: Dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let fixture: Fixture;
  let bodies: Record<string, fc.Arbitrary<Json>>;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    // Request limits high enough that the fuzzing reaches the routes (429s are still checked).
    ctx = await openTestContext(database.url, {
      env: UNLIMITED_REQUESTS,
    });
    const app = await buildApp(ctx);
    await app.ready();

    const api = await createAccountWithKey(ctx, "sandbox", 1_000_000_000);
    const live = await createKey(ctx, { accountId: api.accountId, environment: "live" }, CLI_ORIGIN);
    await registerDlt(ctx, api.accountId, {
      senders: [SENDER],
      templates: [
        { templateId: OTP_TEMPLATE, content: "{#otp#} is your Dakiya code. Do not share it." },
        { templateId: ORDER_TEMPLATE, content: "Dear {#name#}, your order {#order#} is ready." },
      ],
    });
    await updateOtpSettings(
      ctx,
      api.accountId,
      "sandbox",
      {
        sms_template_id: OTP_TEMPLATE,
        sms_sender: SENDER,
        resend_cooldown_seconds: 0,
      },
      CLI_ORIGIN,
    );

    // The dashboard is fuzzed as another account, so what it changes leaves the API's account alone.
    const dashboardEmail = `fuzz-${Date.now()}@example.com`;
    const owner = await createAccount(ctx, { email: dashboardEmail, password: TEST_PASSWORD });
    await registerDlt(ctx, owner.id, {
      senders: [SENDER],
      templates: [{ templateId: OTP_TEMPLATE, content: "{#otp#} is your code." }],
    });
    const ownerKey = await createKey(ctx, { accountId: owner.id, environment: "sandbox" }, CLI_ORIGIN);
    const session = await signIn(app, dashboardEmail, TEST_PASSWORD);
    const apiWebhook = await createWebhook(app, "/v2/webhooks", { authorization: `Bearer ${api.secret}` });
    const dashboardWebhook = await createWebhook(app, "/dashboard/api/webhooks?environment=sandbox", {
      cookie: session.cookie,
      "x-csrf-token": session.csrf,
    });
    fixture = {
      app,
      sandboxKey: api.secret,
      liveKey: live.secret,
      session,
      dashboardEmail,
      params: [
        { prefix: "/dashboard/api/keys/", name: "id", value: ownerKey.id },
        { prefix: "/dashboard/api/templates/", name: "template_id", value: OTP_TEMPLATE },
        // A sender the account does not have: removing it must not remove the one the others use.
        { prefix: "/dashboard/api/senders/", name: "sender", value: "ZZZZZZ" },
        ...(apiWebhook ? [{ prefix: "/v2/webhooks/", name: "id", value: apiWebhook }] : []),
        ...(dashboardWebhook
          ? [{ prefix: "/dashboard/api/webhooks/", name: "id", value: dashboardWebhook }]
          : []),
      ],
    };
    bodies = validBodies(fixture);
  });

  afterAll(async () => {
    await fixture?.app.close();
    await ctx?.close();
    await database?.drop();
  });

  it("finds the public API's routes", () => {
    const names = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(names).toEqual(
      expect.arrayContaining(["POST /v2/sms/send", "POST /v2/otp/send", "POST /v2/otp/verify"]),
    );
    expect(names.some((name) => name.includes("/dashboard/api/"))).toBe(true);
  });

  describe.each(ROUTES)("$method $path", (route) => {
    const name = `${route.method} ${route.path}`;
    const hasBody = BODY_METHODS.has(route.method);

    it.runIf(hasBody)("answers any body with a 2xx, 3xx or 4xx in the envelope", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            path: pathOf(route, fixture, true),
            query: queryOf(route),
            body: fuzzBody(bodies[name] ?? fc.constant({})),
          }),
          ({ path, query, body }) =>
            check(fixture, {
              method: route.method,
              url: `${path}${query}`,
              headers: validHeaders(route, fixture, true),
              body,
            }),
        ),
        { numRuns: BODY_RUNS },
      );
    });

    it("answers any headers and path parameters in the envelope", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            path: pathOf(route, fixture, true),
            query: queryOf(route),
            headers: fuzzedHeaders(route, fixture, hasBody),
            body: (bodies[name] ?? fc.constant({})).map((json) => ({ json })),
          }),
          ({ path, query, headers, body }) =>
            check(fixture, {
              method: route.method,
              url: `${path}${query}`,
              headers,
              ...(hasBody ? { body } : {}),
            }),
        ),
        { numRuns: HEADER_RUNS },
      );
    });
  });
});
