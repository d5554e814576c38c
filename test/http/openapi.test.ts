import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { DASHBOARD_ERROR_CODES } from "../../src/errors.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  example?: unknown;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: {
    content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Schema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
}
interface OpenApiDocument {
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ["get", "post", "put", "patch", "delete"];

function operationsOf(
  document: OpenApiDocument,
): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

async function documentOf(env: NodeJS.ProcessEnv = {}): Promise<OpenApiDocument> {
  const ctx = await openTestContext("sqlite::memory:", { env });
  try {
    const app = await buildApp(ctx);
    const response = await app.inject({ method: "GET", url: "/openapi.json" });
    await app.close();
    return response.json<OpenApiDocument>();
  } finally {
    await ctx.close();
  }
}

/** The success schema of an operation, by dotted path to a property. */
function successProperty(operation: Operation, path: string): Schema | undefined {
  const success = Object.entries(operation.responses).find(([status]) => status.startsWith("2"))?.[1];
  let schema = success?.content?.["application/json"]?.schema;
  for (const name of path.split(".")) schema = name === "[]" ? schema?.items : schema?.properties?.[name];
  return schema;
}

describe("the OpenAPI document", () => {
  let document: OpenApiDocument;

  beforeAll(async () => {
    // The WhatsApp provider's callbacks exist only when it is configured: they must stay out too.
    document = await documentOf({
      WHATSAPP_TOKEN: "token",
      WHATSAPP_PHONE_NUMBER_ID: "123",
      WHATSAPP_APP_SECRET: "secret",
      WHATSAPP_VERIFY_TOKEN: "verify",
    });
  });

  it("gives every operation a unique operationId and a described tag", () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(15);
    const ids = operations.map(({ operation }) => operation.operationId);
    for (const { method, path, operation } of operations) {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.tags, `${method} ${path}`).toHaveLength(1);
    }
    expect(new Set(ids).size).toBe(ids.length);
    const described = new Set(document.tags.filter((tag) => tag.description).map((tag) => tag.name));
    for (const { operation } of operations) expect(described).toContain(operation.tags?.[0]);
  });

  it("documents 401 and 429 on every /v2/ operation, and Idempotency-Key on every POST", () => {
    for (const { method, path, operation } of operationsOf(document)) {
      if (!path.startsWith("/v2/")) continue;
      expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
        expect.arrayContaining(["401", "429"]),
      );
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const code = response.content?.["application/json"]?.schema.properties?.error?.properties?.code;
        expect(code?.enum?.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
      }
      const headers = (operation.parameters ?? []).filter((p) => p.in === "header").map((p) => p.name);
      expect(headers.includes("Idempotency-Key"), `${method} ${path}`).toBe(method === "post");
    }
  });

  it("keeps the dashboard's routes, its error codes and the providers' callbacks out", () => {
    const paths = Object.keys(document.paths);
    expect(paths.filter((path) => !path.startsWith("/v2/"))).toEqual(["/healthz", "/readyz"]);
    const text = JSON.stringify(document);
    for (const code of DASHBOARD_ERROR_CODES) expect(text).not.toContain(`"${code}"`);
  });

  it("lists statuses, verify reasons and channels as enums", () => {
    const operation = (path: string, method: string) => document.paths[path]?.[method] as Operation;
    expect(successProperty(operation("/v2/otp/verify", "post"), "reason")?.enum).toEqual([
      "approved",
      "incorrect_code",
      "expired",
      "max_attempts_reached",
      "already_verified",
      "not_found",
    ]);
    const statuses = [
      successProperty(operation("/v2/sms/send", "post"), "status"),
      successProperty(operation("/v2/sms", "get"), "data.[].status"),
      successProperty(operation("/v2/otp/send", "post"), "status"),
      successProperty(operation("/v2/otp/{id}", "get"), "status"),
      successProperty(operation("/v2/otp/{id}", "get"), "deliveries.[].status"),
      successProperty(operation("/v2/webhooks/{id}", "get"), "status"),
      successProperty(operation("/v2/otp/send", "post"), "channel"),
      successProperty(operation("/v2/events", "get"), "data.[].type"),
    ];
    for (const schema of statuses) {
      expect(schema?.type).toBe("string");
      expect(schema?.enum?.length).toBeGreaterThan(1);
    }
  });

  it("names the server from PUBLIC_URL, or the one that serves it", async () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: "/" })]);
    const behindProxy = await documentOf({ PUBLIC_URL: "https://sms.example.in/" });
    expect(behindProxy.servers).toEqual([expect.objectContaining({ url: "https://sms.example.in" })]);
  });
});

