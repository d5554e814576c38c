/**
 * No secret ever reaches the audit log (docs/audit.md): a scenario that makes and rotates keys,
 * makes webhook endpoints and rotates their secrets, and creates accounts with passwords, by the
 * console, the API and the CLI's functions, then searches every column of every audit row for
 * each secret it saw, in every encoding test/helpers/leaks.ts knows.
 */
import { createHash, randomBytes } from "node:crypto";
import { generate } from "otplib";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { createKey, rotateKey } from "../../src/keys/keys.js";
import { hashSecret } from "../../src/keys/secrets.js";
import { createEndpoint, rotateSecret } from "../../src/webhooks/endpoints.js";
import { dashboardRequest, redeemInvite, type SignedIn, signIn } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { useTestInstances } from "../helpers/instances.js";
import { findLeaks } from "../helpers/leaks.js";

const PUBLIC_URL = "https://1.1.1.1/hooks/dakiya";

describe.each(DIALECTS)("secrets in the audit log on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  it("holds none of the secrets of a day of key, webhook and account changes", async () => {
    const secrets = new Set<string>();
    const secret = (value: string) => {
      secrets.add(value);
      return value;
    };
    /** A key's secret, its SHA-256 (what is stored) and its part after the displayed prefix. */
    const keySecret = (value: string) => {
      secret(value.slice(12));
      secret(createHash("sha256").update(value).digest("hex"));
      return secret(value);
    };
    /** A webhook secret, and its 32 bytes as hex (the signing key). */
    const webhookSecret = (value: string) => {
      secret(Buffer.from(value.slice("whsec_".length), "base64").toString("hex"));
      return secret(value);
    };

    const accounts: Array<{ id: string; session: SignedIn }> = [];
    for (let i = 0; i < 2; i++) {
      const email = `audit-${i}-${randomBytes(4).toString("hex")}@example.com`;
      const password = secret(`pw-${randomBytes(12).toString("base64url")}`);
      const account = await createAccount(ctx, { email, password });
      const session = await signIn(app, email, password);
      secret(session.cookie.split("=")[1] as string);
      secret(session.csrf);
      accounts.push({ id: account.id, session });
    }
    const hashes = await ctx.db.selectFrom("members").select("password_hash").execute();
    for (const { password_hash } of hashes) if (password_hash !== null) secret(password_hash);

    for (const { id, session } of accounts) {
      // The console: a key made, rotated twice, deleted; endpoints made, changed, rotated.
      const created = await dashboardRequest(app, session, "POST", "/dashboard/api/keys", {
        environment: "sandbox",
        label: "console",
      });
      expect(created.statusCode).toBe(201);
      let key = created.json<{ id: string; secret: string }>();
      keySecret(key.secret);
      for (const grace of [3600, 0]) {
        const rotated = await dashboardRequest(app, session, "POST", `/dashboard/api/keys/${key.id}/rotate`, {
          grace_seconds: grace,
        });
        key = rotated.json<{ key: { id: string; secret: string } }>().key;
        keySecret(key.secret);
      }
      const endpoint = await dashboardRequest(
        app,
        session,
        "POST",
        "/dashboard/api/webhooks?environment=sandbox",
        {
          url: `${PUBLIC_URL}?token=${secret(`receiver-${randomBytes(9).toString("hex")}`)}`,
        },
      );
      const { id: endpointId, secret: first } = endpoint.json<{ id: string; secret: string }>();
      webhookSecret(first);
      const rotatedEndpoint = await dashboardRequest(
        app,
        session,
        "POST",
        `/dashboard/api/webhooks/${endpointId}/rotate-secret?environment=sandbox`,
      );
      webhookSecret(rotatedEndpoint.json<{ secret: string }>().secret);
      const patched = await dashboardRequest(
        app,
        session,
        "PATCH",
        `/dashboard/api/webhooks/${endpointId}?environment=sandbox`,
        {
          description: "console endpoint",
          url: `${PUBLIC_URL}/v2?signature=${secret(`sig-${randomBytes(9).toString("hex")}`)}`,
        },
      );
      expect(patched.statusCode, patched.body).toBe(200);

      // The API, with the console's key.
      const api = (method: "POST" | "GET", url: string, payload?: object) =>
        app.inject({ method, url, headers: { authorization: `Bearer ${key.secret}` }, payload });
      const viaApi = (await api("POST", "/v2/webhooks", { url: PUBLIC_URL })).json<{
        id: string;
        secret: string;
      }>();
      webhookSecret(viaApi.secret);
      webhookSecret(
        (await api("POST", `/v2/webhooks/${viaApi.id}/rotate-secret`, {})).json<{ secret: string }>().secret,
      );
      webhookSecret((await api("GET", `/v2/webhooks/${viaApi.id}`)).json<{ secret: string }>().secret);

      // The operator's functions, as the CLI calls them.
      const cliKey = await createKey(ctx, { accountId: id, environment: "live", label: "cli" }, CLI_ORIGIN);
      keySecret(cliKey.secret);
      keySecret(
        (await rotateKey(ctx, { accountId: id, keyId: cliKey.id, graceSeconds: 0 }, CLI_ORIGIN)).key.secret,
      );
      const cliEndpoint = await createEndpoint(
        ctx,
        { accountId: id, environment: "live" },
        { url: PUBLIC_URL },
        CLI_ORIGIN,
      );
      webhookSecret(cliEndpoint.secret as string);
      webhookSecret(
        (await rotateSecret(ctx, { accountId: id, environment: "live" }, cliEndpoint.id, CLI_ORIGIN))
          .secret as string,
      );
    }
    // Members: an invite's link and password, a second factor with its recovery codes, a wrong
    // password and a wrong code, and the sessions that open.
    for (const { session } of accounts) {
      const email = `member-${randomBytes(4).toString("hex")}@example.com`;
      const invited = await dashboardRequest(app, session, "POST", "/dashboard/api/members", {
        email,
        role: "developer",
      });
      const token = secret(invited.json<{ invite_url: string }>().invite_url.split("/").pop() as string);
      secret(hashSecret(token));
      const password = secret(`pw-${randomBytes(12).toString("base64url")}`);
      const member = await redeemInvite(app, token, password);
      secret(member.cookie.split("=")[1] as string);
      const setup = await dashboardRequest(app, member, "POST", "/dashboard/api/two-factor/setup");
      const { secret: totp, otpauth_url } = setup.json<{ secret: string; otpauth_url: string }>();
      secret(totp);
      secret(otpauth_url);
      const enabled = await dashboardRequest(app, member, "POST", "/dashboard/api/two-factor/enable", {
        code: await generate({ secret: totp, epoch: Math.floor(instances.clock.now().getTime() / 1000) }),
      });
      for (const code of enabled.json<{ recovery_codes: string[] }>().recovery_codes) secret(code);
      const wrong = secret(`wrong-${randomBytes(8).toString("hex")}`);
      const refused = await app.inject({
        method: "POST",
        url: "/dashboard/api/session",
        payload: { email, password: wrong },
      });
      expect(refused.statusCode).toBe(401);
      const first = await app.inject({
        method: "POST",
        url: "/dashboard/api/session",
        payload: { email, password },
      });
      const challenge = secret(first.json<{ challenge: string }>().challenge);
      const badCode = await app.inject({
        method: "POST",
        url: "/dashboard/api/session/two-factor",
        payload: { challenge, recovery_code: secret(`AAAA-${randomBytes(4).toString("hex")}`) },
      });
      expect(badCode.statusCode).toBe(401);
      instances.clock.advance(60);
    }
    const sealedTotp = await ctx.db.selectFrom("members").select("two_factor_secret_sealed").execute();
    for (const row of sealedTotp) if (row.two_factor_secret_sealed) secret(row.two_factor_secret_sealed);

    // What the database keeps of the webhook secrets: sealed (sealing is random; these are its own).
    const sealed = await ctx.db
      .selectFrom("webhook_endpoints")
      .select(["secret_sealed", "previous_secret_sealed"])
      .execute();
    for (const row of sealed) {
      secret(row.secret_sealed);
      if (row.previous_secret_sealed) secret(row.previous_secret_sealed);
    }

    const rows = await ctx.db.selectFrom("audit_log").selectAll().execute();
    // Every change above was recorded: the search has something to search.
    const actions = new Set(rows.map((row) => row.action));
    for (const action of [
      "key.rotated",
      "member.invited",
      "member.joined",
      "two_factor.enabled",
      "sign_in.failed",
    ]) {
      expect(actions).toContain(action);
    }
    const everything = rows.map((row) => Object.values(row).map(String).join("\u0000")).join("\n");
    expect(findLeaks(everything, secrets)).toEqual([]);
    // The search itself finds a secret where there is one.
    const planted = [...secrets][0] as string;
    expect(findLeaks(`${everything}${JSON.stringify({ x: planted })}`, secrets)).not.toEqual([]);
  });
});
