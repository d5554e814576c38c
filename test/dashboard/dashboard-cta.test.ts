/**
 * The dashboard API of the CTA whitelist (docs/dashboard-api.md): the signed-in
 * account's entries listed, added and removed, each change seen by the very next send (the
 * settings cache forgets the account), behind the session and its CSRF token.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { useTestInstances } from "../helpers/instances.js";

const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";

describe.each(DIALECTS)("dashboard CTA whitelist on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  /** A signed-in account with credits, a template with a link and a callback number, and a sandbox key. */
  async function sendingAccount() {
    const session = await signedInAccount(ctx, app);
    await dashboardRequest(app, session, "POST", "/dashboard/api/sandbox/credits", { amount: "100.00" });
    await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender: "DAKIYA" });
    const template = await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
      template_id: TEMPLATE_ID,
      entity_id: ENTITY_ID,
      name: "tracking",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Track {#url#} or call {#cbn#}.",
    });
    expect(template.statusCode, template.body).toBe(201);
    const key = (
      await dashboardRequest(app, session, "POST", "/dashboard/api/keys", { environment: "sandbox" })
    ).json<{ secret: string }>();
    const send = (url1: string, cbn1 = "1800-123-4567") =>
      app.inject({
        method: "POST",
        url: "/v2/sms/send",
        headers: { authorization: `Bearer ${key.secret}` },
        payload: {
          to: "+919876543210",
          sender: "DAKIYA",
          template_id: TEMPLATE_ID,
          variables: { url1, cbn1 },
        },
      });
    return { session, send };
  }

  const list = async (session: SignedIn) => {
    const response = await dashboardRequest(app, session, "GET", "/dashboard/api/cta");
    expect(response.statusCode).toBe(200);
    return response.json<{ data: Array<{ kind: string; value: string; created_at: string }> }>().data;
  };

  const remove = (session: SignedIn, kind: string, value: string) =>
    dashboardRequest(
      app,
      session,
      "DELETE",
      `/dashboard/api/cta?${new URLSearchParams({ kind, value }).toString()}`,
    );

  it("lists, adds and removes entries in canonical form, and the next send sees each change", async () => {
    const { session, send } = await sendingAccount();
    expect(await list(session)).toEqual([]);

    // Warm the cache with the empty list: any link goes.
    expect((await send("https://e.example/x")).statusCode).toBe(202);

    const added = await dashboardRequest(app, session, "POST", "/dashboard/api/cta", {
      kind: "url",
      value: " HTTPS://DKY.in/T/ ",
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ kind: "url", value: "https://dky.in/T/" });

    // At once, not after the cache's half second.
    const refused = await send("https://e.example/x");
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: "cta_not_whitelisted", param: "variables.url1" });
    expect((await send("https://dky.in/T/42")).statusCode).toBe(202);

    const number = await dashboardRequest(app, session, "POST", "/dashboard/api/cta", {
      kind: "number",
      value: "+91 1800 123 4567",
    });
    expect(number.json()).toMatchObject({ kind: "number", value: "+9118001234567" });
    expect((await send("https://dky.in/T/42", "1800-000-0000")).json().error).toMatchObject({
      code: "cta_not_whitelisted",
      param: "variables.cbn1",
    });

    expect((await list(session)).map(({ kind, value }) => `${kind} ${value}`)).toEqual([
      "url https://dky.in/T/",
      "number +9118001234567",
    ]);

    // Removed in another spelling of the same entry; the next send sees the list without it.
    const removed = await remove(session, "url", "https://DKY.IN/T/");
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await send("https://e.example/x")).statusCode).toBe(202);
    expect((await list(session)).map((entry) => entry.value)).toEqual(["+9118001234567"]);
  });

  it("refuses bad entries with the field named, repeats, unknown removals, and other accounts' entries", async () => {
    const { session } = await sendingAccount();
    const other = await signedInAccount(ctx, app);
    for (const [kind, value, message] of [
      ["url", "https://dky.in@evil.com/", /user name or password/],
      ["url", "https://dky.in/?utm=1", /query/],
      ["url", "dky.in", /must start with http/],
      ["number", "1800 123 4567", /E.164/],
    ] as const) {
      const response = await dashboardRequest(app, session, "POST", "/dashboard/api/cta", { kind, value });
      expect(response.statusCode, value).toBe(400);
      expect(response.json().error).toMatchObject({ code: "invalid_request", param: "value" });
      expect(response.json().error.message).toMatch(message);
    }
    const badKind = await dashboardRequest(app, session, "POST", "/dashboard/api/cta", {
      kind: "email",
      value: "a@b.in",
    });
    expect(badKind.statusCode).toBe(400);

    const first = await dashboardRequest(app, session, "POST", "/dashboard/api/cta", {
      kind: "url",
      value: "https://dky.in/",
    });
    expect(first.statusCode).toBe(201);
    const again = await dashboardRequest(app, session, "POST", "/dashboard/api/cta", {
      kind: "url",
      value: "https://dky.in",
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.message).toBe("URL prefix https://dky.in/ is already whitelisted.");

    // Another account sees none of it and cannot remove it.
    expect(await list(other)).toEqual([]);
    const foreign = await remove(other, "url", "https://dky.in/");
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toMatchObject({ code: "not_found", param: "value" });
    expect(await list(session)).toHaveLength(1);
  });

  it("needs a session, and the CSRF token for changes", async () => {
    const session = await signedInAccount(ctx, app);
    expect((await app.inject({ method: "GET", url: "/dashboard/api/cta" })).statusCode).toBe(401);
    const noToken = await app.inject({
      method: "POST",
      url: "/dashboard/api/cta",
      headers: { cookie: session.cookie },
      payload: { kind: "url", value: "https://dky.in/" },
    });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.code).toBe("csrf_rejected");
    const deleteNoToken = await app.inject({
      method: "DELETE",
      url: "/dashboard/api/cta?kind=url&value=https%3A%2F%2Fdky.in%2F",
      headers: { cookie: session.cookie },
    });
    expect(deleteNoToken.statusCode).toBe(403);
    expect(await list(session)).toEqual([]);
  });
});
