/**
 * The dashboard's webhook routes (docs/dashboard-api.md, Webhooks): the session's account and the
 * page's environment scope every operation, and every change needs the session's CSRF token.
 * Endpoints point at public IP literals, so no name is resolved; nothing is ever sent to them
 * (only the replay test runs a worker, while no delivery waits).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { createKey } from "../../src/keys/keys.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

const BASE = "/dashboard/api/webhooks";
const PUBLIC_URL = "https://1.1.1.1/hooks/dakiya";
const TEMPLATE_ID = "1107161234567890123";

describe.each(DIALECTS)("dashboard webhook routes on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  const newSession = (): Promise<SignedIn> => signedInAccount(ctx, app);

  async function createEndpoint(session: SignedIn, body: object = {}, environment = "sandbox") {
    const response = await dashboardRequest(app, session, "POST", `${BASE}?environment=${environment}`, {
      url: PUBLIC_URL,
      events: ["sms.delivered"],
      ...body,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string; secret: string; status: string }>();
  }

  /** A change request with the session's cookie but without its CSRF token. */
  function withoutCsrf(
    session: SignedIn,
    method: "POST" | "PATCH" | "DELETE",
    url: string,
    payload?: object,
  ) {
    return app.inject({
      method,
      url,
      headers: { cookie: session.cookie },
      ...(payload === undefined ? {} : { payload }),
    });
  }

  it("creates, reads, changes, rotates, tests and deletes an endpoint of the session's account", async () => {
    const owner = await newSession();
    const created = await createEndpoint(owner, {
      description: "orders",
      events: ["sms.delivered", "otp.verified"],
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^whk_/),
      environment: "sandbox",
      url: PUBLIC_URL,
      events: ["sms.delivered", "otp.verified"],
      description: "orders",
      status: "enabled",
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const path = `${BASE}/${created.id}`;

    const list = await dashboardRequest(app, owner, "GET", `${BASE}?environment=sandbox`);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((endpoint: { id: string }) => endpoint.id)).toEqual([created.id]);
    expect(list.body).not.toContain(created.secret);
    const read = await dashboardRequest(app, owner, "GET", `${path}?environment=sandbox`);
    expect(read.json()).toMatchObject({ id: created.id, secret: created.secret });

    const disabled = await dashboardRequest(app, owner, "PATCH", `${path}?environment=sandbox`, {
      status: "disabled",
      description: "",
    });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json()).toMatchObject({
      status: "disabled",
      disabled_reason: "manual",
      description: null,
    });
    expect(disabled.json()).not.toHaveProperty("secret");
    // A disabled endpoint takes no test event.
    const refusedTest = await dashboardRequest(app, owner, "POST", `${path}/test?environment=sandbox`, {});
    expect(refusedTest.statusCode).toBe(400);
    const enabled = await dashboardRequest(app, owner, "PATCH", `${path}?environment=sandbox`, {
      status: "enabled",
      events: ["*"],
    });
    expect(enabled.json()).toMatchObject({ status: "enabled", disabled_reason: null, events: ["*"] });

    const rotated = await dashboardRequest(
      app,
      owner,
      "POST",
      `${path}/rotate-secret?environment=sandbox`,
      {},
    );
    expect(rotated.statusCode).toBe(200);
    const newSecret = rotated.json().secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(created.secret);
    expect((await dashboardRequest(app, owner, "GET", `${path}?environment=sandbox`)).json().secret).toBe(
      newSecret,
    );

    const tested = await dashboardRequest(app, owner, "POST", `${path}/test?environment=sandbox`, {});
    expect(tested.statusCode).toBe(202);
    expect(tested.json()).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: "webhook.test",
      environment: "sandbox",
      data: { webhook_id: created.id },
    });
    const queued = await ctx.db
      .selectFrom("webhook_deliveries")
      .select(["event_id", "state"])
      .where("endpoint_id", "=", created.id)
      .execute();
    expect(queued).toEqual([{ event_id: tested.json().id, state: "pending" }]);

    const attempts = await dashboardRequest(
      app,
      owner,
      "GET",
      `${path}/attempts?environment=sandbox&limit=10`,
    );
    expect(attempts.statusCode).toBe(200);
    expect(attempts.json()).toEqual({ data: [], has_more: false });
    expect(
      (await dashboardRequest(app, owner, "GET", `${path}/attempts?environment=sandbox&limit=0`)).statusCode,
    ).toBe(400);

    const deleted = await dashboardRequest(app, owner, "DELETE", `${path}?environment=sandbox`);
    expect(deleted.statusCode).toBe(204);
    const gone = await dashboardRequest(app, owner, "GET", `${path}?environment=sandbox`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe("not_found");
  });

  it("replays the subscribed events since a time", async () => {
    const owner = await newSession();
    await registerDlt(ctx, owner.accountId, {
      templates: [{ templateId: TEMPLATE_ID, content: "Your order {#var#} has shipped." }],
    });
    const key = await createKey(ctx, { accountId: owner.accountId, environment: "sandbox" }, CLI_ORIGIN);
    await changeBalance(ctx, {
      accountId: owner.accountId,
      environment: "sandbox",
      amount: 1_000_000,
      reason: "credits_added",
      reference: null,
    });
    const since = instances.clock.now().toISOString();
    instances.clock.advance(1);
    // The message is delivered before this endpoint exists: only a replay can send its events.
    // The worker that delivers it also runs the webhook dispatcher: no delivery may be waiting
    // for it, so that nothing is ever posted to the public addresses of this file.
    expect(await ctx.db.selectFrom("webhook_deliveries").select("id").execute()).toEqual([]);
    const sent = await app.inject({
      method: "POST",
      url: "/v2/sms/send",
      headers: { authorization: `Bearer ${key.secret}` },
      payload: {
        to: "+919876543210",
        sender: "DAKIYA",
        template_id: TEMPLATE_ID,
        variables: { var1: "A-77" },
      },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    await drainQueue(ctx);

    const endpoint = await createEndpoint(owner, { events: ["sms.delivered"] });
    const replay = await dashboardRequest(
      app,
      owner,
      "POST",
      `${BASE}/${endpoint.id}/replay?environment=sandbox`,
      {
        since,
      },
    );
    expect(replay.statusCode).toBe(202);
    // sms.submitted happened too, but the endpoint does not subscribe to it.
    expect(replay.json()).toEqual({ webhook_id: endpoint.id, since, queued: 1 });
    const deliveries = await ctx.db
      .selectFrom("webhook_deliveries")
      .innerJoin("events", "events.id", "webhook_deliveries.event_id")
      .select(["events.type", "webhook_deliveries.state"])
      .where("webhook_deliveries.endpoint_id", "=", endpoint.id)
      .execute();
    expect(deliveries).toEqual([{ type: "sms.delivered", state: "pending" }]);

    const later = await dashboardRequest(
      app,
      owner,
      "POST",
      `${BASE}/${endpoint.id}/replay?environment=sandbox`,
      {
        since: new Date(instances.clock.now().getTime() + 60_000).toISOString(),
      },
    );
    expect(later.json().queued).toBe(0);
    const malformed = await dashboardRequest(
      app,
      owner,
      "POST",
      `${BASE}/${endpoint.id}/replay?environment=sandbox`,
      {
        since: "yesterday",
      },
    );
    expect(malformed.statusCode).toBe(400);
  });

  it("needs the CSRF token for every change, and changes nothing without it", async () => {
    const owner = await newSession();
    const endpoint = await createEndpoint(owner);
    const path = `${BASE}/${endpoint.id}`;
    const attempts: Array<[method: "POST" | "PATCH" | "DELETE", url: string, payload?: object]> = [
      ["POST", `${BASE}?environment=sandbox`, { url: PUBLIC_URL, events: ["*"] }],
      ["PATCH", `${path}?environment=sandbox`, { status: "disabled" }],
      ["DELETE", `${path}?environment=sandbox`],
      ["POST", `${path}/rotate-secret?environment=sandbox`, {}],
      ["POST", `${path}/test?environment=sandbox`, {}],
      ["POST", `${path}/replay?environment=sandbox`, { since: "2026-01-01T00:00:00Z" }],
    ];
    for (const [method, url, payload] of attempts) {
      const response = await withoutCsrf(owner, method, url, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().error.code).toBe("csrf_rejected");
    }
    // A page of another site is refused even with the token.
    const foreign = await app.inject({
      method: "POST",
      url: `${path}/rotate-secret?environment=sandbox`,
      headers: { cookie: owner.cookie, "x-csrf-token": owner.csrf, origin: "https://evil.example" },
      payload: {},
    });
    expect(foreign.statusCode).toBe(403);

    const after = await dashboardRequest(app, owner, "GET", `${path}?environment=sandbox`);
    expect(after.json()).toMatchObject({ status: "enabled", secret: endpoint.secret });
    const list = await dashboardRequest(app, owner, "GET", `${BASE}?environment=sandbox`);
    expect(list.json().data).toHaveLength(1);
    const events = await ctx.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("endpoint_id", "=", endpoint.id)
      .execute();
    expect(events).toEqual([]);

    const signedOut = await app.inject({ method: "GET", url: `${BASE}?environment=sandbox` });
    expect(signedOut.statusCode).toBe(401);
    expect(signedOut.json().error.code).toBe("not_signed_in");
  });

  it("answers not_found for another account's endpoint and for the other environment", async () => {
    const owner = await newSession();
    const stranger = await newSession();
    const endpoint = await createEndpoint(owner);
    const path = `${BASE}/${endpoint.id}`;
    const operations = (
      environment: string,
    ): Array<[method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object]> => [
      ["GET", `${path}?environment=${environment}`],
      ["PATCH", `${path}?environment=${environment}`, { status: "disabled" }],
      ["POST", `${path}/rotate-secret?environment=${environment}`, {}],
      ["POST", `${path}/test?environment=${environment}`, {}],
      ["GET", `${path}/attempts?environment=${environment}`],
      ["POST", `${path}/replay?environment=${environment}`, { since: "2026-01-01T00:00:00Z" }],
      ["DELETE", `${path}?environment=${environment}`],
    ];
    for (const [session, environment] of [
      [stranger, "sandbox"],
      [stranger, "live"],
      [owner, "live"],
    ] as const) {
      for (const [method, url, payload] of operations(environment)) {
        const response = await dashboardRequest(app, session, method, url, payload);
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.json().error.code).toBe("not_found");
        expect(response.body).not.toContain(endpoint.secret);
      }
    }
    for (const [session, environment] of [
      [stranger, "sandbox"],
      [owner, "live"],
    ] as const) {
      const list = await dashboardRequest(app, session, "GET", `${BASE}?environment=${environment}`);
      expect(list.json()).toEqual({ data: [] });
    }

    // Untouched by all of that.
    const after = await dashboardRequest(app, owner, "GET", `${path}?environment=sandbox`);
    expect(after.json()).toMatchObject({ status: "enabled", secret: endpoint.secret });
  });

  it("refuses what the API refuses: no environment, private and plain-http live URLs, unknown events", async () => {
    const owner = await newSession();
    const noEnvironment = await dashboardRequest(app, owner, "GET", BASE);
    expect(noEnvironment.statusCode).toBe(400);

    const refusals: Array<[environment: string, body: object, param: string]> = [
      ["sandbox", { url: "http://127.0.0.1:8080/hook", events: ["*"] }, "url"],
      ["sandbox", { url: "http://169.254.169.254/latest/meta-data", events: ["*"] }, "url"],
      ["sandbox", { url: "http://localhost/hook", events: ["*"] }, "url"],
      ["live", { url: "http://1.1.1.1/hook", events: ["*"] }, "url"],
      ["sandbox", { url: PUBLIC_URL, events: ["sms.read"] }, "events.0"],
    ];
    for (const [environment, body, param] of refusals) {
      const response = await dashboardRequest(app, owner, "POST", `${BASE}?environment=${environment}`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error).toMatchObject({ code: "invalid_request", param });
    }
    const live = await createEndpoint(owner, {}, "live");
    expect(live).toMatchObject({ environment: "live", url: PUBLIC_URL });
    const list = await dashboardRequest(app, owner, "GET", `${BASE}?environment=sandbox`);
    expect(list.json()).toEqual({ data: [] });
  });
});
