import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";
import { listRoutes } from "../helpers/routes.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

describe("405 method_not_allowed for a known path with another method", () => {
  const instances = useTestInstances("sqlite");
  let ctx: AppContext;
  let app: App;
  let auth: Record<string, string>;

  beforeAll(async () => {
    ({ ctx, app } = instances);
    await app.ready();
    auth = bearer((await createAccountWithKey(ctx, "sandbox", 1_000_000)).secret);
  });

  function expect405(response: Awaited<ReturnType<App["inject"]>>, allow: string): void {
    expect(response.statusCode, response.body).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    const { error } = response.json();
    expect(Object.keys(error).sort()).toEqual(["code", "message", "request_id"]);
    expect(error.code).toBe("method_not_allowed");
    expect(error.request_id).toBe(response.headers["x-request-id"]);
  }

  it("answers the public API's paths with the methods they take in Allow", async () => {
    const balance = await app.inject({ method: "DELETE", url: "/v2/balance", headers: auth });
    expect405(balance, "GET, HEAD, OPTIONS");
    expect(balance.json().error.message).toBe(
      "DELETE is not allowed on /v2/balance; it takes GET, HEAD, OPTIONS.",
    );
    // Without a key too: the method is wrong whoever asks, and nothing is authenticated.
    expect405(await app.inject({ method: "GET", url: "/v2/webhooks/whk_x/test" }), "OPTIONS, POST");
    expect405(
      await app.inject({ method: "PUT", url: "/v2/sms/send", headers: auth, payload: {} }),
      // GET /v2/sms/{id} takes this path too, with id "send".
      "GET, HEAD, OPTIONS, POST",
    );
    expect405(
      await app.inject({ method: "POST", url: "/v2/sms/msg_x?x=1", headers: auth }),
      "GET, HEAD, OPTIONS",
    );
    // The dashboard's API too, before any session check.
    expect405(
      await app.inject({ method: "PUT", url: "/dashboard/api/session" }),
      "DELETE, GET, HEAD, OPTIONS, POST",
    );
  });

  it("answers HEAD on a path without GET with 405 and no body, and HEAD on a GET route as GET", async () => {
    const head = await app.inject({ method: "HEAD", url: "/v2/webhooks/whk_x/replay", headers: auth });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe("OPTIONS, POST");
    expect(head.body).toBe("");
    expect((await app.inject({ method: "HEAD", url: "/v2/balance", headers: auth })).statusCode).toBe(200);
  });

  it("answers OPTIONS on a known path with 204 and Allow, and on an unknown one with 404", async () => {
    const options = await app.inject({ method: "OPTIONS", url: "/v2/sms/batch" });
    expect(options.statusCode).toBe(204);
    // GET /v2/sms/{id} takes this path too.
    expect(options.headers.allow).toBe("GET, HEAD, OPTIONS, POST");
    expect(options.body).toBe("");
    const unknown = await app.inject({ method: "OPTIONS", url: "/v2/nothing-here" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("not_found");
  });

  it("keeps unknown paths 404 not_found, without Allow", async () => {
    for (const [method, url] of [
      ["GET", "/v2/nothing-here"],
      ["DELETE", "/v2/balance/extra"],
      ["POST", "/v2/sms/msg_x/cancel"],
      ["GET", "/nope"],
      ["POST", "/assets/app.js"],
      ["PUT", "/dashboard/api/nothing"],
    ] as const) {
      const response = await app.inject({ method, url, headers: auth });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json().error.code).toBe("not_found");
      expect(response.headers.allow).toBeUndefined();
    }
  });

  it("covers every route: each path refuses the methods it lacks, and lists those it takes", async () => {
    const routes = listRoutes(app).filter((route) => !route.path.includes("*"));
    expect(routes.length).toBeGreaterThan(30);
    const concrete = (path: string) => path.replace(/:[^/]+/g, "x1");
    const patterns = routes.map((route) => ({
      ...route,
      regex: new RegExp(`^${route.path.replace(/:[^/]+/g, "[^/]+")}$`),
    }));
    const paths = new Set(routes.map((route) => concrete(route.path)));
    let checked = 0;
    for (const path of paths) {
      const taken = new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method));
      const allow = [...taken, "OPTIONS"].sort().join(", ");
      for (const method of METHODS.filter((m) => !taken.has(m))) {
        const response = await app.inject({
          method,
          url: path,
          ...(method === "GET" || method === "DELETE"
            ? { headers: auth }
            : { headers: { ...auth, "content-type": "application/json" }, payload: "{}" }),
        });
        expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(405);
        expect(response.headers.allow, `${method} ${path}`).toBe(allow);
        expect(response.json().error.code).toBe("method_not_allowed");
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});