/** The order the examples are sent in: what an operation needs is made by one before it. */
const ORDER = [
  "getHealth",
  "getReadiness",
  "getBalance",
  "sendSms",
  "sendSmsBatch",
  "getSms",
  "listSms",
  "cancelSms",
  "sendOtp",
  "verifyOtp",
  "getOtp",
  "listEvents",
  "reportMessages",
  "reportOtp",
  "createWebhookEndpoint",
  "listWebhookEndpoints",
  "getWebhookEndpoint",
  "updateWebhookEndpoint",
  "rotateWebhookSecret",
  "sendWebhookTestEvent",
  "listWebhookAttempts",
  "replayWebhookEvents",
  "deleteWebhookEndpoint",
  "listSandboxMessages",
];

/** Which earlier answer an operation's `{id}` comes from. */
const ID_FROM: Record<string, string> = {
  getSms: "sendSms",
  cancelSms: "sendSms",
  getOtp: "sendOtp",
  getWebhookEndpoint: "createWebhookEndpoint",
  updateWebhookEndpoint: "createWebhookEndpoint",
  rotateWebhookSecret: "createWebhookEndpoint",
  sendWebhookTestEvent: "createWebhookEndpoint",
  listWebhookAttempts: "createWebhookEndpoint",
  replayWebhookEvents: "createWebhookEndpoint",
  deleteWebhookEndpoint: "createWebhookEndpoint",
};

describe.each(DIALECTS)("every request example of the document, sent as it is, on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  let server: RunningServer;
  let secret: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url);
    // The webhook examples name example.com: answer its lookup with a public address, offline.
    ctx.outboundWebhooks.lookup = async () => [{ address: "93.184.215.14", family: 4 }];
    const app = await buildApp(ctx);
    server = await startServer(app, ctx, { host: "127.0.0.1", port: 0 });
    const account = await createAccountWithKey(ctx, "sandbox", 1_000_000);
    secret = account.secret;
    // The README walk-through's registrations, which the examples are written for.
    await registerDlt(ctx, account.accountId, {
      senders: ["DAKIYA"],
      templates: [
        {
          templateId: "1107161234567890123",
          content: "Your Dakiya login code is {#var#}. Valid for {#var#} minutes. Do not share it.",
        },
        {
          templateId: "1107161234567890999",
          content: "Your Dakiya verification code is {#otp#}. Do not share it with anyone.",
        },
      ],
    });
    await updateOtpSettings(
      ctx,
      account.accountId,
      "sandbox",
      {
        sms_template_id: "1107161234567890999",
        sms_sender: "DAKIYA",
      },
      CLI_ORIGIN,
    );
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("gets a 2xx answer for each, operation by operation", async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    const operations = operationsOf(document);
    expect(operations.map(({ operation }) => operation.operationId).sort()).toEqual([...ORDER].sort());

    const firstAnswer = new Map<string, { id: string }>();
    let examplesSent = 0;
    for (const operationId of ORDER) {
      const found = operations.find(({ operation }) => operation.operationId === operationId);
      if (!found) throw new Error(`no operation ${operationId}`);
      const { method, path, operation } = found;

      const idSource = ID_FROM[operationId];
      const id = idSource ? firstAnswer.get(idSource)?.id : undefined;
      if (path.includes("{id}") && !id) throw new Error(`${operationId} needs an id from ${idSource}`);
      const query = new URLSearchParams();
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === "query" && parameter.example !== undefined) {
          query.set(parameter.name, String(parameter.example));
        }
      }
      const url = `${server.url}${path.replace("{id}", id ?? "")}${query.size ? `?${query}` : ""}`;

      const media = operation.requestBody?.content["application/json"];
      const bodies = media?.examples
        ? Object.values(media.examples).map((example) => example.value)
        : media?.example !== undefined
          ? [media.example]
          : [undefined];
      if (operation.requestBody) expect(bodies[0], `${operationId} has a request example`).toBeDefined();

      for (const body of bodies) {
        const response = await fetch(url, {
          method: method.toUpperCase(),
          headers: {
            ...(path.startsWith("/v2/") ? bearer(secret) : {}),
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const answer = await response.text();
        expect(
          response.status,
          `${method.toUpperCase()} ${url} ${JSON.stringify(body)}: ${answer}`,
        ).toBeGreaterThanOrEqual(200);
        expect(
          response.status,
          `${method.toUpperCase()} ${url} ${JSON.stringify(body)}: ${answer}`,
        ).toBeLessThan(300);
        if (!firstAnswer.has(operationId)) firstAnswer.set(operationId, JSON.parse(answer));
        examplesSent++;
      }
    }
    expect(examplesSent).toBeGreaterThan(ORDER.length);

    // The verify example checks the code the own-code send example chose: it is approved.
    const verify = await fetch(`${server.url}/v2/otp/verify`, {
      method: "POST",
      headers: { ...bearer(secret), "content-type": "application/json" },
      body: JSON.stringify({ to: "+919876543213", code: "482913" }),
    });
    expect(await verify.json()).toMatchObject({ verified: false, reason: "already_verified" });
  });
});
