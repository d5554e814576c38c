import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { useTestInstances } from "../helpers/instances.js";

interface KeyJson {
  id: string;
  secret?: string;
  scope: string;
  allowed_ips: string[] | null;
}

describe.each(DIALECTS)("the dashboard's keys with scopes and allowed IPs on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let session: SignedIn;

  beforeAll(async () => {
    ({ ctx, app } = instances);
    session = await signedInAccount(ctx, app);
  });

  const create = (body: object) => dashboardRequest(app, session, "POST", "/dashboard/api/keys", body);

  it("creates a scoped key with an allowlist, lists both, and rotation keeps them", async () => {
    const created = await create({
      environment: "sandbox",
      label: "checkout",
      scope: "read",
      allowed_ips: ["203.0.113.0/24", " 2001:DB8::1 "],
    });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json<KeyJson>();
    expect(key).toMatchObject({ scope: "read", allowed_ips: ["203.0.113.0/24", "2001:db8::1/128"] });

    const plain = (await create({ environment: "sandbox", allowed_ips: null })).json<KeyJson>();
    expect(plain).toMatchObject({ scope: "full", allowed_ips: null });

    const listed = await dashboardRequest(app, session, "GET", "/dashboard/api/keys?environment=sandbox");
    const byId = new Map(listed.json<{ data: KeyJson[] }>().data.map((k) => [k.id, k]));
    expect(byId.get(key.id)).toMatchObject({
      scope: "read",
      allowed_ips: ["203.0.113.0/24", "2001:db8::1/128"],
    });
    expect(byId.get(plain.id)).toMatchObject({ scope: "full", allowed_ips: null });

    const rotated = await dashboardRequest(app, session, "POST", `/dashboard/api/keys/${key.id}/rotate`, {
      grace_seconds: 0,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json<{ key: KeyJson }>().key).toMatchObject({
      scope: "read",
      allowed_ips: ["203.0.113.0/24", "2001:db8::1/128"],
    });
  });

  it("refuses a bad scope or allowlist with 400 naming the field, and makes no key", async () => {
    const count = async () =>
      (await dashboardRequest(app, session, "GET", "/dashboard/api/keys?environment=sandbox")).json<{
        data: unknown[];
      }>().data.length;
    const before = await count();
    const scope = await create({ environment: "sandbox", scope: "admin" });
    expect(scope.statusCode).toBe(400);
    expect(scope.json().error).toMatchObject({ code: "invalid_request", param: "scope" });

    const hostBits = await create({ environment: "sandbox", allowed_ips: ["10.0.0.0/8", "203.0.113.7/24"] });
    expect(hostBits.statusCode).toBe(400);
    expect(hostBits.json().error).toMatchObject({
      code: "invalid_request",
      param: "allowed_ips.1",
      message:
        '"203.0.113.7/24" has host bits set: the network of 203.0.113.7/24 is 203.0.113.0/24; write that, or 203.0.113.7 alone for the one address.',
    });
    const tooMany = await create({
      environment: "sandbox",
      allowed_ips: Array.from({ length: 21 }, (_, i) => `198.51.100.${i}`),
    });
    expect(tooMany.json().error).toMatchObject({
      param: "allowed_ips",
      message: expect.stringContaining("at most 20"),
    });
    expect((await create({ environment: "sandbox", allowed_ips: [] })).statusCode).toBe(400);
    expect((await create({ environment: "sandbox", allowed_ips: "10.0.0.0/8" })).statusCode).toBe(400);
    expect(await count()).toBe(before);
  });
});
